#!/bin/bash
# run-02: 3 nodes (node-a 2 procs, node-b 1, node-c 1), PaddleDetection-like log;
# external fault: node-b's agent and its workers SIGKILLed right after its workers were spawned.
source /work/staging/b13/runs-src/lib.sh
N=02; C=$B13/run-$N; REC=$SRC/inject-records/c$N.txt; ID=b13r$N; PORT=296$N
rm -rf $C; mkdir -p $C/logs/node-a $C/logs/node-b $C/logs/node-c; : > $REC
H=/tmp/b13-hosts-$N; mkhosts $H node-a=127.0.13.1 node-b=127.0.13.2 node-c=127.0.13.3
ARGS=(--style ppdet --steps 150 --step-sleep 0.2 --log-every 10 --pg-timeout 60)
rec "start node-a (2 procs), node-b (1), node-c (1) agents, rdzv node-a:$PORT"
$SRC/node.sh node-a $H - $(TR $PORT $ID 3 2 $C/logs/node-a/elastic "${ARGS[@]}") > $C/logs/node-a/console.log 2>&1 & PA=$!
$SRC/node.sh node-b $H - $(TR $PORT $ID 3 1 $C/logs/node-b/elastic "${ARGS[@]}") > $C/logs/node-b/console.log 2>&1 & PB=$!
$SRC/node.sh node-c $H - $(TR $PORT $ID 3 1 $C/logs/node-c/elastic "${ARGS[@]}") > $C/logs/node-c/console.log 2>&1 & PC=$!
for i in $(seq 1 600); do P=$(for c in $(ps -o pid= --ppid $PB); do grep -q trainer.py /proc/$c/cmdline 2>/dev/null && echo $c; done | head -1); [ -n "$P" ] && break; sleep 0.1; done
R=$(tr "\0" "\n" < /proc/$P/environ | grep "^RANK=")
PIDS=$(tree_pids $PB | tr "\n" " ")
kill -9 $PIDS; rec "SIGKILL to node-b agent and all its processes (pids $PIDS; first worker pid $P $R)"
wait $PA; rec "node-a agent exited rc=$?"
wait $PC; rec "node-c agent exited rc=$?"
wait $PB; rec "node-b agent exited rc=$?"
rec "done"
