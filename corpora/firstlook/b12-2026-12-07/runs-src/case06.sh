#!/bin/bash
# case06: single node x 3 ranks, gensim-like logging; data read from 12 shard files; one shard deleted mid-run
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-06; REC=$SRC/inject-records/c06.txt; H=$SRC/hosts/c06.hosts; : > $REC
D=/tmp/b12-c06-data/corpus; rm -rf /tmp/b12-c06-data; mkdir -p $D
python3 -c "
import torch
for i in range(12):
    x=torch.randn(256,64,generator=torch.Generator().manual_seed(i)); torch.save({'x':x,'y':x[:,:10].argmax(1)}, '$D/shard-%05d-of-00012.pt'%i)"
rec "created 12 shards in $D"
TR="torchrun --nnodes=1 --nproc-per-node=3 --rdzv-backend=c10d --rdzv-endpoint=node-c:29516 --rdzv-id=w2v-17"
ARGS="$T --style gensim --epochs 4 --steps 300 --step-sleep 0.15 --data-dir $D --pg-timeout 120"
rec "start node-c"; A=$(node node-c $H $C/logs $TR --log-dir $C/logs --tee 3 $ARGS)
sleep 40; rm -f $D/shard-00004-of-00012.pt; rec "deleted $D/shard-00004-of-00012.pt (read by rank 1: files[rank::3])"
for i in $(seq 150); do [ $(alive $A) = n ] && break; sleep 1; done
rec "after wait: A=$(alive $A)"; [ $(alive $A) = y ] && { rec "cleanup kill"; kill -KILL $(kids $A) $A; }
wait; rm -rf /tmp/b12-c06-data; rec "end"
