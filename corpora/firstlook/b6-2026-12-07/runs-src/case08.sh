#!/bin/bash
# run-08: Lightning-style tabular regression, single node (ml-box-3), 2 workers,
# DataLoader num_workers=1; the node's console captured to one file.
# Fault: ~35 s after launch a "feature backfill" process writes 1e30 into
# columns 0-3 of 3000 random rows of the live features.npy (which the
# trainer reads through np.load(mmap_mode="r")), in place.
source "$(dirname "$0")/common.sh"
C=$B6/run-08; W=$WORK/c08
rm -rf $C/logs $W; mkdir -p $C/logs $W/data
cp $WORK/tabular/*.npy $W/data/
write_hosts $W/hosts ml-box-3
start_node ml-box-3 $W/hosts $C/logs/train-console.log "" -- \
  $TORCHRUN --standalone --nproc-per-node 2 \
    $SRC/lit_style.py --task tabular --data $W/data --default_root_dir $W/lightning_logs/version_4 \
    --max_epochs 10 --batch_size 512 --num_workers 1 --lr 1e-3 --limit_train_batches 150 > $W/agent.pid
sleep 35
echo "$(stamp) writing 1e30 into 3000 rows (cols 0-3) of $W/data/features.npy in place" >> $W/inject.txt
python3 - $W/data/features.npy <<'PY'
import numpy as np, sys
a = np.load(sys.argv[1], mmap_mode="r+")
rows = np.random.RandomState(5).choice(len(a), 3000, replace=False)
a[rows, :4] = 1e30
a.flush()
PY
wait $(cat $W/agent.pid)
echo "$(stamp) agent exited" >> $W/inject.txt
