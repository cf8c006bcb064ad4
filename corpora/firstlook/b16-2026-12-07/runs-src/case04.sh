#!/bin/bash
# case 04: 2 agents, booster-like log; node-b is launched with a different --nnodes (3) than node-a (2).
# per-node consoles.  Stopped from outside after 100 s if still running.
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-04; REC=$SRC/inject-records/c04.txt; T=$TMPB/c04
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
export STYLE=booster STEPS=300 STEP_SLEEP=0.1 PG_TIMEOUT=60 OMP_NUM_THREADS=1
RID=b16c04
ARGS="--nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29514 --rdzv-id=$RID --rdzv-conf=join_timeout=60 --max-restarts=0 --tee=3"
rec "start node-a with --nnodes=2"
agent node-a $T/hosts $C/logs/node-a.log --nnodes=2 $ARGS $SRC/trainer.py; A=$!
sleep 3
rec "start node-b with --nnodes=3 (differs from node-a)"
agent node-b $T/hosts $C/logs/node-b.log --nnodes=3 $ARGS $SRC/trainer.py; B=$!
for i in $(seq 1 100); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill -0 $A 2>/dev/null && { rec "node-a agent still running, SIGTERM"; kill $A; }
kill -0 $B 2>/dev/null && { rec "node-b agent still running, SIGTERM"; kill $B; }
sleep 5; wait; rec done
