#!/bin/bash
# case 09: 2 nodes x 2 ranks, t5x-like log. node-b's torchrun agent process (not its workers) is frozen
# with SIGSTOP at ~t+15s and resumed with SIGCONT 45 s later.
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-09; REC=$SRC/inject-records/c09.txt; T=$TMPB/c09
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
export STYLE=t5x STEPS=300 STEP_SLEEP=0.1 PG_TIMEOUT=60 OMP_NUM_THREADS=1
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29519 --rdzv-id=b16c09 --max-restarts=0 --tee=3 --log-dir=$C/logs/torchelastic"
rec "start agents"
agent node-a $T/hosts $C/logs/node-a.console.log $ARGS $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/node-b.console.log $ARGS $SRC/trainer.py; B=$!
sleep 15
AP=$(pgrep -f "trun.py.*b16c09" | while read p; do tr '\0' '\n' < /proc/$p/environ | grep -q "^HOSTNAME_UNUSED" ; echo $p; done | while read p; do [ "$(nsenter -t $p -u hostname)" = node-b ] && echo $p; done | head -1)
[ -z "$AP" ] && { rec "no agent pid"; kill $A $B; wait; exit 1; }
kill -STOP $AP; rec "SIGSTOP node-b agent pid $AP"
sleep 45; kill -CONT $AP; rec "SIGCONT node-b agent pid $AP"
for i in $(seq 1 60); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill -0 $A 2>/dev/null && { rec "node-a agent still running, SIGTERM"; kill $A; }
kill -0 $B 2>/dev/null && { rec "node-b agent still running, SIGTERM"; kill $B; }
wait $A; rec "node-a agent exit $?"; wait $B; rec "node-b agent exit $?"; rec done
