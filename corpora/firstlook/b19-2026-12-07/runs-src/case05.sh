#!/bin/bash
# case 05: 3 nodes x 1 rank, wandb-offline-like console. node-c's agent environment has EVAL_EVERY=150 (others 100).
source /work/staging/b19/runs-src/lib.sh
setup 05; mkhosts $T/hosts node-a node-b node-c; mkdata $T/data
export STYLE=wandb STEPS=450 LOG_EVERY=25 SAVE_EVERY=200 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-w3
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29195 --rdzv-id=tokconv-3n-55 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "export EVAL_EVERY=100" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "export EVAL_EVERY=100" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
agent node-c $T/hosts $C/logs/node-c.console.log "export EVAL_EVERY=150" $ARGS --log-dir=$C/logs/elastic-node-c $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c); node-c env EVAL_EVERY=150, node-a/b EVAL_EVERY=100"
waitagents 170 node-a node-b node-c || rec "agents still alive after 170s"
reap node-a node-b node-c; rec "done"
