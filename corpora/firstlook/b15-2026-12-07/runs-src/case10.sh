#!/bin/bash
# run-10: monobeast-like RL loop, elastic: 3 nodes x 1 rank, --nnodes 2:3, --max-restarts 2,
# shared checkpoint dir. ~35s in, node-c's agent and its worker are SIGKILLed together from
# outside (the whole node disappears; its console simply stops).
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-10; W=/tmp/b15w/c10; REC=$SRC/inject-records/c10.txt
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $C/logs/node-c $W/ckpt; : > $REC
mk_hosts $W/hosts node-a 127.0.15.101 node-b 127.0.15.102 node-c 127.0.15.103
COMMONENV="SAVEDIR=/mnt/shared/rl-ckpt TOTAL_STEPS=1600000 SAVE_EVERY_S=8 STEP_SLEEP=0.02"
for n in node-a node-b node-c; do
  node_cmd2 $n $W/hosts "$W/ckpt:/mnt/shared/rl-ckpt" env $COMMONENV $TR --nnodes 2:3 --nproc-per-node 1 --max-restarts 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29501 --rdzv-id impala-elastic --local-addr $n \
    $SRC/beast_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b node-c pid=$P_node_c"
sleep 35
L=$(desc $P_node_c | tr '\n' ' ')
kill_tree $P_node_c
rec "INJECT: SIGKILL node-c agent pid $P_node_c and its descendants [$L]"
( sleep 140; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b $P_node_c
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
