#!/bin/bash
# case 10: 2 nodes x 1 rank, Catalyst-like console, DataLoader with 3 worker processes per rank on a 2-core host,
# DDP(find_unused_parameters=True, broadcast_buffers=False), loss read with float(loss). Nothing is injected.
source /work/staging/b20/runs-src/lib.sh
setup 10; mkhosts $T/hosts node-a node-b; mkdata $T/data 12 128
export STYLE=catalyst STEPS=1000 EPOCHS=12 LOG_EVERY=16 EVAL_EVERY=96 SAVE_EVERY=96 PG_TIMEOUT=120 NUM_WORKERS=3 FIND_UNUSED=1 LEGACY=1 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=cat-tok-w
ARGS="--nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29210 --rdzv-id=catalyst-w-1d3e --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.log "" $ARGS --log-dir=$C/logs/elastic/node-a $SRC/train_b20.py
agent node-b $T/hosts $C/logs/node-b.log "" $ARGS --log-dir=$C/logs/elastic/node-b $SRC/train_b20.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "latest=$(cat $T/ckpt/latest)"; rec "done"
