#!/bin/bash
# case08: 2 nodes x 2 ranks, SB3-like table; SIGTERM sent to all 4 worker processes at once (preemption)
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-08; REC=$SRC/inject-records/c08.txt; H=$SRC/hosts/c08.hosts; : > $REC
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-b:29518 --rdzv-id=ppo-cartpole-4"
ARGS="$T --style sb3 --epochs 10 --steps 160 --step-sleep 0.2 --pg-timeout 120"
rec "start node-a"; A=$(node node-a $H $C/logs/node-a $TR --log-dir $C/logs/node-a --tee 3 $ARGS)
rec "start node-b"; B=$(node node-b $H $C/logs/node-b $TR --log-dir $C/logs/node-b --tee 3 $ARGS)
sleep 38; PIDS=$(for r in 0 1 2 3; do rankpid ppo-cartpole-4 $r; done | tr '\n' ' ')
rec "SIGTERM to worker pids $PIDS"; kill -TERM $PIDS
for i in $(seq 120); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A) B=$(alive $B)"
for n in $A $B; do [ $(alive $n) = y ] && { rec "cleanup kill $n"; kill -KILL $(kids $n) $n; }; done
wait; rec "end"
