#!/bin/bash
# run-05: fairseq2-like trainer, 2 nodes x 2 ranks, --log-dir + --tee 3. node-b's environment
# has GLOO_DEVICE_TRANSPORT=TCP_TSL (a typo; node-a has no such variable).
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-05; W=/tmp/b15w/c05; REC=$SRC/inject-records/c05.txt
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W/ckpt; : > $REC
mk_hosts $W/hosts node-a 127.0.15.51 node-b 127.0.15.52
python3 -c "import sys; sys.path.insert(0,'$SRC'); import b15common as c; c.make_shards('$W/data','train'); c.make_shards('$W/data','valid',n_seq=400,seed=1)"
COMMONENV="DATA_DIR=/mnt/shared/data CKPT_DIR=/mnt/shared/ckpt STEPS=400 LOG_EVERY=20 SAVE_EVERY=200 VAL_EVERY=200 NUM_WORKERS=1 DIST_TIMEOUT_S=120"
declare -A EX=([node-a]="" [node-b]="GLOO_DEVICE_TRANSPORT=TCP_TSL")
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "$W/data:/mnt/shared/data,$W/ckpt:/mnt/shared/ckpt,$C/logs/$n:/var/log/job" env $COMMONENV ${EX[$n]} $TR --nnodes 2 --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29452 --rdzv-id lm-7b-proxy --local-addr $n \
    --log-dir /var/log/job/torchrun --tee 3 \
    $SRC/fs2_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
  rec "agent $n started (pid $!) extra env: '${EX[$n]}'"
done
( sleep 170; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
