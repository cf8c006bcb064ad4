#!/bin/bash
# run-03: 3 nodes x 2 workers, FSDP2 ResMLP regressor, torchrun --log-dir per node with
# -r 3 (worker stdout/stderr only in the log-dir files; the launcher console keeps the agent).
# Fault: node-b's agent (and so its workers) runs under `ulimit -v 1800000` (1.8 GB
# address space per process), the other nodes are unlimited. Training fits; the periodic
# eval (batch 131072) needs more.
source "$(dirname "$0")/common.sh"
scratch case03 node-a node-b node-c
PORT=29503
for n in a b c; do
  mkdir -p $WORK/node-$n
  ih=$([ $n = a ] && echo 1 || echo 0)
  pre=""; [ $n = b ] && pre="ulimit -v 1800000"
  NODE_PRE="$pre" run_node node-$n $WORK/agent_$n.pid \
    $PY -m torch.distributed.run --nnodes 3 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id resmlp-fsdp-77 --rdzv-conf is_host=$ih \
      --log-dir $WORK/node-$n/torchelastic -r 3 \
      $SRC/fsdp_trainer.py --steps 200 --batch 64 --eval_every 40 --eval_batch 131072 --eval_batches 2 --log_every 10 \
    > $WORK/node-$n/launcher.log 2>&1 &
done
wait
OUT=$B4/run-03/logs
rm -rf $OUT; mkdir -p $OUT
for n in a b c; do cp -a $WORK/node-$n $OUT/node-$n; done
