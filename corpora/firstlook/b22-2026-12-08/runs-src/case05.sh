#!/bin/bash
# case 05: 2 nodes x 2 ranks (world 4), InsightFace arcface_torch-like console (+ training.log of rank 0).
# Per-node env files: node-a exports DIST_BACKEND=gloo; node-b's env file carries the name misspelt (DIST_BAKEND=gloo), so
# on node-b DIST_BACKEND is unset and the trainer's default backend is used.  gloo timeout 60 s.
source /work/staging/b22/runs-src/lib.sh
setup 05; mkhosts $T/hosts node-a node-b; mkdata cls $T/data 16 512
mkdir -p $C/logs/node-a $C/logs/node-b
unset DIST_BACKEND
printf 'export DIST_BACKEND=gloo\nexport OMP_NUM_THREADS=1\n' > $T/env-node-a.sh
printf 'export DIST_BAKEND=gloo\nexport OMP_NUM_THREADS=1\n' > $T/env-node-b.sh
export STYLE=arcface STEPS=900 LOG_EVERY=20 EVAL_EVERY=200 SAVE_EVERY=100000 BATCH=32 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=128
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29408 --rdzv-id=arcface-r18-0508 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "source $T/env-node-a.sh; export OUT_DIR=$C/logs/node-a/work_dirs/ms1mv3_r18 LOG_FILE=$C/logs/node-a/work_dirs/ms1mv3_r18/training.log" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b22.py
sleep 1
agent node-b $T/hosts $C/logs/node-b/console.log "source $T/env-node-b.sh; export OUT_DIR=$C/logs/node-b/work_dirs/ms1mv3_r18 LOG_FILE=$C/logs/node-b/work_dirs/ms1mv3_r18/training.log" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b22.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b); node-b env file: $(tr '\n' ';' < $T/env-node-b.sh)"
waitagents 170 node-a node-b || rec "agents still alive after 170 s"
reap node-a node-b; rec "done"
