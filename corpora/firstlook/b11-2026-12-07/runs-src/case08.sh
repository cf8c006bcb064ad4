#!/bin/bash
# case 08: 2 nodes x 2 ranks, torchvision-references-MetricLogger-style trainer; at once SIGTERM to every process of the job
# (both agents and all 4 workers), as a node drain / preemption would
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-08; REC=$SRC/inject-records/c08.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c08-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29408 --rdzv-id=cls-r50-18 --max-restarts=0 --tee=3"
T="$SRC/trainer.py --style mlogger --steps 600 --pg-timeout 120"
node node-a $H "" $ARGS --log-dir=$C/logs/node-a $T > $C/logs/node-a.log 2>&1 &
sleep 1
node node-b $H "" $ARGS --log-dir=$C/logs/node-b $T > $C/logs/node-b.log 2>&1 &
rec "started 2 agents"
sleep 35
ALL=""; for n in node-a node-b; do AP=$(cat /tmp/b11-agentpid-$n); ALL="$ALL $AP $(for w in 0 1; do wpid $AP $w; done)"; done
rec "SIGTERM to agents+workers: $ALL"; kill -TERM $ALL
wait; rec "all done"
