#!/bin/bash
# case 04: 2 nodes x 2 ranks, pytorch-examples ProgressMeter-like console, ONE merged console as `docker compose logs` shows it
# (prefix 'trainer-node-a-1  | '). node-b's local data copy has train_11 rebuilt with 34-token records (the other shards: 33).
source /work/staging/b19/runs-src/lib.sh
setup 04; mkhosts $T/hosts node-a node-b; mkdata $T/data-a; cp -a $T/data-a $T/data-b
python3 $SRC/mkdata.py $T/data-b train 12 302 34 0 && python3 - $T/data-b <<'PY'
# keep only the rebuilt train_11 in node-b's copy: restore the others from node-a's copy
import sys, shutil, glob, os
b = sys.argv[1]
for f in glob.glob(os.path.join(b.replace("data-b", "data-a"), "train_*")):
    if "train_11" not in f: shutil.copy(f, os.path.join(b, os.path.basename(f)))
PY
rec "node-b data copy: train_11 rebuilt with 34-token records ($(stat -c %s $T/data-b/train_11.bin) bytes vs $(stat -c %s $T/data-a/train_11.bin) on node-a)"
export STYLE=progmeter STEPS=500 LOG_EVERY=10 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 NUM_WORKERS=2 DATA_DIR=/mnt/b19data CKPT_DIR=$T/ckpt RUN_NAME=tokconv
mkdir -p /mnt/b19data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29194 --rdzv-id=tc-compose-04 --max-restarts=0 --tee=3"
OUTMODE=compose LABEL=trainer-node-a-1 agent node-a $T/hosts $C/logs/compose.log "mount --bind $T/data-a /mnt/b19data" $ARGS $SRC/trainer.py
OUTMODE=compose LABEL=trainer-node-b-1 agent node-b $T/hosts $C/logs/compose.log "mount --bind $T/data-b /mnt/b19data" $ARGS $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; sleep 1; rec "done"
