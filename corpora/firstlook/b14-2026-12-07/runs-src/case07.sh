#!/bin/bash
# case 07: Accelerate-like, 2 nodes x 1 rank. No fault injected: node-b's launcher simply started 20 s before node-a's (the rendezvous host). Expected to finish.
CASE=c07; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; mkdir -p $WORK/$CASE/out
start() { ( cd $WORK/$CASE && B14_NODE=node-$1 in_node node-$1 python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=1 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29507 --rdzv-id=glue-mrpc-accel --max-restarts=0 \
      $SRC/accel_like.py --mixed_precision fp16 > $WORK/$CASE/out/node-$1.log 2>&1 ) & }
start b; rec "started node-b agent (node-a not started yet)"
sleep 20
start a; rec "started node-a agent (rendezvous host) 20 s later"
wait
rec "all agents exited"
