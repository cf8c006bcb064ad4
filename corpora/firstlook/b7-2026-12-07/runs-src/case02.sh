#!/bin/bash
# run-02: mmengine-style iteration runner, 2 nodes x 2 workers. Per-node console files
# with an ISO-8601 UTC timestamp prepended to every line by the collector (tagger.py --style iso).
# work_dir (checkpoints) lives on a shared 80 MiB ext4 volume (loop-mounted image, seen by
# both nodes). Injection from outside: ~32 s after launch, another process writes a 34 MiB
# file into the same volume (/vol/shared/tmp_export.bin) and keeps it there.
source "$(dirname "$0")/lib7.sh"
C=$B7/run-02; W=$SCR/c02; INJ=$W/inject.txt
umount $W/vol 2>/dev/null; rm -rf $C/logs $W; mkdir -p $C/logs $W/vol
mkhosts $W/hosts det-worker-0 det-worker-1
truncate -s 80M $W/vol.img; mkfs.ext4 -q -m 0 $W/vol.img; mount -o loop $W/vol.img $W/vol
mkdir -p $W/vol/work_dirs $W/vol/shared
df -h $W/vol >> $INJ
for h in det-worker-0 det-worker-1; do
  node $h $W/hosts "|--style iso --out $C/logs/$h.log" "" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint det-worker-0:29702 \
      --rdzv-id mmtrain-88 --max-restarts 0 \
      $SRC/mmengine_like.py configs/tinygpt_8xb16-400it.py --launcher pytorch \
      --work-dir $W/vol/work_dirs/tinygpt_8xb16-400it --data-root $SCR/data \
      --max-iters 400 --ckpt-interval 80 --val-interval 80 --max-keep-ckpts 2 >/dev/null
  sleep 1
done
sleep 32
note "writing 34MiB into $W/vol/shared/tmp_export.bin"
dd if=/dev/urandom of=$W/vol/shared/tmp_export.bin bs=1M count=34 2>>$INJ
df -h $W/vol >> $INJ; ls -l $W/vol/work_dirs/tinygpt_8xb16-400it >> $INJ
wait
note "agents exited"
df -h $W/vol >> $INJ; ls -l $W/vol/work_dirs/tinygpt_8xb16-400it >> $INJ
umount $W/vol
