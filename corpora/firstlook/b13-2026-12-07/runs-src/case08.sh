#!/bin/bash
# run-08: 2 nodes x 2 procs, custom ISO-8601 logger; both agents append to ONE merged console,
# torchrun prefix (note after the run: no effect without --tee, console has no prefix). External event: SIGTERM sent at the same moment to both
# agents and all 4 worker processes (as a scheduler preempting the job would).
source /work/staging/b13/runs-src/lib.sh
N=08; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs; : > $REC; OUT=$C/logs/console.log; : > $OUT
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[${role_name}${rank}]:'
CK=/var/tmp/shared-ckpt/r08; rm -rf $CK; mkdir -p $CK
ARGS=(--style iso --steps 200 --step-sleep 0.2 --log-every 10 --eval-every 50 --ckpt-dir $CK --ckpt-every 50 --pg-timeout 60)
rec "start node-a, node-b (2 procs each), merged console"
$SRC/node.sh node-a $H - $(TR $PORT $ID 2 2 - "${ARGS[@]}") >> $OUT 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 2 2 - "${ARGS[@]}") >> $OUT 2>&1 & PB=$!
wait_for $OUT "step=60 " 150 || rec "step 60 not seen"
sleep 1.3
W=""; for r in 0 1 2 3; do W="$W $(rank_pid $r $ID)"; done
kill -TERM $PA $PB $W; rec "SIGTERM to agents $PA $PB and workers$W"
wait $PA; rec "node-a agent exited rc=$?"; wait $PB; rec "node-b agent exited rc=$?"
rec "done"
