#!/bin/bash
# run-07: loguru trainer, 2 nodes x 2 workers, merged console with "[host] " prefixes plus the
# job's --log-dir files. Each node's log dir is a 160 KiB tmpfs (mounted before launch).
source "$(dirname "$0")/lib8.sh"
C=$B8/run-07; W=$SCR/c07; INJ=$W/inject.txt
for h in lg-0 lg-1; do umount $W/tmpfs-$h 2>/dev/null; done
rm -rf $C/logs $W; mkdir -p $C/logs $W/runlogs $W/ckpt
mkhosts $W/hosts lg-0 lg-1
for h in lg-0 lg-1; do mkdir -p $W/tmpfs-$h; mount -t tmpfs -o size=160k tmpfs $W/tmpfs-$h; done
note "tmpfs 160k mounted per node as log dir"
for h in lg-0 lg-1; do
  node $h $W/hosts "--style bracket --out $C/logs/console.log" "cd $W; mount --bind $W/tmpfs-$h $W/runlogs" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint lg-0:29807 --rdzv-id lg-run-9 \
      $SRC/loguru_trainer.py --data $SCR/data --log-dir $W/runlogs --ckpt-dir $W/ckpt --steps 1200 >/dev/null
  sleep 1
done
note "launched"; wait; note "all agents exited"
for h in lg-0 lg-1; do df -k $W/tmpfs-$h >> $INJ; mkdir -p $C/logs/$h-logdir; cp -a $W/tmpfs-$h/. $C/logs/$h-logdir/; umount $W/tmpfs-$h; done
