#!/bin/bash
# run-10: 2 nodes (node-a, node-b) x 2 workers, plain print() MLP loop whose gradients are
# averaged with one flat all_reduce per step. Per-node folders with each agent's console
# (--tee 3).
# Fault: node-b's shell exports MODEL_HIDDEN=96 before starting torchrun (node-a runs with
# the default 128), so the two nodes build MLPs of different sizes and the flat gradient
# buffers differ in length across ranks.
source "$(dirname "$0")/common.sh"
scratch case10 node-a node-b
PORT=29510
export EPOCHS=4 ITERS_PER_EPOCH=50
for n in a b; do
  mkdir -p $WORK/node-$n
  ih=$([ $n = a ] && echo 1 || echo 0)
  pre=""; [ $n = b ] && pre="export MODEL_HIDDEN=96"
  NODE_PRE="$pre" run_node node-$n $WORK/agent_$n.pid \
    $PY -m torch.distributed.run --nnodes 2 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id mlp-flatgrad-31 --rdzv-conf is_host=$ih \
      --tee 3 \
      $SRC/plain_loop.py \
    > $WORK/node-$n/launcher.log 2>&1 &
done
wait
OUT=$B4/run-10/logs
rm -rf $OUT; mkdir -p $OUT
for n in a b; do cp -a $WORK/node-$n $OUT/node-$n; done
