#!/bin/bash
# case 01: 2 nodes x 2 ranks (world 4), wandb-offline-like console. ~t+30s node-a LOCAL_RANK=1 (global rank 1) is moved from
# outside into a cgroup-v1 memory cgroup limited to 100 MiB (new charges only); the trainer keeps per-epoch logits -> kernel OOM kill.
source /work/staging/b19/runs-src/lib.sh
setup 01; mkhosts $T/hosts node-a node-b; mkdata $T/data
export STYLE=wandb STEPS=500 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-w4
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29191 --rdzv-id=tokconv-7c1e --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 30
W=$(wpid node-a 1); CG=/sys/fs/cgroup/memory/b19c01; mkdir -p $CG
echo 0 > $CG/memory.move_charge_at_immigrate; echo $((100*1024*1024)) > $CG/memory.limit_in_bytes
echo $W > $CG/cgroup.procs
rec "node-a LOCAL_RANK=1 (global rank 1) pid $W (rss $(ps -o rss= -p $W) KiB) moved into $CG, memory.limit_in_bytes=100MiB (charges of pages allocated after the move)"
for i in $(seq 1 120); do kill -0 $W 2>/dev/null || break; sleep 0.5; done
rec "pid $W gone=$(kill -0 $W 2>/dev/null && echo no || echo yes); failcnt $(cat $CG/memory.failcnt) max_usage $(cat $CG/memory.max_usage_in_bytes) oom_control: $(tr '\n' ' ' < $CG/memory.oom_control)"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
reap node-a node-b; rmdir $CG 2>/dev/null; rec "done"
