#!/bin/bash
# run-01: Keras-style fit output, 2 nodes x 2 workers, healthy run with very noisy warnings
# (job env carries PYTHONWARNINGS=always; DataLoader with 3 workers on a 2-core box).
# Layout: merged console, pdsh-style "host: " prefixes (logs/console.log). No fault injected.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-01; W=$SCR/c01; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt
mkhosts $W/hosts kr-node01 kr-node02
note "job start"
for h in kr-node01 kr-node02; do
  node $h $W/hosts "--style pdsh --out $C/logs/console.log" "cd $W; export PYTHONWARNINGS=always" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint kr-node01:29801 --rdzv-id keras-fit-0412 \
      $SRC/keras_like.py --data $SCR/data --epochs 6 --batch-size 32 --ckpt-dir $W/ckpt >/dev/null
  sleep 1
done
wait; note "job end"; ls -l $W/ckpt >> $INJ
