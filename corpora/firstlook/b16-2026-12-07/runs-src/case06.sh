#!/bin/bash
# case 06: 2 nodes (node-a 1 rank, node-b 2 ranks), ulysses-like log, DataLoader with 3 workers per rank
# on a 2-CPU machine, OMP_NUM_THREADS not set; rank 0 runs a 40 s evaluation at step 100 while the
# others wait in a barrier. Nothing injected.
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-06; REC=$SRC/inject-records/c06.txt; T=$TMPB/c06
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
unset OMP_NUM_THREADS
export STYLE=ulysses STEPS=160 STEP_SLEEP=0.1 PG_TIMEOUT=90 NUM_WORKERS=3 EVAL_EVERY=100 EVAL_SECS=40
ARGS="--nnodes=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29516 --rdzv-id=b16c06 --max-restarts=0 --tee=3 --log-dir=$C/logs/torchelastic"
rec "start agents (no fault injected)"
agent node-a $T/hosts $C/logs/node-a.console.log --nproc-per-node=1 $ARGS $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/node-b.console.log --nproc-per-node=2 $ARGS $SRC/trainer.py; B=$!
for i in $(seq 1 130); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill -0 $A 2>/dev/null && { rec "node-a agent still running, SIGTERM"; kill $A; }
kill -0 $B 2>/dev/null && { rec "node-b agent still running, SIGTERM"; kill $B; }
wait $A; rec "node-a agent exit $?"; wait $B; rec "node-b agent exit $?"; rec done
