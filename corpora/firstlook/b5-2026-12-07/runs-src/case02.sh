#!/bin/bash
# case02: two "pods" (hostnames clsft-worker-0 / clsft-worker-1), 2 workers each,
# logging-style trainer (logtrainer.py), c10d rendezvous hosted by worker-0.
# Fault: the rendezvous never completes. worker-1 is started with a wrong
# --rdzv-endpoint port (clsft-worker-0:29712 instead of :29702; nothing listens
# there). worker-0 waits for the second node until join_timeout=60 s.
# Layout: both containers' output interleaved as `kubectl logs --prefix` shows it
# (each line prefixed with [pod/<pod>/<container>] as it arrives, one file).
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case02; rm -rf $W; mkdir -p $W
printf '127.0.0.1 localhost\n127.0.1.21 clsft-worker-0\n127.0.1.22 clsft-worker-1\n' > $W/hosts
OUT=$B5/run-02/logs; rm -rf $OUT; mkdir -p $OUT
LOG=$OUT/kubectl-logs_clsft-prefix.txt
for i in 0 1; do
  PORT=29702
  [ $i = 1 ] && PORT=29712        # <-- the injected mistake
  unshare --uts --mount --fork bash -c "hostname clsft-worker-$i; mount --bind $W/hosts /etc/hosts; cd $W; \
    exec $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint clsft-worker-0:$PORT \
      --rdzv-id clsft-2207 --rdzv-conf join_timeout=60 --max-restarts 3 \
      $SRC/logtrainer.py --steps 1500 --batch-size 32 --log-every 25 --eval-every 300 \
      --ckpt-dir $W/ckpt --save-every 300 2>&1" \
    | awk -v p="[pod/clsft-worker-$i/pytorch] " '{ print p $0; fflush() }' >> $LOG &
  sleep 2
done
wait
echo done
