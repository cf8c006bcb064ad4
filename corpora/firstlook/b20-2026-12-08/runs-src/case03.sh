#!/bin/bash
# case 03: 2 nodes x 2 ranks, DINO-like console. ~25s in, node-a's whole process tree (agent + both ranks) is moved into a
# cgroup-v1 memory cgroup (a node/container memory limit) of 400 MiB for charges made after the move; the trainer keeps its
# teacher outputs for epoch centering, so memory grows -> kernel OOM killer acts inside that cgroup.
source /work/staging/b20/runs-src/lib.sh
setup 03; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 256
export STYLE=dino STEPS=600 EPOCHS=4 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=150 PG_TIMEOUT=60 KEEP_TEACHER=1 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=dino-tok
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29203 --rdzv-id=dino-tok-0312 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.out "" $ARGS --log-dir=$C/logs/node-a $SRC/train_b20.py
agent node-b $T/hosts $C/logs/node-b.out "" $ARGS --log-dir=$C/logs/node-b $SRC/train_b20.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 25
A=$(apid node-a); CG=/sys/fs/cgroup/memory/b20c03; mkdir -p $CG
echo 0 > $CG/memory.move_charge_at_immigrate; echo $((400*1024*1024)) > $CG/memory.limit_in_bytes
for p in $A $(desc $A); do echo $p > $CG/cgroup.procs 2>/dev/null; done
rec "node-a tree moved into $CG (limit 400MiB, new charges only): $(cat $CG/cgroup.procs | tr '\n' ' '); ranks node-a: r0 $(wpid node-a 0) r1 $(wpid node-a 1)"
for i in $(seq 1 240); do [ "$(grep -c . $CG/cgroup.procs)" -lt "$(( $(desc $A | wc -l) + 1 ))" ] && break; grep -q "oom_kill [1-9]" $CG/memory.oom_control && break; sleep 0.5; done
rec "oom_control: $(tr '\n' ' ' < $CG/memory.oom_control) failcnt $(cat $CG/memory.failcnt) max_usage $(cat $CG/memory.max_usage_in_bytes)"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
rec "final oom_control: $(tr '\n' ' ' < $CG/memory.oom_control)"
reap node-a node-b; rmdir $CG 2>/dev/null || rec "cgroup rmdir failed"; rec "done"
