#!/bin/bash
# case 08: torchvision-reference-like, 2 nodes x 2 ranks. Injection: node-b's launcher environment carries GLOO_SOCKET_IFNAME=eth7 (an interface this host does not have); node-a has GLOO_SOCKET_IFNAME unset.
CASE=c08; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/imagenet-mini/train; python3 -m b14common images $D 3
mkdir -p $WORK/$CASE/out
for n in a b; do
  EXTRA=""; [ $n = b ] && EXTRA="GLOO_SOCKET_IFNAME=eth7"
  ( cd $WORK/$CASE && [ -n "$EXTRA" ] && export $EXTRA; B14_NODE=node-$n TRAIN_PG_TIMEOUT_S=90 in_node node-$n python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=2 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29508 --rdzv-id=cls-smallcnn-e4 --max-restarts=0 \
      --log-dir $WORK/$CASE/out/elastic-node-$n --tee 3 \
      $SRC/tv_reference_like.py --data-path $D --output-dir $WORK/$CASE/out > $WORK/$CASE/out/console-node-$n.log 2>&1 ) &
  rec "started agent node-$n (2 ranks) env: ${EXTRA:-<no extra>} TRAIN_PG_TIMEOUT_S=90"
done
wait
rec "all agents exited"
