#!/bin/bash
# case02: 3 nodes x 1 rank, fastai-like table; node-b lost (agent + its worker SIGKILLed) from outside
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-02; REC=$SRC/inject-records/c02.txt; H=$SRC/hosts/c02.hosts; : > $REC
TR="torchrun --nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29512 --rdzv-id=ft-2291"
ARGS="$T --style fastai --epochs 6 --steps 240 --step-sleep 0.25 --pg-timeout 120"
for n in a b c; do rec "start node-$n"; eval N_$n=$(node node-$n $H $C/logs/node-$n $TR --log-dir $C/logs/node-$n --tee 3 $ARGS); done
sleep 50; W=$(rankpid ft-2291 1); AG=$(ps -o ppid= -p $W | tr -d ' ')
rec "SIGKILL node-b: agent pid $AG and worker rank 1 pid $W"; kill -KILL $AG $W
for i in $(seq 170); do [ $(alive $N_a) = n ] && [ $(alive $N_c) = n ] && break; sleep 1; done
rec "after wait: node-a agent alive=$(alive $N_a) node-c agent alive=$(alive $N_c)"
for n in $N_a $N_c; do [ $(alive $n) = y ] && { rec "cleanup SIGKILL agent $n and children $(kids $n)"; kill -KILL $(kids $n) $n; }; done
wait; rec "end"
