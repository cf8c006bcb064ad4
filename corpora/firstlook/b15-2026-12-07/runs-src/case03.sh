#!/bin/bash
# run-03: monobeast-like RL loop, 2 nodes x 2 ranks, torchrun --max-restarts 1, shared checkpoint dir.
# ~35s in, node-b's LOCAL_RANK=1 worker process is SIGKILLed from outside. Logs of both attempts
# land in the same per-node folder (torchrun log-dir attempt_0/attempt_1 + one console per node).
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-03; W=/tmp/b15w/c03; REC=$SRC/inject-records/c03.txt
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W/ckpt; : > $REC
mk_hosts $W/hosts node-a 127.0.15.31 node-b 127.0.15.32
COMMONENV="SAVEDIR=/mnt/shared/rl-ckpt TOTAL_STEPS=1600000 SAVE_EVERY_S=10 STEP_SLEEP=0.01"
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "$W/ckpt:/mnt/shared/rl-ckpt,$C/logs/$n:/var/log/job" env $COMMONENV $TR --nnodes 2 --nproc-per-node 2 \
    --max-restarts 1 --rdzv-backend c10d --rdzv-endpoint node-a:29431 --rdzv-id rl-grid-impala --local-addr $n \
    --log-dir /var/log/job/torchrun -r 3 \
    $SRC/beast_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b"
sleep 35
V=$(worker_pid $P_node_b 1)
rec "INJECT: kill -9 $V (node-b LOCAL_RANK=1 worker) cmdline=$(tr '\0' ' ' < /proc/$V/cmdline)"
kill -9 $V
( sleep 170; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
