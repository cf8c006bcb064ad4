#!/bin/bash
# run-08: 2 nodes (train-n07, train-n08) x 2 workers, FSDP2 ResMLP with sharded DCP
# checkpoints every 50 steps into a shared checkpoint directory. Logs: per node the agent
# console (--tee 3) plus the torchrun --log-dir tree, packed as one tar.gz of the per-node tree.
# Fault: the checkpoint directory is a 40 MB tmpfs (mount -t tmpfs -o size=40m), mounted
# before the nodes start and so shared by both; one checkpoint is ~25 MB.
source "$(dirname "$0")/common.sh"
scratch case08 train-n07 train-n08
PORT=29508
CK=$WORK/ckpt
mkdir -p $CK
mount -t tmpfs -o size=40m tmpfs $CK
df -h $CK | tee $WORK/injection.txt
i=0
for h in train-n07 train-n08; do
  mkdir -p $WORK/tree/$h
  ih=$([ $i = 0 ] && echo 1 || echo 0)
  run_node $h $WORK/agent_$i.pid \
    $PY -m torch.distributed.run --nnodes 2 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id resmlp-ckpt-5521 --rdzv-conf is_host=$ih \
      --log-dir $WORK/tree/$h/torchelastic --tee 3 \
      $SRC/fsdp_trainer.py --steps 200 --batch 64 --ckpt_dir $CK --ckpt_every 50 --log_every 10 \
    > $WORK/tree/$h/launcher.log 2>&1 &
  i=$((i+1))
done
wait
ls -la $CK $CK/* >> $WORK/injection.txt 2>&1; df -h $CK >> $WORK/injection.txt
umount $CK
OUT=$B4/run-08/logs
rm -rf $OUT; mkdir -p $OUT
tar -C $WORK/tree -czf $OUT/resmlp-ckpt-5521-logs.tar.gz train-n07 train-n08
