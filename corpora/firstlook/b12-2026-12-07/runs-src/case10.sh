#!/bin/bash
# case10: 2 nodes x 1 rank, CleanRL-like prints; GradScaler on CPU, scheduler stepped first, DataLoader num_workers=3 on 2 CPUs; no injection
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-10; REC=$SRC/inject-records/c10.txt; H=$SRC/hosts/c10.hosts; : > $REC
TR="torchrun --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-c:29520 --rdzv-id=dqn-atari-1"
ARGS="$T --style cleanrl --epochs 3 --steps 200 --step-sleep 0.15 --workers 3 --amp-scaler --sched-early --pg-timeout 120"
rec "start node-c"; A=$(node node-c $H $C/logs/node-c $TR --log-dir $C/logs/node-c --tee 3 $ARGS)
sleep 8; rec "start node-a (8 s later)"; B=$(node node-a $H $C/logs/node-a $TR --log-dir $C/logs/node-a --tee 3 $ARGS)
for i in $(seq 170); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A) B=$(alive $B) (no fault injected)"
for n in $A $B; do [ $(alive $n) = y ] && { rec "cleanup kill $n"; kill -KILL $(kids $n) $n; }; done
wait; rec "end"
