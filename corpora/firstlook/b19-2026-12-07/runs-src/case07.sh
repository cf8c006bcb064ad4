#!/bin/bash
# case 07: 3 nodes x 1 rank, Pax-like console, CKPT_ATOMIC=1 (every rank writes its loader state through a tempfile in the
# default temp dir, then moves it). node-c's /tmp is a 16 MiB tmpfs (own mount ns); ~t+40s it is filled from outside (dd, nsenter).
source /work/staging/b19/runs-src/lib.sh
setup 07; mkhosts $T/hosts node-a node-b node-c; mkdata $T/data; mkdir -p $T/ckpt /mnt/b19data /mnt/b19ckpt
export STYLE=pax STEPS=500 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 CKPT_ATOMIC=1 DATA_DIR=/mnt/b19data CKPT_DIR=/mnt/b19ckpt RUN_NAME=tokconv-p3
PRE="mount --bind $T/data /mnt/b19data; mount --bind $T/ckpt /mnt/b19ckpt"
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29197 --rdzv-id=pax-lm-3x1-07 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "$PRE" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "$PRE" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
agent node-c $T/hosts $C/logs/node-c.console.log "$PRE; mount -t tmpfs -o size=16m tmpfs /tmp" $ARGS --log-dir=$C/logs/elastic-node-c $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c) (node-c: /tmp = 16 MiB tmpfs)"
sleep 40
nsenter -t $(apid node-c) -m dd if=/dev/zero of=/tmp/.fill bs=1M count=64 2>&1 | tail -1 >> $REC
rec "filled node-c /tmp: $(nsenter -t $(apid node-c) -m df -h /tmp | tail -1)"
waitagents 150 node-a node-b node-c || rec "agents still alive after 150s"
reap node-a node-b node-c; rec "done"
