#!/bin/bash
# case04: three nodes (node-a, node-b, node-c) x 1 worker, LSTM LM on .bin token
# shards (tqdm_trainer.py, tqdm bar on rank 0), gloo. All nodes see the same
# shard directory at /mnt/tokens (like a shared filesystem).
# Fault: node-c's launcher runs under `ulimit -n 160` (low open-files limit);
# the trainer keeps every opened shard memmap (one fd each) in a cache, so the
# worker on node-c runs out of file descriptors part-way through training.
# Layout: the three tasks' output interleaved into one file the way
# `srun --label` shows it ("<task>: " prefix per line; task 0=node-a, 1=node-b,
# 2=node-c).
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case04; rm -rf $W; mkdir -p $W; mkhosts $W/hosts
mkdir -p /mnt/tokens
python3 $SRC/make_token_bins.py $W/tokens --shards 600 --tokens 8256 --vocab 2048
OUT=$B5/run-04/logs; rm -rf $OUT; mkdir -p $OUT
LOG=$OUT/slurm-48213.out
PORT=29704
t=0
for n in a b c; do
  LIM=""
  [ $n = c ] && LIM="ulimit -n 160;"      # <-- the injected limit
  unshare --uts --mount --fork bash -c "hostname node-$n; mount --bind $W/hosts /etc/hosts; \
    mount --bind $W/tokens /mnt/tokens; cd $W; $LIM \
    exec $TORCHRUN --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint node-a:$PORT \
      --rdzv-id lstm-lm-48213 --max-restarts 0 \
      $SRC/tqdm_trainer.py --data /mnt/tokens --seq-len 64 --windows-per-shard 64 --batch-size 8 \
      --max-steps 800 --eval-every 100 2>&1" \
    | awk -v p="$t: " '{ print p $0; fflush() }' >> $LOG &
  t=$((t+1))
  sleep 1
done
wait
echo done
