#!/bin/bash
# case 06: 2 nodes x 2 ranks, DLRM-like console, --max-restarts=2. The trainer memory-maps every shard it touches
# and keeps the maps open (one fd each); 512 small shards per node-local copy (/mnt/b17data).
# Injection: node-b's agent is started with `ulimit -n 128` (soft+hard) inside its namespace, inherited by its workers.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-06; T=$TMPB/c06; REC=$SRC/inject-records/c06.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data-a 512 1024 >/dev/null; cp -a $T/data-a $T/data-b
export STYLE=dlrm STEPS=600 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=/mnt/b17data DATA_MODE=mmapcache PG_TIMEOUT=120 LOG_EVERY=20 BATCH=128
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29176 --rdzv-id=dlrm-tb-0356 --max-restarts=2 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "mount --bind $T/data-a /mnt/b17data" $ARGS --log-dir=$C/logs/torchelastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "mount --bind $T/data-b /mnt/b17data; ulimit -n 128" $ARGS --log-dir=$C/logs/torchelastic-node-b $SRC/trainer.py
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b); node-b agent runs with ulimit -n 128 (/proc limits: $(grep 'open files' /proc/$(apid node-b)/limits | tr -s ' '))"
waitagents 175 node-a node-b || rec "agents still alive after 175s"
rec "done"
