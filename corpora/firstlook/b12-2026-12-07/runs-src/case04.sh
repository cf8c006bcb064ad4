#!/bin/bash
# case04: 2 nodes x 2 ranks, nanoGPT-like; each rank writes its own checkpoint into /ckpt; on node-b /ckpt is a 4 MiB tmpfs
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-04; REC=$SRC/inject-records/c04.txt; H=$SRC/hosts/c04.hosts; : > $REC
mkdir -p /tmp/b12-c04-ckpt-a /tmp/b12-c04-ckpt-b
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29514 --rdzv-id=gpt-mini-3"
ARGS="$T --style nanogpt --epochs 3 --steps 320 --step-sleep 0.2 --ckpt-dir /ckpt --save-every 20 --pg-timeout 120"
rec "start node-a (/ckpt bind of /tmp/b12-c04-ckpt-a)"; A=$(PRE="mkdir -p /ckpt; mount --bind /tmp/b12-c04-ckpt-a /ckpt" node node-a $H $C/logs/node-a $TR --log-dir $C/logs/node-a --tee 3 $ARGS)
rec "start node-b (/ckpt = tmpfs size=4m)"; B=$(PRE="mkdir -p /ckpt; mount -t tmpfs -o size=4m tmpfs /ckpt" node node-b $H $C/logs/node-b $TR --log-dir $C/logs/node-b --tee 3 $ARGS)
for i in $(seq 170); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A) B=$(alive $B); node-a ckpt files: $(ls /tmp/b12-c04-ckpt-a | wc -l)"
for n in $A $B; do [ $(alive $n) = y ] && { rec "cleanup kill $n"; kill -KILL $(kids $n) $n; }; done
wait; rm -rf /tmp/b12-c04-ckpt-a /tmp/b12-c04-ckpt-b; rec "end"
