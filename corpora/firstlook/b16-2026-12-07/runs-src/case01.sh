#!/bin/bash
# case 01: 2 nodes x 2 ranks, ulysses-like per-rank log; one rank on node-b becomes a straggler
# (SIGSTOP/SIGCONT pulses of growing length from outside), finally stopped for good -> others time out.
# all agents' consoles appended to ONE merged console file (as a job-level log collector would)
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-01; REC=$SRC/inject-records/c01.txt; T=$TMPB/c01
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
export STYLE=ulysses STEPS=400 STEP_SLEEP=0.15 PG_TIMEOUT=30 OMP_NUM_THREADS=1
RID=b16c01
COMMON_ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29511 --rdzv-id=$RID --max-restarts=0 --tee=3"
rec "start agents node-a node-b"
agent node-a $T/hosts $C/logs/console.log $COMMON_ARGS $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/console.log $COMMON_ARGS $SRC/trainer.py; B=$!
sleep 20
P=$(rank_pid $RID 3); [ -z "$P" ] && { rec "no pid"; kill $A $B; wait; exit 1; }; rec "target rank 3 (node-b local_rank 1) pid $P"
for d in 1 1 2 3 5; do kill -STOP $P; rec "SIGSTOP pid $P for ${d}s"; sleep $d; kill -CONT $P; rec "SIGCONT pid $P"; sleep 2; done
kill -STOP $P; rec "SIGSTOP pid $P (not resumed)"
for i in $(seq 1 70); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null && { rec "still running, stopping (hang detector)"; }
kill -CONT $P 2>/dev/null; kill -KILL $P 2>/dev/null && rec "SIGKILL stopped pid $P after agents"
for i in $(seq 1 20); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill $A $B 2>/dev/null; wait
rec "done"
