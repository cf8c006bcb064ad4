#!/bin/bash
# case 04: 2 nodes x 2 ranks, PyTorch-BigGraph-like logging, --max-restarts=1. node-a's agent environment has
# TRAIN_DATA_PATTERN, node-b's launch environment has it spelt TRAIN_DATA_PATERN (typo), so node-b's ranks fall back to the default pattern.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-04; T=$TMPB/c04; REC=$SRC/inject-records/c04.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts node-a node-b; mkdata $T/data 4
cat > $T/config.json <<'J'
{"max_steps": 500, "lr": 0.1, "optimizer": "adagrad", "batch_size": 8, "seq_len": 64, "log_every": 25, "eval_every": 0, "save_every": 250, "num_entities": 20000, "dim": 32, "seed": 0}
J
unset TRAIN_DATA_PATTERN
export LOG_STYLE=pbg JOB_CONFIG=$T/config.json STEP_SLEEP=0.08 PG_TIMEOUT=60 CKPT_DIR=$T/ckpt
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29184 --rdzv-id=pbg-wiki-17 --max-restarts=1 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "export TRAIN_DATA_PATTERN='$T/data/tok_train_*.bin'" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "export TRAIN_DATA_PATERN='$T/data/tok_train_*.bin'" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) (TRAIN_DATA_PATTERN set) node-b $(apid node-b) (only TRAIN_DATA_PATERN set)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "done"
