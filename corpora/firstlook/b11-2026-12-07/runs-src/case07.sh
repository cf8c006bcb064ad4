#!/bin/bash
# case 07: 2 nodes x 2 ranks, pytorch-template-style trainer, 2 DataLoader workers per rank;
# node-b has its own 64M /dev/shm (tmpfs, like a container default); mid-run another process fills it
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-07; REC=$SRC/inject-records/c07.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c07-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29407 --rdzv-id=tmpl-0457 --max-restarts=0 --tee=3"
T="$SRC/trainer.py --style template --steps 400 --workers 2 --batch 64 --width 512 --pg-timeout 120"
node node-a $H "" $ARGS --log-dir=$C/logs/node-a $T > $C/logs/node-a.log 2>&1 &
sleep 1
node node-b $H "mount -t tmpfs -o size=64M tmpfs /dev/shm" $ARGS --log-dir=$C/logs/node-b $T > $C/logs/node-b.log 2>&1 &
rec "started 2 agents; node-b /dev/shm = tmpfs size=64M"
sleep 30
AB=$(cat /tmp/b11-agentpid-node-b)
nsenter --mount --target $AB dd if=/dev/zero of=/dev/shm/.cache-blob bs=1M count=64 2>> $REC
rec "filled node-b /dev/shm via nsenter (dd 64M into /dev/shm/.cache-blob)"
nsenter --mount --target $AB df -h /dev/shm >> $REC
wait; rec "all done"
