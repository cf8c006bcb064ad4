#!/bin/bash
# run-10: 2 nodes x 2 procs, flair-like log. node-b's agent is started 15 s before node-a's
# (the rendezvous store host). Trainer flags: --amp (torch.cuda.amp.GradScaler on a CPU box),
# --grad-accum 2, DataLoader num_workers=4 on a 2-core box, DDP find_unused_parameters=True.
source /work/staging/b13/runs-src/lib.sh
N=10; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
ARGS=(--style flair --steps 120 --epochs 3 --step-sleep 0.15 --log-every 10 --eval-every 40 --workers 4 --amp --grad-accum 2 --find-unused --pg-timeout 60)
rec "start node-b agent first"
$SRC/node.sh node-b $H - $(TR $PORT $ID 2 2 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
sleep 15
rec "start node-a agent"
$SRC/node.sh node-a $H - $(TR $PORT $ID 2 2 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
wait $PA; rec "node-a agent exited rc=$?"; wait $PB; rec "node-b agent exited rc=$?"
rec "done"
