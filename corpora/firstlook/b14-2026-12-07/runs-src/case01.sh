#!/bin/bash
# case 01: LitGPT-like, 2 nodes x 2 ranks, c10d rendezvous on node-a. Injection: node-b's torchrun agent SIGKILLed mid-training.
CASE=c01; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/data; python3 -m b14common tokens $D
mkdir -p $WORK/$CASE/out
for n in a b; do
  ( cd $WORK/$CASE && B14_NODE=node-$n in_node node-$n python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=2 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29501 --rdzv-id=lit-pretrain-0417 --max-restarts=0 \
      --log-dir $WORK/$CASE/out/logs-node-$n --tee 3 \
      $SRC/litgpt_like.py --data $D --out_dir $WORK/$CASE/out/ckpt-node-$n > $WORK/$CASE/out/console-node-$n.log 2>&1 ) &
done
rec "started agents node-a and node-b (2 ranks each)"
sleep 35
AP=$(for p in $(pgrep -f "torch.distributed.run .*lit-pretrain-0417"); do tr '\0' '\n' </proc/$p/environ | grep -qx B14_NODE=node-b && echo $p; done | head -1)
rec "SIGKILL torchrun agent of node-b pid=$AP (only the agent; workers untouched)"
kill -9 $AP
wait
rec "all agents exited"
