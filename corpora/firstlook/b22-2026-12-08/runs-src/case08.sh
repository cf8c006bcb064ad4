#!/bin/bash
# case 08: 2 nodes x 2 ranks (world 4), RWKV-LM-like console (rank 0) + train_log.txt; each node has its own /dev/shm
# (a 64 MiB tmpfs mounted inside the node's namespace); LOCAL_RANK 0 copies the token file there and both local ranks
# np.memmap it and sample random windows from it.
# Injection: after node-a's console shows "Epoch 2:", the /dev/shm token copy inside node-a's namespace is truncated to
# 0 bytes from outside (nsenter -m ... truncate -s 0).
source /work/staging/b22/runs-src/lib.sh
setup 08; mkhosts $T/hosts node-a node-b; mkdata tok $T/data 10 100000 1 40000
mkdir -p $C/logs/node-a $C/logs/node-b
export STYLE=rwkv STEPS=1200 STEPS_PER_EPOCH=100 LOG_EVERY=10 BATCH=8 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=256 LR=6e-4
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29413 --rdzv-id=rwkv5-L1-0813 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "mount -t tmpfs -o size=64m shm /dev/shm; export CKPT_DIR=$T/ck-a OUT_DIR=$C/logs/node-a/out/L1-D256" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b22.py
sleep 1
agent node-b $T/hosts $C/logs/node-b/console.log "mount -t tmpfs -o size=64m shm /dev/shm; export CKPT_DIR=$T/ck-b OUT_DIR=$C/logs/node-b/out/L1-D256" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b22.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/node-a/console.log "Epoch 2:" 170 || rec "Epoch 2 not seen"
A=$(apid node-a); F=/dev/shm/rwkv-rwkv5-L1-0813-tokens.bin
rec "node-a namespace /dev/shm before: $(nsenter -t $A -m -- ls -l $F)"
nsenter -t $A -m -- truncate -s 0 $F; rec "nsenter -t $A -m -- truncate -s 0 $F -> $(nsenter -t $A -m -- ls -l $F)"
waitagents 150 node-a node-b || rec "agents still alive after 150 s"
reap node-a node-b; rec "done"
