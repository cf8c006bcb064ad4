#!/bin/bash
# case 04: 2 nodes x 2 ranks, syslog-style trainer, per-rank checkpoints to node-local /mnt/b11ckpt;
# on node-a it is a host dir, on node-b a 40M tmpfs (fills up)
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-04; REC=$SRC/inject-records/c04.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c04-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
rm -rf /tmp/b11-c04-ckpt-a/*
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29404 --rdzv-id=ckpt-0912 --max-restarts=0 --tee=3"
T="$SRC/trainer.py --style syslog --steps 160 --ckpt-dir /mnt/b11ckpt --ckpt-every 40 --pg-timeout 120"
node node-a $H "mount --bind /tmp/b11-c04-ckpt-a /mnt/b11ckpt" $ARGS --log-dir=$C/logs/node-a $T > $C/logs/node-a.log 2>&1 &
sleep 1
node node-b $H "mount -t tmpfs -o size=40M tmpfs /mnt/b11ckpt" $ARGS --log-dir=$C/logs/node-b $T > $C/logs/node-b.log 2>&1 &
rec "started 2 agents; node-b /mnt/b11ckpt is tmpfs size=40M, node-a host dir"
wait; rec "all done"
