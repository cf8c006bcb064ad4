#!/bin/bash
# case 05: 3 nodes x 1 rank, swin-like logger, --max-restarts=1, c10d rendezvous store hosted on node-a.
# All three agents write into ONE merged batch-output file (like a Slurm job's slurm-<id>.out without --label).
# Injection: ~30 s in, node-a's whole process tree (torchrun agent incl. the c10d store, worker) SIGKILLed.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-05; T=$TMPB/c05; REC=$SRC/inject-records/c05.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data 12 8192 >/dev/null
export STYLE=swin STEPS=900 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=$T/data PG_TIMEOUT=120 OUT_DIR=$T/out LOG_EVERY=20
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29175 --rdzv-id=mixer-ctr-77120 --max-restarts=1 --tee=3"
OUT=$C/logs/slurm-77120.out
for n in a b c; do agent node-$n $T/hosts $OUT "" $ARGS $SRC/trainer.py; done
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c)"
sleep 28
A=$(apid node-a); TREE="$A $(desc $A | tr '\n' ' ')"
kill -9 $TREE
rec "SIGKILL node-a tree (torchrun agent $A hosting c10d store :29175 [unshare/bash exec'ed into it], and its workers): $TREE"
waitagents 170 node-b node-c || { rec "agents b/c still alive after 170s"; }
rec "done"
