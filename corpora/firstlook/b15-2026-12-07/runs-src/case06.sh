#!/bin/bash
# run-06: ParlAI-like trainer, 2 nodes x 2 ranks; both agents' stdout/stderr appended to ONE
# console file (like a batch system job.out). ~15s in, the first 96 bytes of the shared
# valid.idx are overwritten with random bytes from outside (train files untouched).
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-06; W=/tmp/b15w/c06; REC=$SRC/inject-records/c06.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W; : > $REC
mk_hosts $W/hosts node-a 127.0.15.61 node-b 127.0.15.62
python3 -c "import sys; sys.path.insert(0,'$SRC'); import b15common as c; c.make_shards('$W/data','train'); c.make_shards('$W/data','valid',n_seq=400,seed=1)"
COMMONENV="DATA_DIR=/mnt/shared/dialog MODEL_FILE=/mnt/shared/ckpt/model STEPS=500 LOG_EVERY=20 VAL_EVERY=150"
mkdir -p $W/ckpt
for n in node-b node-a; do
  node_cmd2 $n $W/hosts "$W/data:/mnt/shared/dialog,$W/ckpt:/mnt/shared/ckpt" env $COMMONENV $TR --nnodes 2 --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29461 --rdzv-id blender-ft-1 --local-addr $n \
    $SRC/parl_like.py >> $C/logs/job.out 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b; both append to logs/job.out"
sleep 15
dd if=/dev/urandom of=$W/data/valid.idx bs=96 count=1 conv=notrunc 2>>$REC
rec "INJECT: overwrote first 96 bytes of shared valid.idx with random bytes"
( sleep 150; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
