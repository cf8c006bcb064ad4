#!/bin/bash
# case 06: 2 nodes x 2 ranks, MindSpore-like console, one epoch (MAX_EPOCHS=1). node-b's local data copy of train_06
# (read by global rank 2) holds only its first 300 of 604 records (bin + idx cut consistently).
source /work/staging/b19/runs-src/lib.sh
setup 06; mkhosts $T/hosts node-a node-b; mkdata $T/data-a 604; cp -a $T/data-a $T/data-b
python3 - $T/data-b/train_06 <<'PY'
import sys, numpy as np
p = sys.argv[1]; ix = np.load(p + ".idx.npy")[:301]; np.save(p + ".idx.npy", ix)
b = np.fromfile(p + ".bin", dtype=np.uint16)[: ix[-1]]; b.tofile(p + ".bin")
PY
rec "node-b data copy: train_06 has $(python3 -c "import numpy as np;print(len(np.load('$T/data-b/train_06.idx.npy'))-1)") records (node-a copy 604)"
export STYLE=mindspore STEPS=100000 MAX_EPOCHS=1 LOG_EVERY=25 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 DATA_DIR=/mnt/b19data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-m
mkdir -p /mnt/b19data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29196 --rdzv-id=tc-ms-0606 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "mount --bind $T/data-a /mnt/b19data" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "mount --bind $T/data-b /mnt/b19data" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "done"
