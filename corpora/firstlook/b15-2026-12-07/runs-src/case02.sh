#!/bin/bash
# run-02: ParlAI-like trainer, 2 nodes x 2 ranks. Each node has a log volume at /var/log/train
# (torchrun --log-dir + per-node trainstats). node-b's volume is a 4 MiB tmpfs; ~30s in, another
# writer fills it from outside (dd until ENOSPC).
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-02; W=/tmp/b15w/c02; REC=$SRC/inject-records/c02.txt
umount $W/node-b/logvol 2>/dev/null; rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W/data $W/node-a/logvol $W/node-b/logvol; : > $REC
mount -t tmpfs -o size=4m tmpfs $W/node-b/logvol
rec "node-b log volume: tmpfs size=4m at $W/node-b/logvol (bind-mounted at /var/log/train inside node-b)"
mk_hosts $W/hosts node-a 127.0.15.21 node-b 127.0.15.22
python3 -c "import sys; sys.path.insert(0,'$SRC'); import b15common as c; c.make_shards('$W/data','train'); c.make_shards('$W/data','valid',n_seq=400,seed=1)"
COMMONENV="DATA_DIR=/mnt/shared/data METRICS_DIR=/var/log/train STEPS=700 LOG_EVERY=10 VAL_EVERY=200"
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "$W/data:/mnt/shared/data,$W/$n/logvol:/var/log/train" env $COMMONENV $TR --nnodes 2 --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29421 --rdzv-id dialog-ft-77 --local-addr $n \
    --log-dir /var/log/train/torchrun --tee 3 \
    $SRC/parl_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b"
sleep 30
dd if=/dev/zero of=$W/node-b/logvol/core.dump.tmp bs=64k 2>>$REC
rec "INJECT: filled node-b log volume with dd (file core.dump.tmp) -> $(df -h $W/node-b/logvol | tail -1)"
( sleep 150; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
for n in node-a node-b; do (cd $W/$n/logvol && tar --exclude=core.dump.tmp -cf - . | tar -xf - -C $C/logs/$n/); done
rec "copied log volumes (without core.dump.tmp) to case; done"
umount $W/node-b/logvol
