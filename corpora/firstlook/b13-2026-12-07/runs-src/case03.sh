#!/bin/bash
# run-03: 2 nodes x 2 procs, TRL-like reward log; external fault: global rank 1 moved into a
# cgroup v1 memory cgroup with a small limit after start (memory.limit_in_bytes).
source /work/staging/b13/runs-src/lib.sh
N=03; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
ARGS=(--style trl --steps 150 --step-sleep 0.2 --log-every 10 --eval-every 30 --eval-size 8192 --eval-batch 256 --keep-eval-features --pg-timeout 60)
rec "start node-a, node-b agents (2 nodes x 2 procs)"
$SRC/node.sh node-a $H - $(TR $PORT $ID 2 2 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 2 2 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
wait_for $C/logs/node-a/console.log "'loss':" 120 || rec "first log not seen"
P=$(rank_pid 1 $ID); rec "rank 1 pid $P runs on $(pid_host $P)"
CG=/sys/fs/cgroup/memory/b13-r03-rank1; mkdir -p $CG
echo 0 > $CG/memory.swappiness 2>/dev/null
echo $((40*1024*1024)) > $CG/memory.limit_in_bytes
echo $P > $CG/cgroup.procs
rec "global rank 1 (node-a local_rank 1, pid $P) moved to memory cgroup $CG, memory.limit_in_bytes=40MiB (charges start from ~0 after the move)"
D0=$(dmesg | wc -l)
wait $PA; rec "node-a agent exited rc=$?"
wait $PB; rec "node-b agent exited rc=$?"
rec "memory.failcnt=$(cat $CG/memory.failcnt) max_usage=$(cat $CG/memory.max_usage_in_bytes) oom_control: $(tr '\n' ' ' < $CG/memory.oom_control)"
dmesg | tail -n +$((D0+1)) > /tmp/b13-r03-dmesg.txt; rec "dmesg new lines: $(wc -l < /tmp/b13-r03-dmesg.txt) (saved /tmp/b13-r03-dmesg.txt)"
rmdir $CG
rec "done"
