#!/bin/bash
# case09: 2 nodes x 2 ranks, AllenNLP-like logging; node-b launched with rendezvous endpoint port 29591 instead of 29519
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-09; REC=$SRC/inject-records/c09.txt; H=$SRC/hosts/c09.hosts; : > $REC
ARGS="$T --style allen --epochs 3 --steps 160 --step-sleep 0.2 --pg-timeout 120"
rec "start node-a (endpoint node-a:29519)"; A=$(node node-a $H $C/logs/node-a torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29519 --rdzv-id=srl-bert-2 --rdzv-conf join_timeout=90 --log-dir $C/logs/node-a --tee 3 $ARGS)
rec "start node-b (endpoint node-a:29591)"; B=$(node node-b $H $C/logs/node-b torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29591 --rdzv-id=srl-bert-2 --rdzv-conf join_timeout=90 --log-dir $C/logs/node-b --tee 3 $ARGS)
for i in $(seq 170); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A) B=$(alive $B)"
for n in $A $B; do [ $(alive $n) = y ] && { rec "cleanup kill $n"; kill -KILL $(kids $n) $n; }; done
wait; rec "end"
