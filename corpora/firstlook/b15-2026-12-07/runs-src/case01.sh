#!/bin/bash
# run-01: fairseq2-like trainer, 2 nodes x 1 rank, node-local data disks; node-b's train.bin
# is truncated from outside ~25s into the run (node-b only).
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-01; W=/tmp/b15w/c01; REC=$SRC/inject-records/c01.txt
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W; : > $REC
mk_hosts $W/hosts node-a 127.0.15.11 node-b 127.0.15.12
for n in node-a node-b; do python3 -c "import sys; sys.path.insert(0,'$SRC'); import b15common as c; c.make_shards('$W/$n/data','train'); c.make_shards('$W/$n/data','valid',n_seq=400,seed=1)"; mkdir -p $W/$n/ckpt; done
rec "data prepared on both nodes ($W/node-*/data, bind-mounted at /mnt/data)"
COMMONENV="DATA_DIR=/mnt/data CKPT_DIR=/mnt/ckpt STEPS=900 LOG_EVERY=20 SAVE_EVERY=200 VAL_EVERY=300 NUM_WORKERS=2 STEP_SLEEP=0.03"
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "$W/$n/data:/mnt/data,$W/$n/ckpt:/mnt/ckpt" env $COMMONENV $TR --nnodes 2 --nproc-per-node 1 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29411 --rdzv-id lm-pretrain-0412 --local-addr $n \
    $SRC/fs2_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
done
rec "agents started node-a pid=$P_node_a node-b pid=$P_node_b"
sleep 28
sz=$(stat -c %s $W/node-b/data/train.bin)
truncate -s $((sz/3)) $W/node-b/data/train.bin
rec "INJECT: truncated node-b train.bin from $sz to $((sz/3)) bytes (node-a data untouched)"
( sleep 120; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
