#!/bin/bash
# run-07: monobeast-like RL loop, 2 nodes x 2 ranks. Each node's launch is wrapped in
# `timeout -s TERM 75` (a per-job wall-time limit). Both nodes' output is collected into ONE
# file with docker-compose-like "<service>  | " prefixes.
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-07; W=/tmp/b15w/c07; REC=$SRC/inject-records/c07.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt; : > $REC
mk_hosts $W/hosts node-a 127.0.15.71 node-b 127.0.15.72
COMMONENV="SAVEDIR=/mnt/shared/rl-ckpt TOTAL_STEPS=5000000 SAVE_EVERY_S=20 STEP_SLEEP=0.02"
for n in node-a node-b; do
  ( timeout -s TERM 75 bash -c "source $SRC/lib.sh; node_cmd2 $n $W/hosts '$W/ckpt:/mnt/shared/rl-ckpt' env $COMMONENV $TR --nnodes 2 --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29471 --rdzv-id impala-grid-long --local-addr $n $SRC/beast_like.py" 2>&1; echo "timeout rc=$?" >> $REC ) \
    | sed -u "s/^/learner-$n-1  | /" >> $C/logs/compose.log &
  eval "P_${n/-/_}=$!"
done
rec "agents started (timeout 75s each, SIGTERM)"
( sleep 160; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
