#!/bin/bash
# case 03: 2 nodes x 2 ranks, chainer-like table trainer, srun --label style merged console ("0: ", "1: " per node);
# node-b LOCAL_RANK=1 (global rank 3) moved into a cgroup-v1 memory cgroup with a 100M limit (real memcg OOM kill)
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-03; REC=$SRC/inject-records/c03.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c03-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29403 --rdzv-id=5521 --max-restarts=0"
node node-a $H "" $ARGS $SRC/trainer.py --style table --steps 400 --seq-ramp --sleep 0 2>&1 | sed -u 's/^/0: /' >> $C/logs/console.log &
sleep 1
node node-b $H "" $ARGS $SRC/trainer.py --style table --steps 400 --seq-ramp --sleep 0 2>&1 | sed -u 's/^/1: /' >> $C/logs/console.log &
rec "started 2 agents"
sleep 25
CG=/sys/fs/cgroup/memory/b11-c03-node-b; mkdir -p $CG; echo 100M > $CG/memory.limit_in_bytes
W=$(wpid $(cat /tmp/b11-agentpid-node-b) 1); echo $W > $CG/cgroup.procs
rec "moved node-b LOCAL_RANK=1 pid $W into $CG with memory.limit_in_bytes=100M"
wait; rec "all done"
dmesg | grep -n "b11-c03" > /tmp/b11-c03-dmesg.txt
rmdir $CG
