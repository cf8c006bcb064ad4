#!/bin/bash
# run-07: 3 nodes (node-a 2 procs, node-b 1, node-c 1), DeepSpeed-Chat-like log; all three agents
# write into ONE merged console (O_APPEND), torchrun line prefix "[default<global rank>]:"
# via TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE. node-c's /dev/shm is a 512 KiB tmpfs (mounted in its
# mount namespace before its agent starts). DataLoader workers: train 2, eval 2.
# (note after the run: the prefix template only applies to --tee/--redirects output, so this merged
# console carries no torchrun prefix; the setting had no visible effect.)
source /work/staging/b13/runs-src/lib.sh
N=07; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs; : > $REC; OUT=$C/logs/console.log; : > $OUT
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2 node-c=127.0.13.3
echo 'mount -t tmpfs -o size=512k shm /dev/shm' > /tmp/b13-r07-setup-c.sh
export TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE='[${role_name}${rank}]:'
ARGS=(--style dschat --steps 120 --step-sleep 0.2 --log-every 10 --eval-every 40 --eval-size 8192 --eval-batch 2048 --workers 2 --eval-workers 2 --pg-timeout 60)
rec "start node-a (2 procs), node-b (1), node-c (1, /dev/shm tmpfs size=512k); all consoles appended to one file"
$SRC/node.sh node-a $H - $(TR $PORT $ID 3 2 - "${ARGS[@]}") >> $OUT 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 3 1 - "${ARGS[@]}") >> $OUT 2>&1 & PB=$!
$SRC/node.sh node-c $H /tmp/b13-r07-setup-c.sh $(TR $PORT $ID 3 1 - "${ARGS[@]}") >> $OUT 2>&1 & PCC=$!
sleep 20; for r in 0 1 2 3; do P=$(rank_pid $r $ID) && rec "rank $r pid $P on $(pid_host $P)"; done
wait $PA; rec "node-a agent exited rc=$?"; wait $PB; rec "node-b agent exited rc=$?"; wait $PCC; rec "node-c agent exited rc=$?"
rec "done"
