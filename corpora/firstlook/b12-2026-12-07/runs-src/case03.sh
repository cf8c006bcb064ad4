#!/bin/bash
# case03: 2 nodes x 2 ranks, chainer-like report; rank 1 (node-a local_rank 1) placed in a memory cgroup (v1) with a 200M limit
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-03; REC=$SRC/inject-records/c03.txt; H=$SRC/hosts/c03.hosts; : > $REC
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29513 --rdzv-id=cnr-0412"
ARGS="$T --style chainer --epochs 4 --steps 240 --step-sleep 0.2 --val-size 300000 --pg-timeout 120"
rec "start node-a"; A=$(node node-a $H $C/logs/node-a $TR --log-dir $C/logs/node-a --tee 3 $ARGS)
rec "start node-b"; B=$(node node-b $H $C/logs/node-b $TR --log-dir $C/logs/node-b --tee 3 $ARGS)
sleep 14; W=$(rankpid cnr-0412 1); CG=/sys/fs/cgroup/memory/b12-c03; mkdir -p $CG; echo 200M > $CG/memory.limit_in_bytes
echo $W > $CG/cgroup.procs; rec "moved rank 1 pid $W into $CG memory.limit_in_bytes=200M (charges not moved)"
for i in $(seq 170); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A) B=$(alive $B); oom_control: $(tr '\n' ' ' < $CG/memory.oom_control) failcnt=$(cat $CG/memory.failcnt)"
dmesg 2>/dev/null | grep -i -E "oom|Killed process" | tail -5 >> $REC
for n in $A $B; do [ $(alive $n) = y ] && { rec "cleanup kill $n"; kill -KILL $(kids $n) $n; }; done
wait; rmdir $CG; rec "end"
