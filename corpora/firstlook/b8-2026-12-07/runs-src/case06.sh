#!/bin/bash
# run-06: plain-logging trainer, 3 nodes x 1 worker, journald-style export per host
# (logs/<host>.journal). Injected from outside: node 3 was started with a different
# --rdzv-id (stale job id in its launch env); join timeout 60 s on every node.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-06; W=$SCR/c06; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/out
mkhosts $W/hosts cn031 cn032 cn033
for h in cn031 cn032 cn033; do
  id=trainjob-4471; [ $h = cn033 ] && id=trainjob-4470
  node $h $W/hosts "--style journal --out $C/logs/$h.journal" "cd $W" \
    torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint cn031:29806 --rdzv-id $id \
      --rdzv-conf join_timeout=60 $SRC/plain_trainer.py --data $SCR/data --out $W/out
  sleep 1
done
note "launched (cn033 with --rdzv-id trainjob-4470, others trainjob-4471)"; wait; note "all agents exited"
