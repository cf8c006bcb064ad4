#!/bin/bash
# case 03: 2 nodes x 2 ranks, run as uid 0 but without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (hardened container), BERT/DLLogger-like console.
# Both agents' output goes to ONE merged console (docker-compose style "node-x-1  | " prefixes).
# Each node saves checkpoints to its own local dir (/mnt/b17ckpt), every 100 steps.
# Injection: ~38 s in, node-b's checkpoint dir is chown'ed to 65534:65534 mode 0755 (the uid-0 job without DAC override loses write access).
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-03; T=$TMPB/c03; REC=$SRC/inject-records/c03.txt
rm -rf $C $T; mkdir -p $C/logs $T/ckpt-a $T/ckpt-b $T/home; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data 16 8192 >/dev/null
export STYLE=dll STEPS=900 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=$T/data PG_TIMEOUT=120 LOG_EVERY=25 CKPT_DIR=/mnt/b17ckpt SAVE_EVERY=100 CAPDROP=-dac_override,-dac_read_search
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29173 --rdzv-id=bert-pt-ph1-0093 --max-restarts=0"
PREFIX="node-a-1  | " agent node-a $T/hosts $C/logs/console.log "mount --bind $T/ckpt-a /mnt/b17ckpt" $ARGS $SRC/trainer.py
PREFIX="node-b-1  | " agent node-b $T/hosts $C/logs/console.log "mount --bind $T/ckpt-b /mnt/b17ckpt" $ARGS $SRC/trainer.py
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b) with bounding set minus dac_override,dac_read_search"
sleep 36
chown 65534:65534 $T/ckpt-b; chmod 0755 $T/ckpt-b
rec "node-b checkpoint dir $T/ckpt-b (mounted at /mnt/b17ckpt in node-b) chown 65534:65534 (nobody), chmod 0755; existing: $(ls $T/ckpt-b | tr '\n' ' ')"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
rec "done"
