#!/bin/bash
# case 09: 3 nodes x 1 rank, glog-style trainer; node-b launched with a wrong rendezvous port (29490 vs 29409)
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-09; REC=$SRC/inject-records/c09.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c09-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2 node-c:127.0.11.3
T="$SRC/trainer.py --style glog --steps 300 --pg-timeout 120"
for n in node-a node-b node-c; do
  PORT=29409; [ $n = node-b ] && PORT=29490
  node $n $H "" --nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:$PORT --rdzv-id=seg-0931 --max-restarts=0 --rdzv-conf=join_timeout=70 --tee=3 --log-dir=$C/logs/$n $T > $C/logs/$n.log 2>&1 &
  sleep 1
done
rec "started 3 agents; node-b given --rdzv-endpoint=node-a:29490, others node-a:29409"
wait; rec "all done"
