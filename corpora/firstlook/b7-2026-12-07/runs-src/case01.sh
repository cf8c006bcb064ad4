#!/bin/bash
# run-01: fairseq-style LM job, 2 nodes x 2 workers, per-node console folders, two job
# submissions. Job 1 runs to --max-update 300 and exits normally (time-sliced job).
# Between the jobs, from outside: a 4 KiB block in the middle of the shared
# checkpoints/checkpoint_last.pt is bit-flipped (xor 0xFF), as a bad block on the
# shared volume would. Job 2 (same command, --max-update 600) restores from it.
source "$(dirname "$0")/lib7.sh"
C=$B7/run-01; W=$SCR/c01; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs/lm-node-a $C/logs/lm-node-b $W/ckpt
mkhosts $W/hosts lm-node-a lm-node-b
job() {  # job N MAXUPD
  for h in lm-node-a lm-node-b; do
    node $h $W/hosts $C/logs/$h/job$1-console.log "cd $W" \
      torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint lm-node-a:29701 \
        --rdzv-id fsq-lm-$1 --max-restarts 0 \
        $SRC/fairseq_like.py $SCR/data --save-dir $W/ckpt --max-update $2 \
        --save-interval-updates 150 --updates-per-epoch 200 --log-interval 25 >/dev/null
    sleep 1
  done
  wait
}
note "job 1 start"; job 1 300; note "job 1 end"
ls -l $W/ckpt >> $INJ
python3 - $W/ckpt/checkpoint_last.pt >> $INJ <<'PY'
import os, sys
f = sys.argv[1]; sz = os.path.getsize(f); off = (sz // 2) & ~4095
with open(f, "r+b") as fh:
    fh.seek(off); b = fh.read(4096); fh.seek(off); fh.write(bytes(x ^ 0xFF for x in b))
print("flipped 4096 bytes at offset", off, "of", f, "size", sz)
PY
note "checkpoint_last.pt corrupted"
sleep 5
note "job 2 start"; job 2 600; note "job 2 end"
