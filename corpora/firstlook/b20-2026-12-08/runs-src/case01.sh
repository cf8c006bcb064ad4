#!/bin/bash
# case 01: 2 nodes x 2 ranks (world 4), Levanter-like python-logging console.
# When node-b's LOCAL_RANK=0 (global rank 2) logs the start of its step-200 checkpoint save, it is SIGSTOPped from outside
# and never continued; gloo timeout 60s; the agents handle the rest (no max-restarts).
source /work/staging/b20/runs-src/lib.sh
setup 01; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 256
export STYLE=levanter STEPS=600 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=lev-tok-4w
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29201 --rdzv-id=lev-tok-0147 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.log "" $ARGS --log-dir=$C/logs/torchelastic-node-a $SRC/train_b20.py
agent node-b $T/hosts $C/logs/node-b.log "" $ARGS --log-dir=$C/logs/torchelastic-node-b $SRC/train_b20.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/node-b.log "Saving checkpoint to $T/ckpt/step_000200/rank_02.pt" 120 || rec "save line not seen"
W=$(wpid node-b 0); kill -STOP $W
rec "node-b LOCAL_RANK=0 (global rank 2) pid $W SIGSTOP right after its 'Saving checkpoint ... step_000200/rank_02.pt' line appeared (state: $(ps -o stat= -p $W))"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
rec "pid $W state at end: $(ps -o stat= -p $W 2>/dev/null || echo gone)"
reap node-a node-b; rec "done"
