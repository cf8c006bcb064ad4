#!/bin/bash
# case 02: 2 nodes x 2 ranks (world 4), torchreid-like console (rank 0), 1 DataLoader worker per rank, the loader (and its
# worker) is re-created every epoch (32 iterations). Per-node consoles (--tee 3) + --log-dir trees.
# Injection: after node-a's console shows epoch 6, the open-files limit (RLIMIT_NOFILE, soft and hard) of node-b's
# LOCAL_RANK=1 process (global rank 3) is lowered from outside with prlimit to (its current number of open fds + 1).
source /work/staging/b22/runs-src/lib.sh
setup 02; mkhosts $T/hosts node-a node-b; mkdata cls $T/data 16 512
mkdir -p $C/logs/node-a $C/logs/node-b
export STYLE=torchreid STEPS=700 LOG_EVERY=20 EVAL_EVERY=160 SAVE_EVERY=100000 BATCH=16 NUM_WORKERS=1 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=128
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29402 --rdzv-id=reid-osnet-0402 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "export OUT_DIR=$T/out-a CKPT_DIR=$T/log/osnet/model" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b22.py
sleep 1
agent node-b $T/hosts $C/logs/node-b/console.log "export OUT_DIR=$T/out-b CKPT_DIR=$T/log-b/osnet/model" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b22.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/node-a/console.log "epoch: \[6/" 170 || rec "epoch 6 not seen"
W=$(wpid node-b 1); N=$(ls /proc/$W/fd | wc -l); L=$((N+1))
rec "node-b LOCAL_RANK=1 pid $W has $N open fds; limits before: $(prlimit --pid $W --nofile -o SOFT,HARD --noheadings)"
prlimit --pid $W --nofile=$L:$L; rec "prlimit --pid $W --nofile=$L:$L -> $(prlimit --pid $W --nofile -o SOFT,HARD --noheadings)"
waitagents 150 node-a node-b || rec "agents still alive after 150 s"
reap node-a node-b; rec "done"
