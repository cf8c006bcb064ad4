#!/bin/bash
# run-09: MMF-like trainer with a per-worker decode cache (DECODE_CACHE=1, config on all nodes),
# 2 nodes x 2 ranks, 2 dataloader workers per rank. ~25s in, ONE dataloader worker of node-b's
# LOCAL_RANK=0 is moved from outside into a memory cgroup (v1) with memory.limit_in_bytes=160M.
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-09; W=/tmp/b15w/c09; REC=$SRC/inject-records/c09.txt; CG=/sys/fs/cgroup/memory/b15-c09
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W; : > $REC
mk_hosts $W/hosts node-a 127.0.15.91 node-b 127.0.15.92
COMMONENV="EXPERIMENT=synth_cls_cached MAX_UPDATES=2000 LOG_EVERY=20 EVAL_EVERY=1000 NUM_WORKERS=2 DECODE_CACHE=1 STEP_SLEEP=0.02"
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "-" env $COMMONENV $TR --nnodes 2 --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29491 --rdzv-id mmf-synth-cache --local-addr $n \
    $SRC/mmf_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b"
T0=$(date +%s)
sleep 25
R=$(worker_pid $P_node_b 0); WK=$(ps -o pid= --ppid $R | head -1 | tr -d ' ')
mkdir -p $CG; echo 160M > $CG/memory.limit_in_bytes; echo $WK > $CG/cgroup.procs
rec "INJECT: node-b LOCAL_RANK=0 pid $R, its dataloader worker pid $WK ($(tr '\0' ' ' < /proc/$WK/cmdline | cut -c1-80)) -> memory cgroup limit 160M"
( sleep 140; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "memory.failcnt=$(cat $CG/memory.failcnt) max_usage=$(cat $CG/memory.max_usage_in_bytes) oom_control: $(tr '\n' ' ' < $CG/memory.oom_control)"
sleep 1; rmdir $CG 2>>$REC
dmesg > $W/dmesg.full 2>&1
rec "done"
