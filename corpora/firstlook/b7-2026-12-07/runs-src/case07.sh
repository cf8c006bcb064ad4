#!/bin/bash
# run-07: timm-style image classifier, 3 nodes x 1 worker. Logs: ONE merged console of the
# three nodes' agents with no prefixes at all (tagger.py --style none, all appending to one file).
# Injection: node img-train-c is started inside a cgroup-v1 memory cgroup with
# memory.limit_in_bytes=900M (swappiness 0; the machine has no swap); nodes a and b have no
# limit. (Calibration before, single worker, not collected: worker RSS ~220 MB while training,
# ~1.3 GB peak during the kNN monitor.)
source "$(dirname "$0")/lib7.sh"
C=$B7/run-07; W=$SCR/c07; INJ=$W/inject.txt; CG=/sys/fs/cgroup/memory/b7-c07-node-c
rm -rf $C/logs $W; mkdir -p $C/logs $W
rmdir $CG 2>/dev/null; mkdir -p $CG; echo 0 > $CG/memory.swappiness; echo 900M > $CG/memory.limit_in_bytes
note "memory cgroup $CG limit $(cat $CG/memory.limit_in_bytes)"
mkhosts $W/hosts img-train-a img-train-b img-train-c
OUT=$C/logs/console.log
for h in img-train-a img-train-b img-train-c; do
  prep=""; [ $h = img-train-c ] && prep="echo \$\$ > $CG/cgroup.procs;"
  node $h $W/hosts "|--style none --out $OUT" "$prep" \
    torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint img-train-a:29707 \
      --rdzv-id timm-r18-07 --max-restarts 0 \
      $SRC/timm_like.py $SCR/data --model resnet_tiny -b 64 --epochs 4 --knn-interval 3 --output $W/output/train >/dev/null
  sleep 1
done
( while [ -d $CG ]; do echo "$(ts) usage=$(cat $CG/memory.usage_in_bytes) max=$(cat $CG/memory.max_usage_in_bytes) failcnt=$(cat $CG/memory.failcnt)" >> $W/memwatch.txt; sleep 2; done ) &
MW=$!
wait_rdzv timm-r18-07
note "agents exited"
cat $CG/memory.oom_control $CG/memory.failcnt $CG/memory.max_usage_in_bytes >> $INJ
kill $MW; sleep 1; rmdir $CG
