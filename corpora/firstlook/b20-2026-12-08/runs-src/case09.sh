#!/bin/bash
# case 09: elastic 1..2 nodes x 2 ranks, DINO-like console. node-a starts alone (--nnodes=1:2, max-restarts 3);
# node-b's agent is started 55s later and joins; nothing else is done to the job.
source /work/staging/b20/runs-src/lib.sh
setup 09; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 256
export STYLE=dino STEPS=1100 EPOCHS=20 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=90 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=dino-elastic
ARGS="--nnodes=1:2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29209 --rdzv-id=dino-el-6604 --max-restarts=3 --tee=3"
agent node-a $T/hosts $C/logs/node-a.log "" $ARGS --log-dir=$C/logs/node-a-elastic $SRC/train_b20.py
rec "started agent node-a $(apid node-a)"
sleep 55
agent node-b $T/hosts $C/logs/node-b.log "" $ARGS --log-dir=$C/logs/node-b-elastic $SRC/train_b20.py
rec "started agent node-b $(apid node-b) (55s after node-a)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "latest=$(cat $T/ckpt/latest)"; rec "done"
