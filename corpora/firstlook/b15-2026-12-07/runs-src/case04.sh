#!/bin/bash
# run-04: MMF-like trainer, 3 nodes x 1 rank, DIST_TIMEOUT_S=45 (trainer's pg timeout).
# From outside, node-c's rank (+ its dataloader worker) is put in a cpu cgroup:
# ~25s in quota 20% of one cpu, ~50s in quota 0.1% (period 1s) -> a straggler.
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-04; W=/tmp/b15w/c04; REC=$SRC/inject-records/c04.txt; CG=/sys/fs/cgroup/cpu/b15-c04
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $C/logs/node-c $W; : > $REC
mk_hosts $W/hosts node-a 127.0.15.41 node-b 127.0.15.42 node-c 127.0.15.43
COMMONENV="EXPERIMENT=synth_cls_r18 MAX_UPDATES=1500 LOG_EVERY=25 EVAL_EVERY=500 NUM_WORKERS=1 DIST_TIMEOUT_S=45 STEP_SLEEP=0.01"
for n in node-a node-b node-c; do
  node_cmd2 $n $W/hosts "-" env $COMMONENV $TR --nnodes 3 --nproc-per-node 1 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29441 --rdzv-id mmf-synth-3n --local-addr $n \
    $SRC/mmf_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b node-c pid=$P_node_c"
sleep 25
V=$(worker_pid $P_node_c 0); mkdir -p $CG
for t in $V $(desc $V); do echo $t > $CG/cgroup.procs; done
echo 100000 > $CG/cpu.cfs_period_us; echo 20000 > $CG/cpu.cfs_quota_us
rec "INJECT phase1: node-c rank pid $V + workers [$(desc $V | tr '\n' ' ')] -> cpu cgroup quota 20000/100000"
sleep 25
echo 1000000 > $CG/cpu.cfs_period_us; echo 1000 > $CG/cpu.cfs_quota_us
rec "INJECT phase2: node-c quota 1000/1000000 (0.1% of one cpu)"
( sleep 110; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b $P_node_c ) & WD=$!
wait_pids $P_node_a $P_node_b $P_node_c
kill $WD 2>/dev/null; kill_tree $WD
sleep 1; rmdir $CG 2>>$REC
rec "done"
