#!/bin/bash
# run-06: 2 nodes x 2 procs, sentence-transformers-like log; data = 48 shard files in
# /var/tmp/sts-pairs-shards (each rank reads shards rank, rank+4, ...; DataLoader num_workers=1).
# External fault: one shard file (owned by rank 2) deleted while the job runs.
source /work/staging/b13/runs-src/lib.sh
N=06; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
D=/var/tmp/sts-pairs-shards; rm -rf $D; mkdir -p $D
python3 -c "
import torch
g=torch.Generator().manual_seed(5); w=torch.randn(128,10,generator=g)
for i in range(48):
    x=torch.randn(256,128,generator=g); torch.save({'x':x,'y':(x@w).argmax(1)}, '$D/shard-%05d.pt'%i)
"
rec "created 48 shards in $D"
ARGS=(--style sbert --steps 96 --step-sleep 0.25 --log-every 8 --eval-every 32 --data-dir $D --workers 1 --pg-timeout 60)
$SRC/node.sh node-a $H - $(TR $PORT $ID 2 2 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 2 2 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
rec "started node-a, node-b agents"
wait_for $C/logs/node-a/console.log "step 40/96 rank 0" 150 || rec "step 40 not seen"
P=$(rank_pid 2 $ID); rec "rank 2 pid $P on $(pid_host $P)"
rm -f $D/shard-00030.pt; rec "deleted $D/shard-00030.pt (8th shard of rank 2, read at its steps ~57-64)"
wait $PA; rec "node-a agent exited rc=$?"; wait $PB; rec "node-b agent exited rc=$?"
rec "done"
