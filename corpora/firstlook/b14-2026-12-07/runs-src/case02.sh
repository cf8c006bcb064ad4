#!/bin/bash
# case 02: Megatron-DeepSpeed-like, 2 nodes x 2 ranks. Injection: rank 2 (node-b local 0) frozen with the cgroup v1 freezer; later hang-detector SIGTERM to node-b agent.
CASE=c02; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/data; python3 -m b14common tokens $D
mkdir -p $WORK/$CASE/out
for n in a b; do
  ( cd $WORK/$CASE && B14_NODE=node-$n TRAIN_PG_TIMEOUT_S=60 in_node node-$n python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=2 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29502 --rdzv-id=gpt-pretrain-mds-22 --max-restarts=0 \
      $SRC/megads_like.py --data-path $D > $WORK/$CASE/out/console-node-$n.log 2>&1 ) &
done
rec "started agents node-a and node-b (2 ranks each); TRAIN_PG_TIMEOUT_S=60 for the trainer"
sleep 30
W=$(for p in $(pgrep -f megads_like.py); do e=$(tr '\0' '\n' </proc/$p/environ); echo "$e" | grep -qx B14_NODE=node-b && echo "$e" | grep -qx RANK=2 && echo $p; done | head -1)
FZ=/sys/fs/cgroup/freezer/b14-c02; mkdir -p $FZ; echo $W > $FZ/cgroup.procs; echo FROZEN > $FZ/freezer.state
rec "froze worker RANK=2 (node-b, local rank 0) pid=$W via cgroup v1 freezer $FZ"
# wait for node-a agent to exit
while pgrep -f "rdzv-id=gpt-pretrain-mds-22" >/dev/null && [ $(for p in $(pgrep -f "torch.distributed.run .*gpt-pretrain-mds-22"); do tr '\0' '\n' </proc/$p/environ | grep -qx B14_NODE=node-a && echo $p; done | wc -l) -gt 0 ]; do sleep 2; done
rec "node-a agent exited"
sleep 20
AB=$(for p in $(pgrep -f "torch.distributed.run .*gpt-pretrain-mds-22"); do tr '\0' '\n' </proc/$p/environ | grep -qx B14_NODE=node-b && echo $p; done | head -1)
rec "hang detector: SIGTERM to node-b agent pid=$AB"
kill -TERM $AB
sleep 45
echo THAWED > $FZ/freezer.state; rec "thawed freezer cgroup (cleanup)"
wait; rmdir $FZ
rec "all agents exited"
