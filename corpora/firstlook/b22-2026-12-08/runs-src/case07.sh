#!/bin/bash
# case 07: 2 nodes x 1 rank (world 2), OCP/fairchem-like console, 3 DataLoader workers per rank on a 2-core machine,
# OMP_NUM_THREADS not set, energy target shape differs from the prediction shape in the loss (ENERGY_HEAD_KEEPDIM=1 AMP=1).
# node-b's agent is started 25 s before node-a's (node-a hosts the c10d store).  No fault injected.
source /work/staging/b22/runs-src/lib.sh
setup 07; mkhosts $T/hosts node-a node-b; mkdata reg $T/data 8 1024 4
mkdir -p $C/logs/node-a $C/logs/node-b
unset OMP_NUM_THREADS
export STYLE=ocp YDIM=4 ENERGY_HEAD_KEEPDIM=1 AMP=1 STEPS=640 LOG_EVERY=20 EVAL_EVERY=128 SAVE_EVERY=128 BATCH=16 NUM_WORKERS=3 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=128
ARGS="--nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29412 --rdzv-id=s2ef-mlp-0712 --max-restarts=0 --tee=3"
agent node-b $T/hosts $C/logs/node-b/console.log "export CKPT_DIR=$T/checkpoints-b OUT_DIR=$C/logs/node-b/logs" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b22.py
rec "started agent node-b $(apid node-b)"
sleep 25
agent node-a $T/hosts $C/logs/node-a/console.log "export CKPT_DIR=$T/checkpoints OUT_DIR=$C/logs/node-a/logs" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b22.py
rec "started agent node-a $(apid node-a) (25 s after node-b)"
waitagents 150 node-a node-b || rec "agents still alive after 150 s"
reap node-a node-b; rec "done"
