#!/bin/bash
# case08: two nodes (node-a, node-b) x 1 worker, logging-style DDP classifier
# (logtrainer.py), gloo, DataLoader num_workers=3 on a 2-CPU machine, shared
# checkpoint directory.
# No fault. Planned two-segment run: segment 1 is launched with
# --stop-at-step 300 (end of its time allocation): it saves latest.pt and all
# ranks exit 0. Segment 2 is the same command on both nodes without the stop
# flag; it resumes from latest.pt (fast-forwards the LR schedule, skips the
# already-seen batches) and finishes at step 600. Harmless warnings appear on
# the way (DataLoader worker-count warning, lr_scheduler call-order warning
# from the fast-forward, the trainer's own mid-epoch resume WARNING).
# Layout: per-node folders; each node's console, both segments appended to the
# same file as a requeued job would.
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case08; rm -rf $W; mkdir -p $W/shared-ckpt; mkhosts $W/hosts
OUT=$B5/run-08/logs; rm -rf $OUT; mkdir -p $OUT/node-a $OUT/node-b
PORT=29708
run_segment() {
  local seg=$1 extra=$2 n
  for n in a b; do
    unshare --uts --mount --fork bash -c "hostname node-$n; mount --bind $W/hosts /etc/hosts; cd $W; \
      exec >> $OUT/node-$n/console.log 2>&1; \
      exec $TORCHRUN --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint node-a:$PORT \
        --rdzv-id clsjob-5120-seg$seg --max-restarts 0 \
        $SRC/logtrainer.py --steps 600 --batch-size 32 --num-workers 3 --log-every 20 --eval-every 100 \
        --ckpt-dir $W/shared-ckpt --save-every 100 $extra" &
    sleep 1
  done
  wait
}
run_segment 1 "--stop-at-step 300"
sleep 5
run_segment 2 ""
echo done
