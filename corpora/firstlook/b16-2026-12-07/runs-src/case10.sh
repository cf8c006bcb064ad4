#!/bin/bash
# case 10: 2 nodes x 2 ranks, csv-row trainer, --max-restarts=1; both agents append to ONE merged console.
# At ~t+20s the rank-1 worker process receives SIGSEGV from outside (kill -SEGV).
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-10; REC=$SRC/inject-records/c10.txt; T=$TMPB/c10
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
export STYLE=csv STEPS=250 STEP_SLEEP=0.1 PG_TIMEOUT=60 OMP_NUM_THREADS=1
RID=b16c10
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29520 --rdzv-id=$RID --max-restarts=1 --tee=3"
rec "start agents"
agent node-a $T/hosts $C/logs/console.log $ARGS $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/console.log $ARGS $SRC/trainer.py; B=$!
sleep 20
P=$(rank_pid $RID 1); [ -z "$P" ] && { rec "no pid"; kill $A $B; wait; exit 1; }
kill -SEGV $P; rec "kill -SEGV rank 1 pid $P"
for i in $(seq 1 100); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill -0 $A 2>/dev/null && { rec "node-a agent still running, SIGTERM"; kill $A; }
kill -0 $B 2>/dev/null && { rec "node-b agent still running, SIGTERM"; kill $B; }
wait $A; rec "node-a agent exit $?"; wait $B; rec "node-b agent exit $?"; rec done
