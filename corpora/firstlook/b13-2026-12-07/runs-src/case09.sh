#!/bin/bash
# run-09: 3 nodes x 1 proc, speechbrain-like log. node-c's launch uses rendezvous port 29690
# while node-a/node-b use 29609 (node-c started with a different value of the endpoint port).
source /work/staging/b13/runs-src/lib.sh
N=09; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b $C/logs/node-c; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2 node-c=127.0.13.3
ARGS=(--style speechbrain --steps 90 --epochs 3 --step-sleep 0.2 --log-every 10 --eval-every 30 --pg-timeout 60)
rec "start node-a, node-b with rdzv node-a:$PORT; node-c with rdzv node-a:29690"
$SRC/node.sh node-a $H - $(TR $PORT $ID 3 1 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 3 1 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
$SRC/node.sh node-c $H - $(TR 29690 $ID 3 1 $C/logs/node-c/elastic "${ARGS[@]}") > $C/logs/node-c/console.log 2>&1 & PCC=$!
wait $PA; rec "node-a agent exited rc=$?"; wait $PB; rec "node-b agent exited rc=$?"; wait $PCC; rec "node-c agent exited rc=$?"
rec "done"
