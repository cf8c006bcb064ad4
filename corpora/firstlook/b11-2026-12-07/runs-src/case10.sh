#!/bin/bash
# case 10: 2 nodes x 2 ranks, MetricLogger-style trainer with --warn-demo (deprecated GradScaler on CPU, scheduler order),
# 4 DataLoader workers per rank on a 2-core machine; node-b's agent is started 8 s before node-a's (rendezvous host). Nothing injected at runtime.
# (a first version that gave node-b a hosts file without its own name made node-b's agent crash at start-up; that attempt was killed and discarded)
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-10; REC=$SRC/inject-records/c10.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c10-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29410 --rdzv-id=cls-vit-02 --max-restarts=0 --tee=3"
T="$SRC/trainer.py --style mlogger --steps 240 --workers 4 --warn-demo --pg-timeout 120"
node node-b $H "" $ARGS --log-dir=$C/logs/node-b $T > $C/logs/node-b.log 2>&1 &
sleep 8
node node-a $H "" $ARGS --log-dir=$C/logs/node-a $T > $C/logs/node-a.log 2>&1 &
rec "started node-b agent, then node-a agent 8 s later"
wait; rec "all done"
