#!/bin/bash
# case03: two nodes (node-a, node-b) x 2 workers, accelerate-style text
# classifier (accel_like.py) reading JSONL shards with DataLoader num_workers=2.
# Each node has its own local copy of the corpus, bind-mounted at /mnt/corpus.
# Fault: node-b's copy of shard 00005 is corrupted on disk before the job starts
# (dd writes 160 NUL bytes into the middle of the file, conv=notrunc), so one
# rank on node-b hits a bad sample inside a DataLoader worker process.
# torchrun --max-restarts 0.
# Layout: per node, the launcher console (launcher.log) and the torchrun
# --log-dir tree (-r 3: attempt_N/<local_rank>/stdout.log, stderr.log, error.json).
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case03; rm -rf $W; mkdir -p $W; mkhosts $W/hosts
mkdir -p /mnt/corpus
OUT=$B5/run-03/logs; rm -rf $OUT; mkdir -p $OUT/node-a $OUT/node-b
for n in a b; do python3 $SRC/make_jsonl.py $W/corpus-node-$n --shards 8 --per-shard 1000 --seed 3; done
SH=$W/corpus-node-b/train-00005-of-00008.jsonl
dd if=/dev/zero of=$SH bs=1 seek=$(( $(stat -c %s $SH) / 2 )) count=160 conv=notrunc 2> $W/dd.txt
PORT=29703
for n in a b; do
  unshare --uts --mount --fork bash -c "hostname node-$n; mount --bind $W/hosts /etc/hosts; \
    mount --bind $W/corpus-node-$n /mnt/corpus; cd $W; \
    exec > $OUT/node-$n/launcher.log 2>&1; \
    exec $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint node-a:$PORT \
      --rdzv-id txtcls-0311 --max-restarts 0 --log-dir $OUT/node-$n/elastic -r 3 \
      $SRC/accel_like.py --data-dir /mnt/corpus --num-train-epochs 3 --per-device-train-batch-size 32 \
      --dataloader-num-workers 2 --logging-steps 10" &
  sleep 1
done
wait
echo done
