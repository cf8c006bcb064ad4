#!/bin/bash
# case 08: 3 nodes x 1 rank, rl-loop-like log. node-c's environment carries TORCH_DISTRIBUTED_DEBUG=DETAILS
# (node-a/node-b have TORCH_DISTRIBUTED_DEBUG=DETAIL). Consoles merged into one file, kubectl-logs-like
# per-node order not preserved (all agents append to the same file).
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-08; REC=$SRC/inject-records/c08.txt; T=$TMPB/c08
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
export STYLE=rl STEPS=200 STEP_SLEEP=0.1 PG_TIMEOUT=60 OMP_NUM_THREADS=1
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29518 --rdzv-id=b16c08 --rdzv-conf=join_timeout=60 --max-restarts=0 --tee=3"
rec "start agents"
export TORCH_DISTRIBUTED_DEBUG=DETAIL
agent node-a $T/hosts $C/logs/console.log $ARGS $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/console.log $ARGS $SRC/trainer.py; B=$!
export TORCH_DISTRIBUTED_DEBUG=DETAILS; rec "node-c env TORCH_DISTRIBUTED_DEBUG=DETAILS"
agent node-c $T/hosts $C/logs/console.log $ARGS $SRC/trainer.py; Cc=$!
for i in $(seq 1 100); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || kill -0 $Cc 2>/dev/null || break; done
for p in $A $B $Cc; do kill -0 $p 2>/dev/null && { rec "agent pid $p still running, SIGTERM"; kill $p; }; done
wait $A; rec "node-a exit $?"; wait $B; rec "node-b exit $?"; wait $Cc; rec "node-c exit $?"; rec done
