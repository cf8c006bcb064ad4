#!/bin/bash
# case 08: 3 nodes x 1 rank, DLRM-like console with periodic evaluation on rank 0 (validation shards,
# low positive rate). No fault injected.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-08; T=$TMPB/c08; REC=$SRC/inject-records/c08.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/train 24 8192 0.03 >/dev/null; python3 $SRC/mkshards.py $T/val 2 8192 0.03 >/dev/null
export STYLE=dlrm STEPS=450 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=$T/train VAL_DIR=$T/val EVAL_EVERY=75 PG_TIMEOUT=120 LOG_EVERY=25
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29178 --rdzv-id=dlrm-ctr-0912 --max-restarts=0 --tee=3"
for n in a b c; do agent node-$n $T/hosts $C/logs/node-$n.console.log "" $ARGS --log-dir=$C/logs/torchelastic-node-$n $SRC/trainer.py; done
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c); nothing injected"
waitagents 170 node-a node-b node-c || rec "agents still alive after 170s"
rec "done"
