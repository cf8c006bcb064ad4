#!/bin/bash
# run-01: 2 nodes x 2 ranks, flax/CLU-like step log; external fault: SIGSTOP one rank mid-run.
source /work/staging/b13/runs-src/lib.sh
N=01; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
ARGS=(--style flax --steps 150 --step-sleep 0.2 --log-every 10 --eval-every 50 --pg-timeout 60)
rec "start node-a, node-b agents (2 nodes x 2 procs, rdzv node-a:$PORT)"
$SRC/node.sh node-a $H - $(TR $PORT $ID 2 2 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 2 2 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
wait_for $C/logs/node-a/console.log "^\[default0\]:\[40\]" 120 || rec "step 40 not seen"
P=$(rank_pid 3 $ID); kill -STOP $P; rec "SIGSTOP to global rank 3 (node-b local_rank 1) pid $P"
wait $PA; rec "node-a agent exited rc=$?"
wait $PB; rec "node-b agent exited rc=$?"
kill -CONT $P 2>/dev/null; kill -9 $P 2>/dev/null && rec "leftover stopped pid $P killed"
rec "done"
