#!/bin/bash
# run-01: ColossalAI-Booster-style console, 2 nodes x 2 workers, healthy. Layout: per-node
# folders logs/<host>/stdout.log, shipped as logs/colossal-job-logs.zip. Nothing injected.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-01; W=$SCR/c01; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt $W/collect
mkhosts $W/hosts clai-node-0 clai-node-1
note "job start"
for h in clai-node-0 clai-node-1; do mkdir -p $W/collect/$h
  node $h $W/hosts "--style none --out $W/collect/$h/stdout.log" "cd $SRC" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint clai-node-0:29901 --rdzv-id clai-cls-118 \
      $SRC/colossal_like.py --data $SCR/data --ckpt $W/ckpt --epochs 7
  sleep 1
done
wait; sleep 1; note "job end"; ls -l $W/ckpt >> $INJ
(cd $W/collect && zip -qr $C/logs/colossal-job-logs.zip clai-node-0 clai-node-1)
