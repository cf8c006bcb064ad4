#!/bin/bash
# case01: two nodes (node-a, node-b) x 2 workers, Megatron-like trainer, gloo.
# Fault: whole node-b lost at once -- kill -9 of node-b's torchrun agent AND
# its two workers in one kill call, ~25 s into training (like a host power-off).
# node-a's agent has --max-restarts 1, so it tries to re-rendezvous and waits
# for a second node (join_timeout=45).
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case01; rm -rf $W; mkdir -p $W/ckpt; mkhosts $W/hosts
OUT=$B5/run-01/logs; rm -rf $OUT; mkdir -p $OUT/node-a $OUT/node-b
PORT=29701
for n in a b; do
  unshare --uts --mount --fork bash -c "hostname node-$n; mount --bind $W/hosts /etc/hosts; cd $W; echo \$\$ > $W/agent-$n.pid; \
    exec > $OUT/node-$n/console.log 2>&1; \
    exec $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT \
      --rdzv-id gpt-tiny-0107 --rdzv-conf join_timeout=45 --max-restarts 1 \
      $SRC/megatron_like.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 32 \
      --micro-batch-size 4 --global-batch-size 32 --train-iters 3000 --lr 1e-3 --log-interval 20 \
      --save $W/ckpt --save-interval 250" &
  sleep 1
done
sleep 25
APID=$(cat $W/agent-b.pid)
VICTIMS="$APID $(descendants $APID | tr '\n' ' ')"
echo "$(date '+%F %T') kill -9 node-b agent+workers: $VICTIMS" > $W/injection.txt
kill -9 $VICTIMS
wait
echo "done"
