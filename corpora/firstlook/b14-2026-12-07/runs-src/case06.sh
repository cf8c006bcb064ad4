#!/bin/bash
# case 06: OLMo-like, 2 nodes x 2 ranks; each node's output saved like `kubectl logs --timestamps <pod>`.
# Injection: SIGTERM to node-b's torchrun agent only (as a node reclaim would), mid-training.
CASE=c06; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/data; python3 -m b14common tokens $D
mkdir -p $WORK/$CASE/out
i=0
for n in a b; do
  ( cd $WORK/$CASE && B14_NODE=node-$n in_node node-$n python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=2 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29506 --rdzv-id=olmo-tiny-b14 --max-restarts=0 \
      $SRC/olmo_like.py configs/tiny/OLMo-tiny.yaml --data $D 2>&1 | python3 -u $SRC/tsprefix.py > $WORK/$CASE/out/olmo-tiny-b14-worker-$i.log ) &
  i=$((i+1))
done
rec "started agents node-a (pod worker-0) and node-b (pod worker-1), 2 ranks each"
sleep 28
AB=$(for p in $(pgrep -f "torch.distributed.run .*olmo-tiny-b14"); do tr '\0' '\n' </proc/$p/environ | grep -qx B14_NODE=node-b && echo $p; done | head -1)
kill -TERM $AB
rec "SIGTERM to node-b torchrun agent pid=$AB"
wait
rec "all agents exited"
