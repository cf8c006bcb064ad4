#!/bin/bash
# run-04: 2 nodes x 2 procs, torchrec-like per-rank log; each node has a node-local checkpoint dir
# /var/tmp/ckpt-local; on node-b it is a tmpfs of 6 MiB (mounted in node-b's mount namespace).
source /work/staging/b13/runs-src/lib.sh
N=04; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2
mkdir -p /var/tmp/ckpt-local /tmp/b13-r04-node-a-ckpt; rm -f /tmp/b13-r04-node-a-ckpt/*
echo 'mount --bind /tmp/b13-r04-node-a-ckpt /var/tmp/ckpt-local' > /tmp/b13-r04-setup-a.sh
echo 'mount -t tmpfs -o size=6m tmpfs /var/tmp/ckpt-local' > /tmp/b13-r04-setup-b.sh
ARGS=(--style torchrec --steps 150 --step-sleep 0.2 --log-every 10 --eval-every 50 --ckpt-dir /var/tmp/ckpt-local --ckpt-every 25 --ckpt-keep-all --pg-timeout 60)
rec "start node-a (ckpt dir bind of a disk dir), node-b (ckpt dir tmpfs size=6m), 2 procs each"
$SRC/node.sh node-a $H /tmp/b13-r04-setup-a.sh $(TR $PORT $ID 2 2 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
$SRC/node.sh node-b $H /tmp/b13-r04-setup-b.sh $(TR $PORT $ID 2 2 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
wait $PA; rec "node-a agent exited rc=$?"
wait $PB; rec "node-b agent exited rc=$?"
rec "node-a ckpt files: $(ls /tmp/b13-r04-node-a-ckpt | tr '\n' ' ')"
rec "done"
