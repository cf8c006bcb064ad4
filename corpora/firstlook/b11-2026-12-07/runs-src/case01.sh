#!/bin/bash
# case 01: 2 nodes x 2 ranks, glog-style trainer; one rank frozen with SIGSTOP from outside
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-01; REC=$SRC/inject-records/c01.txt; : > $REC
mkdir -p $C/logs; H=/tmp/b11-c01-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29401 --rdzv-id=job-4471 --max-restarts=0 --tee=3"
node node-a $H "" $ARGS --log-dir=$C/logs/node-a $SRC/trainer.py --style glog --steps 600 --pg-timeout 45 > $C/logs/node-a.console.log 2>&1 &
A=$!
sleep 2
node node-b $H "" $ARGS --log-dir=$C/logs/node-b $SRC/trainer.py --style glog --steps 600 --pg-timeout 45 > $C/logs/node-b.console.log 2>&1 &
B=$!
rec "started agents node-a pid $A node-b pid $B"
sleep 30
W=$(wpid $B 0); rec "SIGSTOP node-b LOCAL_RANK=0 (global rank 2) pid $W"; kill -STOP $W
wait $A; rec "node-a agent exited rc=$?"
wait $B; rec "node-b agent exited rc=$?"
kill -CONT $W 2>/dev/null; rec "SIGCONT sent (cleanup) to $W"
