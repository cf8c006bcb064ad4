#!/bin/bash
# case 10: 2 nodes x 2 ranks, BERT/DLLogger-like console; per-node consoles + torchelastic per-rank logs.
# Injection (environment): node-b runs with HOME=$T/home-b whose Python user site
# (~/.local/lib/python3.11/site-packages) holds a stale scipy 1.11.4 wheel (built against NumPy 1.x);
# node-a uses the system scipy. Image numpy is 2.4.6.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-10; T=$TMPB/c10; REC=$SRC/inject-records/c10.txt
rm -rf $C $T; mkdir -p $C/logs $T/home-a $T/home-b/.local/lib/python3.11/site-packages; : > $REC; mkhosts $T/hosts
cp -a /tmp/b17-sp111/scipy /tmp/b17-sp111/scipy-1.11.4.dist-info /tmp/b17-sp111/scipy.libs $T/home-b/.local/lib/python3.11/site-packages/ 2>/dev/null
python3 $SRC/mkshards.py $T/data 16 8192 >/dev/null
export STYLE=dll STEPS=450 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=$T/data PG_TIMEOUT=90 LOG_EVERY=25
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29180 --rdzv-id=bert-pt-ph1-0101 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "export HOME=$T/home-a" $ARGS --log-dir=$C/logs/torchelastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "export HOME=$T/home-b" $ARGS --log-dir=$C/logs/torchelastic-node-b $SRC/trainer.py
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b); node-b HOME=$T/home-b with user-site scipy 1.11.4 ($(ls $T/home-b/.local/lib/python3.11/site-packages | tr '\n' ' '))"
waitagents 170 node-a node-b || { rec "agents still alive after 170s, SIGTERM to agents"; kill $(apid node-a) $(apid node-b) 2>/dev/null; }
rec "done"
