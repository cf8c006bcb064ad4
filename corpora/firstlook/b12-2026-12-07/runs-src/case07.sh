#!/bin/bash
# case07: 2 nodes x 1 rank, spaCy-like table, DataLoader num_workers=2; node-b /dev/shm replaced by a 4k tmpfs
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-07; REC=$SRC/inject-records/c07.txt; H=$SRC/hosts/c07.hosts; : > $REC
TR="torchrun --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29517 --rdzv-id=cls-pipe-9"
ARGS="$T --style spacy --epochs 3 --steps 200 --step-sleep 0.15 --workers 2 --pg-timeout 120"
rec "start node-a"; A=$(node node-a $H $C/logs/node-a $TR --log-dir $C/logs/node-a --tee 3 $ARGS)
rec "start node-b (/dev/shm = tmpfs size=4k)"; B=$(PRE="mount -t tmpfs -o size=4k tmpfs /dev/shm" node node-b $H $C/logs/node-b $TR --log-dir $C/logs/node-b --tee 3 $ARGS)
for i in $(seq 170); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A) B=$(alive $B)"
for n in $A $B; do [ $(alive $n) = y ] && { rec "cleanup kill $n"; kill -KILL $(kids $n) $n; }; done
wait; rec "end"
