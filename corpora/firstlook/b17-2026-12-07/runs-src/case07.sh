#!/bin/bash
# case 07: 2 nodes x 2 ranks, BERT/DLLogger-like console, trainer constructs a (disabled) torch.cuda.amp.GradScaler.
# Both agents' output collected into ONE console as pdsh would (`pdsh -w node-a,node-b torchrun ...` -> "node-x: " prefixes).
# Injection (timing only): node-b's agent is started 14 s BEFORE node-a, which hosts the c10d rendezvous store.
# (--rdzv-conf read_timeout=10, so the c10d store client connect attempt times out and is retried)
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-07; T=$TMPB/c07; REC=$SRC/inject-records/c07.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data 16 8192 >/dev/null
export STYLE=dll STEPS=450 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=$T/data PG_TIMEOUT=120 LOG_EVERY=25 AMP_SCALER=1 CKPT_DIR=$T/ckpt SAVE_EVERY=150
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29177 --rdzv-id=bert-pt-ph2-0094 --rdzv-conf=read_timeout=10 --max-restarts=0"
PREFIX="node-b: " agent node-b $T/hosts $C/logs/pdsh.out "" $ARGS $SRC/trainer.py
sleep 1; rec "started agent node-b $(apid node-b)"
sleep 13
PREFIX="node-a: " agent node-a $T/hosts $C/logs/pdsh.out "" $ARGS $SRC/trainer.py
sleep 1; rec "started agent node-a $(apid node-a) (c10d store host)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
rec "done"
