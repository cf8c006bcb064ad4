#!/bin/bash
# run-05: fairseq2-like trainer, 2 nodes x 2 ranks; node-b's launch line says --nnodes 3
# (node-a: --nnodes 2). Rendezvous timeout set to 90s via --rdzv-conf on both nodes.
source /work/staging/b15/runs-src/lib.sh
C=$B15/run-05; W=/tmp/b15w/c05; REC=$SRC/inject-records/c05.txt
rm -rf $C/logs $W; mkdir -p $C/logs/node-a $C/logs/node-b $W/ckpt; : > $REC
mk_hosts $W/hosts node-a 127.0.15.51 node-b 127.0.15.52
python3 -c "import sys; sys.path.insert(0,'$SRC'); import b15common as c; c.make_shards('$W/data','train'); c.make_shards('$W/data','valid',n_seq=400,seed=1)"
COMMONENV="DATA_DIR=/mnt/shared/data CKPT_DIR=/mnt/shared/ckpt STEPS=400 LOG_EVERY=20 SAVE_EVERY=200 VAL_EVERY=200 NUM_WORKERS=1"
declare -A NN=([node-a]=2 [node-b]=3)
for n in node-a node-b; do
  node_cmd2 $n $W/hosts "$W/data:/mnt/shared/data,$W/ckpt:/mnt/shared/ckpt" env $COMMONENV $TR --nnodes ${NN[$n]} --nproc-per-node 2 \
    --rdzv-backend c10d --rdzv-endpoint node-a:29451 --rdzv-id lm-7b-proxy --rdzv-conf timeout=90 --local-addr $n \
    $SRC/fs2_like.py > $C/logs/$n/console.log 2>&1 &
  eval "P_${n/-/_}=$!"
  rec "agent $n started with --nnodes ${NN[$n]} (pid $!)"
  sleep 3
done
( sleep 170; rec "watchdog: killing leftovers"; kill_tree $P_node_a $P_node_b ) & WD=$!
wait_pids $P_node_a $P_node_b
kill $WD 2>/dev/null; kill_tree $WD
rec "done"
