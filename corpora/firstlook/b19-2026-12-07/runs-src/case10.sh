#!/bin/bash
# case 10: 2 nodes x 2 ranks, wandb-offline-like console, healthy. The job environment has PYTHONWARNINGS=always
# and TORCH_CPP_LOG_LEVEL=INFO (debug setting left on). Two earlier attempts (no TORCH_CPP_LOG_LEVEL; and with
# TORCH_DISTRIBUTED_DEBUG=DETAIL added, which ended in SIGSEGV of every rank) were discarded.
source /work/staging/b19/runs-src/lib.sh
setup 10; mkhosts $T/hosts node-a node-b; mkdata $T/data
export STYLE=wandb STEPS=200 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-w4 PYTHONWARNINGS=always TORCH_CPP_LOG_LEVEL=INFO
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29200 --rdzv-id=tokconv-h10 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b); env PYTHONWARNINGS=always TORCH_CPP_LOG_LEVEL=INFO"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "done"
