#!/bin/bash
# run-03: absl/t5x-like trainer, 2 nodes x 2 ranks; node-a placed in a memory cgroup (v1) whose limit is lowered from outside mid-run
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-03; REC=$SRC/inject-records/c03.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c03; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
CG=/sys/fs/cgroup/memory/b10-c03-node-a; rmdir $CG 2>/dev/null; mkdir $CG
export STYLE=absl STEPS=400 STEP_SLEEP=0.25 TRAIN_DIST_TIMEOUT=60 EPOCH_LEN=40 EVAL_BATCH=60000
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29513 --rdzv-id=job-c03 --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/node-a/console.log "echo \$\$ > $CG/cgroup.procs" $TR --log-dir $C/logs/node-a/torchelastic $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/node-b/console.log "" $TR --log-dir $C/logs/node-b/torchelastic $SRC/trainer.py)
rec "started agents node-a=$A (in cgroup $CG) node-b=$B"
sleep 30
U=$(cat $CG/memory.usage_in_bytes); M=$(cat $CG/memory.max_usage_in_bytes); L=$((U + 200*1024*1024))
rec "node-a cgroup usage=$U max_usage=$M ; setting memory.limit_in_bytes=$L"
echo $L > $CG/memory.limit_in_bytes; rec "limit now $(cat $CG/memory.limit_in_bytes)"
for i in $(seq 1 30); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
wait; rec "done; memory.failcnt=$(cat $CG/memory.failcnt) oom_control: $(tr '\n' ' ' < $CG/memory.oom_control)"
dmesg 2>/dev/null | tail -40 > $SRC/inject-records/c03-dmesg-tail.txt
rmdir $CG 2>/dev/null
