#!/bin/bash
# run-08: MMF-like trainer, 2 nodes x 2 ranks, runs to completion. Config that makes real
# libraries warn (pin_memory without accelerator, DDP find_unused_parameters, scheduler stepped
# before optimizer); rank 0's evaluation is slow (EVAL_SLEEP per val batch) so the others wait.
# Nothing is injected.
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-08; W=/tmp/b15w/c08; REC=$SRC/inject-records/c08.txt
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W/save; : > $REC
mk_hosts $W/hosts node-a 127.0.15.81 node-b 127.0.15.82
COMMONENV="EXPERIMENT=synth_cls_wd01 MAX_UPDATES=500 LOG_EVERY=25 EVAL_EVERY=250 NUM_WORKERS=1 PIN_MEMORY=1 FIND_UNUSED=1 SCHED_FIRST=1 EVAL_SLEEP=4 SAVE_DIR=/mnt/shared/save"
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "$W/save:/mnt/shared/save,$C/logs/$n:/var/log/job" env $COMMONENV $TR --nnodes 2 --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29481 --rdzv-id mmf-synth-wd --local-addr $n \
    --log-dir /var/log/job/torchrun --tee 3 \
    $SRC/mmf_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b (no injection)"
( sleep 175; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
