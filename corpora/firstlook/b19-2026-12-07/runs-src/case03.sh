#!/bin/bash
# case 03: 2 nodes x 2 ranks, Pax-like console, 2 DataLoader workers per rank. ~t+35s one DataLoader worker process of
# node-b LOCAL_RANK=1 (global rank 3) gets SIGKILL from outside.
source /work/staging/b19/runs-src/lib.sh
setup 03; mkhosts $T/hosts node-a node-b; mkdata $T/data
export STYLE=pax STEPS=500 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 NUM_WORKERS=2 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-p
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29193 --rdzv-id=lm-pax-0193 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 35
W=$(wpid node-b 1); L=$(pgrep -P $W | head -1)
rec "node-b LOCAL_RANK=1 (global rank 3) pid $W; its children: $(pgrep -P $W | tr '\n' ' ')"
kill -KILL $L; rec "SIGKILL -> DataLoader worker pid $L (child of $W)"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
reap node-a node-b; rec "done"
