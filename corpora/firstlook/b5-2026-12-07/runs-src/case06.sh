#!/bin/bash
# case06: two nodes x 2 workers, logging-style DDP trainer (logtrainer.py), gloo.
# Fault: a collective-call mismatch that deadlocks. node-b's environment has
# EVAL_METRICS_LOCAL=1 (a debug switch left in that node's shell), so its two
# ranks skip the all_reduce of eval metrics on the side "metrics" process group
# at the first evaluation (step 300) and go straight on to the next training
# step (DDP gradient all_reduce on the default group). node-a's ranks wait in
# the metrics all_reduce. Nobody can progress; the gloo timeout is 40 s.
# Layout: per-node tree (console.log + torchrun --log-dir tree, --tee 3),
# shipped as one zip.
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case06; rm -rf $W; mkdir -p $W/tree; mkhosts $W/hosts
OUT=$B5/run-06/logs; rm -rf $OUT; mkdir -p $OUT
PORT=29706
for n in a b; do
  mkdir -p $W/tree/node-$n
  EXTRA=""
  [ $n = b ] && EXTRA="export EVAL_METRICS_LOCAL=1;"
  unshare --uts --mount --fork bash -c "hostname node-$n; mount --bind $W/hosts /etc/hosts; cd $W; $EXTRA \
    exec > $W/tree/node-$n/console.log 2>&1; \
    exec $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT \
      --rdzv-id clsjob-4410 --max-restarts 0 --log-dir $W/tree/node-$n/torchelastic --tee 3 \
      $SRC/logtrainer.py --steps 1200 --batch-size 32 --log-every 25 --eval-every 300 --pg-timeout 40" &
  sleep 1
done
wait
cd $W/tree && zip -r -X $OUT/clsjob-4410-node-logs.zip node-a node-b
echo done
