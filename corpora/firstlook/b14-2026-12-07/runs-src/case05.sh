#!/bin/bash
# case 05: nanotron-like, single node (node-d) x 4 ranks, one console (--tee 3). Checkpoints on their own small tmpfs.
# Injection: the checkpoint filesystem remounted read-only from outside after the first checkpoint landed.
CASE=c05; source /work/staging/b14/runs-src/lib.sh
umount $WORK/$CASE/checkpoints 2>/dev/null
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/data; python3 -m b14common tokens $D
mkdir -p $WORK/$CASE/out $WORK/$CASE/checkpoints; mount -t tmpfs -o size=64m tmpfs $WORK/$CASE/checkpoints
rec "mounted tmpfs size=64m at $WORK/$CASE/checkpoints"
( cd $WORK/$CASE && B14_NODE=node-d in_node node-d python3 -m torch.distributed.run --nnodes=1 --nproc-per-node=4 \
      --rdzv-backend=c10d --rdzv-endpoint=node-d:29505 --rdzv-id=nanotron-tiny-llama --max-restarts=0 \
      --log-dir $WORK/$CASE/out/elastic --tee 3 \
      $SRC/nanotron_like.py --data $D --checkpoints-path $WORK/$CASE/checkpoints > $WORK/$CASE/out/console.log 2>&1 ) &
rec "started agent node-d (4 ranks)"
for i in $(seq 120); do [ "$(cat $WORK/$CASE/checkpoints/latest.txt 2>/dev/null)" = 25 ] && break; sleep 0.5; done
sleep 3
mount -o remount,ro $WORK/$CASE/checkpoints
rec "remounted $WORK/$CASE/checkpoints read-only (latest.txt was 25)"
wait
rec "agent exited"
ls -lR $WORK/$CASE/checkpoints > $WORK/$CASE/out/ckpt-listing.txt
umount $WORK/$CASE/checkpoints
