#!/bin/bash
# run-02: 2 "pods" x 2 workers, plain print() MLP loop with a flat gradient all_reduce.
# Collected like `kubectl logs -f -l job=mlp-ddp --prefix --timestamps` into one console.log.
# Fault: the LOCAL_RANK=0 worker on mlp-ddp-worker-0 is frozen with kill -STOP <pid>
# after it prints "epoch 2 done"; it is never continued. The process group timeout is 40 s.
source "$(dirname "$0")/common.sh"
scratch case02 mlp-ddp-master-0 mlp-ddp-worker-0
PORT=29502
CONSOLE=$WORK/console.log
export EPOCHS=20 ITERS_PER_EPOCH=50 STEP_SLEEP=0.02 PG_TIMEOUT_S=40 LR=0.05
i=0
for pod in mlp-ddp-master-0 mlp-ddp-worker-0; do
  ih=$([ $i = 0 ] && echo 1 || echo 0)
  run_node $pod $WORK/agent_$i.pid \
    $PY -m torch.distributed.run --nnodes 2 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id mlp-ddp --rdzv-conf is_host=$ih \
      $SRC/plain_loop.py \
    2>&1 | $PY $SRC/prefix_lines.py kubectl $pod $CONSOLE &
  i=$((i+1))
done
sleep 3
wait_for_line $CONSOLE 'worker-0/pytorch\] \S+ epoch 2 done' 90
victim=$(workers_of $(cat $WORK/agent_1.pid) 0)
echo "$(date -u +%FT%T.%3NZ) kill -STOP $victim (mlp-ddp-worker-0, LOCAL_RANK=0)" | tee $WORK/injection.txt
kill -STOP $victim
wait
OUT=$B4/run-02/logs
rm -rf $OUT; mkdir -p $OUT
cp $CONSOLE $OUT/console.log
