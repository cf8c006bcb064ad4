#!/bin/bash
# case 09: OpenNMT-py-like, 3 nodes x 1 rank. Injection: ~6 s after launch, node-c's agent and all its children SIGKILLed together (as if the machine vanished).
CASE=c09; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/data; python3 -m b14common tokens $D
mkdir -p $WORK/$CASE/out
for n in a b c; do
  mkdir -p $WORK/$CASE/out/node-$n
  ( cd $WORK/$CASE && B14_NODE=node-$n TRAIN_PG_TIMEOUT_S=60 in_node node-$n python3 -m torch.distributed.run --nnodes=3 --nproc-per-node=1 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29509 --rdzv-id=onmt-wmt14-ende --max-restarts=0 \
      --log-dir $WORK/$CASE/out/node-$n/torchelastic --tee 3 \
      $SRC/onmt_like.py -data $D > $WORK/$CASE/out/node-$n/console.log 2>&1 ) &
done
rec "started agents node-a, node-b, node-c (1 rank each); TRAIN_PG_TIMEOUT_S=60"
sleep 6
PIDS=$(for p in $(pgrep -f "onmt"); do tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx B14_NODE=node-c && echo $p; done)
kill -9 $PIDS
rec "SIGKILL to every node-c process (agent + children): $(echo $PIDS)"
wait
rec "all agents exited"
