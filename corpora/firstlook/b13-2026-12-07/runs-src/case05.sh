#!/bin/bash
# run-05: two consecutive jobs on 2 nodes x 2 procs, MONAI/ignite-like log, shared checkpoint dir
# /var/tmp/shared-ckpt/r05 (same path on both nodes, like an NFS mount). Between job 1 and job 2
# one checkpoint file is cut to half its size (truncate). Job 2 resumes.
source /work/staging/b13/runs-src/lib.sh
N=05; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/job-1 $C/logs/job-2; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
CK=/var/tmp/shared-ckpt/r05; rm -rf $CK; mkdir -p $CK
ARGS=(--style monai --epochs 4 --step-sleep 0.15 --log-every 10 --eval-every 20 --ckpt-dir $CK --ckpt-every 20 --pg-timeout 60)
rec "job 1: start node-a, node-b (2 procs each), --steps 80"
$SRC/node.sh node-a $H - $(TR $PORT ${ID}a 2 2 - "${ARGS[@]}" --steps 80) > $C/logs/job-1/node-a.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT ${ID}a 2 2 - "${ARGS[@]}" --steps 80) > $C/logs/job-1/node-b.log 2>&1 & PB=$!
wait $PA; rec "job 1 node-a agent exited rc=$?"; wait $PB; rec "job 1 node-b agent exited rc=$?"
rec "ckpt files: $(ls -l $CK | tail -n +2 | awk '{print $5, $9}' | tr '\n' ';')"
F=$CK/rank3.pt; S=$(stat -c %s $F); truncate -s $((S/2)) $F; rec "truncated $F from $S to $((S/2)) bytes"
sleep 3
rec "job 2: start node-a, node-b (2 procs each), --steps 160 --resume"
$SRC/node.sh node-a $H - $(TR $PORT ${ID}b 2 2 - "${ARGS[@]}" --steps 160 --resume) > $C/logs/job-2/node-a.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT ${ID}b 2 2 - "${ARGS[@]}" --steps 160 --resume) > $C/logs/job-2/node-b.log 2>&1 & PB=$!
wait $PA; rec "job 2 node-a agent exited rc=$?"; wait $PB; rec "job 2 node-b agent exited rc=$?"
rec "done"
