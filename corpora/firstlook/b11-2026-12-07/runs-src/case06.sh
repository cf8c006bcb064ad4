#!/bin/bash
# case 06: 2 nodes x 2 ranks, MXNet-Speedometer-style trainer reading .npy shards from a shared dir (1 loader worker);
# one shard file deleted from outside mid-run
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-06; REC=$SRC/inject-records/c06.txt; : > $REC; mkdir -p $C/logs
H=/tmp/b11-c06-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
D=/tmp/b11-c06-data; rm -rf $D; mkdir -p $D
python3 -c "
import numpy as np
for i in range(16): np.save('$D/shard-%04d.npy' % i, np.random.RandomState(i).randn(256, 257).astype('float32'))"
rec "wrote 16 shards to $D"
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29406 --rdzv-id=lm-shards-2 --max-restarts=0 --tee=3"
T="$SRC/trainer.py --style speedo --steps 500 --data-dir $D --workers 1 --pg-timeout 120"
node node-a $H "" $ARGS --log-dir=$C/logs/node-a $T > $C/logs/node-a.log 2>&1 &
sleep 1
node node-b $H "" $ARGS --log-dir=$C/logs/node-b $T > $C/logs/node-b.log 2>&1 &
rec "started 2 agents"
sleep 30
rm -f $D/shard-0009.npy; rec "deleted $D/shard-0009.npy"
wait; rec "all done"
