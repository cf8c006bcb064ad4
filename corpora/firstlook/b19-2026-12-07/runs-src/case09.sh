#!/bin/bash
# case 09: 3 nodes x 1 rank, elastic --nnodes=2:3 --max-restarts=3, MindSpore-like console, auto-resume from newest checkpoint.
# ~t+35s node-b's agent and its worker processes get SIGKILL (node lost); node-b is not started again.
source /work/staging/b19/runs-src/lib.sh
setup 09; mkhosts $T/hosts node-a node-b node-c; mkdata $T/data
export STYLE=mindspore STEPS=400 LOG_EVERY=25 EVAL_EVERY=100 SAVE_EVERY=50 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-el
ARGS="--nnodes=2:3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29199 --rdzv-id=tc-elastic-09 --max-restarts=3 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
agent node-c $T/hosts $C/logs/node-c.console.log "" $ARGS --log-dir=$C/logs/elastic-node-c $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c)"
sleep 35
P="$(apid node-b) $(desc $(apid node-b))"; kill -KILL $P; rec "SIGKILL -> node-b agent and descendants: $P"
waitagents 170 node-a node-c || rec "agents still alive after 170s"
reap node-a node-c; rec "done"
