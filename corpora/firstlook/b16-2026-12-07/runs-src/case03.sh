#!/bin/bash
# case 03: 2 nodes (2 + 1 ranks), RL-loop-like trainer; every agent runs under `timeout -s TERM 45`
# (a wall-clock limit as a scheduler would apply). All ranks' lines reach ONE merged console,
# torchrun prefixing each line via TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='${rank}: ' (srun --label look).
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-03; REC=$SRC/inject-records/c03.txt; T=$TMPB/c03
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
export STYLE=rl STEPS=3000 STEP_SLEEP=0.1 PG_TIMEOUT=60 OMP_NUM_THREADS=1
export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='${rank}: '
RID=b16c03
ARGS="--nnodes=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29513 --rdzv-id=$RID --max-restarts=0 --tee=3"
rec "start agents with PRE='timeout -s TERM 45' (limit applied to each agent)"
PRE="timeout -s TERM 45" agent node-b $T/hosts $C/logs/console.log $ARGS --nproc-per-node=1 $SRC/trainer.py; B=$!
PRE="timeout -s TERM 45" agent node-a $T/hosts $C/logs/console.log $ARGS --nproc-per-node=2 $SRC/trainer.py; A=$!
wait $A; rec "node-a agent exit $?"; wait $B; rec "node-b agent exit $?"
rec done
