#!/bin/bash
# run-04: single node (hostname trn-ws-04), 2 workers, Lightning-flavoured CNN trainer.
# Job 1 (not kept) trains 2 epochs and writes epoch=0-step=16.ckpt and epoch=1-step=32.ckpt.
# Fault: epoch=1-step=32.ckpt is then cut to 60% of its size with `truncate`
# (as a partial copy / interrupted write leaves it). Job 2, whose logs are kept, resumes
# with --ckpt_path pointing at that file. Logs: torchrun --log-dir tree + --tee 3 console.
source "$(dirname "$0")/common.sh"
scratch case04 trn-ws-04
PORT=29504
$PY $SRC/make_image_shards.py $WORK/data 4 256
mkdir -p $WORK/job1 $WORK/job2
COMMON="--nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-conf is_host=1"
run_node trn-ws-04 $WORK/agent_job1.pid \
  $PY -m torch.distributed.run $COMMON --rdzv-id cnn-job1 \
    $SRC/lit_style.py --data_dir $WORK/data --default_root_dir $WORK/lightning_logs --max_epochs 2 \
  > $WORK/job1/launcher.log 2>&1
CK="$WORK/lightning_logs/checkpoints/epoch=1-step=32.ckpt"
sz=$(stat -c %s "$CK")
truncate -s $(( sz * 60 / 100 )) "$CK"
echo "$(date -u +%FT%T.%3NZ) truncated $CK from $sz to $(stat -c %s "$CK") bytes" | tee $WORK/injection.txt
run_node trn-ws-04 $WORK/agent_job2.pid \
  $PY -m torch.distributed.run $COMMON --rdzv-id cnn-job2 --log-dir $WORK/job2/torchelastic --tee 3 \
    $SRC/lit_style.py --data_dir $WORK/data --default_root_dir $WORK/lightning_logs --max_epochs 4 \
      --ckpt_path "$CK" \
  > $WORK/job2/launcher.log 2>&1
OUT=$B4/run-04/logs
rm -rf $OUT; mkdir -p $OUT
cp -a $WORK/job2/. $OUT/
