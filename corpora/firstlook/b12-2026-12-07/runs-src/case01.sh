#!/bin/bash
# case01: 2 nodes x 2 ranks, metric-logger style; one rank frozen (SIGSTOP) from outside
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-01; REC=$SRC/inject-records/c01.txt; H=$SRC/hosts/c01.hosts; : > $REC
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29511 --rdzv-id=job-7f3a"
ARGS="$T --style metric --epochs 4 --steps 400 --step-sleep 0.25 --pg-timeout 60"
rec "start node-a"; A=$(node node-a $H $C/logs/node-a $TR --log-dir $C/logs/node-a --tee 3 $ARGS)
rec "start node-b"; B=$(node node-b $H $C/logs/node-b $TR --log-dir $C/logs/node-b --tee 3 $ARGS)
sleep 35; P=$(rankpid job-7f3a 3); rec "SIGSTOP rank 3 (node-b local_rank 1) pid $P"; kill -STOP $P
# hang detector: give up 150s after freeze
for i in $(seq 150); do kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; sleep 1; done
rec "after wait: agent A alive=$(kill -0 $A 2>/dev/null && echo y || echo n) B alive=$(kill -0 $B 2>/dev/null && echo y || echo n)"
kill -0 $P 2>/dev/null && { rec "SIGCONT+SIGKILL frozen pid $P (cleanup)"; kill -KILL $P; kill -CONT $P; }
wait; rec "end"
