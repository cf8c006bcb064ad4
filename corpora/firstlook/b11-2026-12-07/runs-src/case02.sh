#!/bin/bash
# case 02: 3 nodes x 1 rank, python-logging trainer, pod logs with kubectl-style timestamps; node-c (whole node: agent+worker) SIGKILLed
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-02; REC=$SRC/inject-records/c02.txt; : > $REC
H=/tmp/b11-c02-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2 node-c:127.0.11.3
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29402 --rdzv-id=ft-7781 --max-restarts=1 --rdzv-conf=join_timeout=45"
i=0; for n in node-a node-b node-c; do
  mkdir -p $C/logs/pods/ft-7781-worker-$i
  node $n $H "" $ARGS $SRC/trainer.py --style pylog --steps 800 --pg-timeout 60 2>&1 | python3 -u $SRC/rfc3339.py > $C/logs/pods/ft-7781-worker-$i/log.txt &
  i=$((i+1)); sleep 1
done
rec "started 3 agents"
sleep 35
AC=$(cat /tmp/b11-agentpid-node-c); ALL="$AC $(desc $AC)"
rec "SIGKILL whole node-c process tree (unshare/agent/worker): $ALL"
kill -9 $ALL
wait; rec "all done"
