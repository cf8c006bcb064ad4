#!/bin/bash
# run-01: 2 nodes x 2 workers, GRU trainer with JSON-lines logging.
# Fault: the LOCAL_RANK=1 worker on node-b is SIGKILLed from outside (kill -9 <pid>)
# once node-b has logged step 150.
source "$(dirname "$0")/common.sh"
scratch case01 node-a node-b
mkdir -p $WORK/node-a $WORK/node-b $WORK/ckpt
PORT=29501
for n in a b; do
  ih=$([ $n = a ] && echo 1 || echo 0)
  run_node node-$n $WORK/agent_$n.pid \
    $PY -m torch.distributed.run --nnodes 2 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id seqgru-0412 --rdzv-conf is_host=$ih \
      --max-restarts 0 \
      $SRC/jsonl_trainer.py --steps 600 --ckpt $WORK/ckpt/seq.pt --ckpt_interval 100 \
    > $WORK/node-$n/launcher.log 2>&1 &
done
wait_for_line $WORK/node-b/launcher.log '"step": 150,' 90 
victim=$(workers_of $(cat $WORK/agent_b.pid) 1)
echo "$(date -u +%FT%T.%3NZ) kill -9 $victim (node-b, LOCAL_RANK=1)" | tee $WORK/injection.txt
kill -9 $victim
wait
OUT=$B4/run-01/logs
rm -rf $OUT; mkdir -p $OUT/node-a $OUT/node-b
cp $WORK/node-a/launcher.log $OUT/node-a/launcher.log
cp $WORK/node-b/launcher.log $OUT/node-b/launcher.log
