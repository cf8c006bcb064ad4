#!/bin/bash
# run-05: 2 nodes (cn0201, cn0202) x 2 workers, Lightning-flavoured CNN trainer, both
# consoles collected into one file the way `srun --label` writes slurm-<jobid>.out.
# Fault: the dataset lives at /mnt/datasets/synth-cifar10, which is a bind mount of the
# prepared shards on cn0201 only; on cn0202 the mount is missing, so the same path is an
# empty directory there.
source "$(dirname "$0")/common.sh"
scratch case05 cn0201 cn0202
PORT=29505
$PY $SRC/make_image_shards.py $WORK/data 4 256
DS=/mnt/datasets/synth-cifar10
mkdir -p $DS
OUTF=$WORK/slurm-73311.out
i=0
for h in cn0201 cn0202; do
  ih=$([ $i = 0 ] && echo 1 || echo 0)
  pre=""; [ $h = cn0201 ] && pre="mount --bind $WORK/data $DS"
  NODE_PRE="$pre" run_node $h $WORK/agent_$i.pid \
    $PY -m torch.distributed.run --nnodes 2 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id 73311 --rdzv-conf is_host=$ih \
      $SRC/lit_style.py --data_dir $DS --default_root_dir $WORK/lightning_logs --max_epochs 5 \
    2>&1 | $PY $SRC/prefix_lines.py srun $i $OUTF &
  i=$((i+1))
done
wait
rmdir $DS /mnt/datasets 2>/dev/null
OUT=$B4/run-05/logs
rm -rf $OUT; mkdir -p $OUT
cp $OUTF $OUT/
