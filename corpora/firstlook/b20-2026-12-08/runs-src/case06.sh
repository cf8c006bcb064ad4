#!/bin/bash
# case 06: 2 nodes x 2 ranks, Catalyst-like console. Each node sees the dataset as a bind mount ("volume") of $T/data on
# $T/vol made inside its own mount namespace. ~30s in, the volume is lazily unmounted (umount -l) inside node-b's mount
# namespace only, from outside via nsenter; the mount point directory left behind is empty.
source /work/staging/b20/runs-src/lib.sh
SUBDIRS="/work/staging/b20/run-06/logs/node-a /work/staging/b20/run-06/logs/node-b"; setup 06; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 64; mkdir -p $T/vol
export STYLE=catalyst STEPS=900 EPOCHS=30 LOG_EVERY=8 EVAL_EVERY=64 SAVE_EVERY=128 PG_TIMEOUT=60 DATA_DIR=$T/vol CKPT_DIR=$T/ckpt RUN_NAME=cat-tok
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29206 --rdzv-id=catalyst-88d1 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "mount --bind $T/data $T/vol" $ARGS --log-dir=$C/logs/node-a/torchelastic $SRC/train_b20.py
agent node-b $T/hosts $C/logs/node-b/console.log "mount --bind $T/data $T/vol" $ARGS --log-dir=$C/logs/node-b/torchelastic $SRC/train_b20.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b); each mounts $T/data on $T/vol in its namespace"
sleep 30
A=$(apid node-b); nsenter --mount --target $A umount -l $T/vol >> $REC 2>&1
rec "node-b (agent $A): umount -l $T/vol inside its mount namespace; now lists: [$(nsenter --mount --target $A ls $T/vol | tr '\n' ' ')]"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
reap node-a node-b; rec "done"
