#!/bin/bash
# run-05: MMDetection-2.x-style logs, 2 nodes x 2 workers, torchrun --log-dir tree with --tee 3
# per node (logs/<host>/console.log + logs/<host>/torchelastic/...). Each node reads its own
# local copy of the dataset (bind-mounted at the same path). Injected from outside before
# launch: node 2's local index.json truncated to 300 bytes.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-05; W=$SCR/c05; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/data $W/work_dirs
mkhosts $W/hosts det-n1 det-n2
for h in det-n1 det-n2; do cp -r $SCR/data $W/local-$h; mkdir -p $C/logs/$h; done
truncate -s 300 $W/local-det-n2/index.json; note "truncated $W/local-det-n2/index.json to 300 bytes"
for h in det-n1 det-n2; do
  node $h $W/hosts "--style none --out $C/logs/$h/console.log" "cd $W; mount --bind $W/local-$h $W/data" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint det-n1:29805 --rdzv-id mmdet-cls-31 \
      --log-dir $C/logs/$h/torchelastic --tee 3 \
      $SRC/mmdet_like.py configs/mlp_cls_4x32_6e.py --launcher pytorch --work-dir $W/work_dirs/mlp_cls_4x32_6e --data-root $W/data --epochs 6
  sleep 1
done
note "launched"; wait; note "all agents exited"
