#!/bin/bash
# case05: two nodes (node-a, node-b) x 2 workers, CNN trainer with DeepSpeed-style
# logging and ZeRO-1-style per-rank checkpoint files (ds_like.py), gloo.
# Every node writes its ranks' checkpoint files to its own node-local /ckpt
# (bind mount of a per-node directory).
# Fault: node-b's /ckpt becomes read-only while the job runs. After the first
# checkpoint (global_step500) is on disk on node-b, the collector runs
#   nsenter -t <node-b agent pid> -m mount -o remount,bind,ro /ckpt
# (like a local disk that the kernel remounted read-only), so the next
# checkpoint (global_step1000) fails on node-b's ranks.
# Layout: per-node folders, each with the node's console (torchrun --tee 3).
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case05; rm -rf $W; mkdir -p $W; mkhosts $W/hosts
mkdir -p /ckpt
OUT=$B5/run-05/logs; rm -rf $OUT; mkdir -p $OUT/node-a $OUT/node-b
PORT=29705
for n in a b; do
  mkdir -p $W/ckpt-node-$n
  unshare --uts --mount --fork bash -c "hostname node-$n; mount --bind $W/hosts /etc/hosts; \
    mount --bind $W/ckpt-node-$n /ckpt; cd $W; echo \$\$ > $W/agent-$n.pid; \
    exec > $OUT/node-$n/console.log 2>&1; \
    exec $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint node-a:$PORT \
      --rdzv-id cnn-ds-0905 --max-restarts 0 --log-dir $W/elastic-$n --tee 3 \
      $SRC/ds_like.py --train-steps 2000 --micro-batch 16 --lr 1e-3 --steps-per-print 50 \
      --save-dir /ckpt --save-interval 500" &
  sleep 1
done
# wait until both node-b ranks have written their step-500 optimizer partitions
for i in $(seq 1 600); do
  [ $(ls $W/ckpt-node-b/global_step500/zero_pp_rank_*_optim_states.pt 2>/dev/null | wc -l) -ge 2 ] && break
  sleep 0.1
done
sleep 1
nsenter -t $(cat $W/agent-b.pid) -m mount -o remount,bind,ro /ckpt
echo "$(date '+%F %T.%N') remounted node-b /ckpt read-only" > $W/injection.txt
wait
echo done
