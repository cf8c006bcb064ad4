#!/bin/bash
# case 09: 2 nodes x 2 ranks, video-diffusion-like step log, trainer constructs a (disabled) torch.cuda.amp.GradScaler.
# Both agents' output collected into ONE console as pdsh would ("node-x: " prefixes).
# Timing only: node-b's agent starts ~9 s before node-a (c10d store host), --rdzv-conf read_timeout=10.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-09; T=$TMPB/c09; REC=$SRC/inject-records/c09.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data 16 8192 >/dev/null
export STYLE=vdm STEPS=450 STEP_SLEEP=0.1 DATA_DIR=$T/data PG_TIMEOUT=120 LOG_EVERY=25 AMP_SCALER=1 CKPT_DIR=$T/ckpt SAVE_EVERY=150
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29179 --rdzv-id=vdm-ft-0311 --rdzv-conf=read_timeout=10 --max-restarts=0"
PREFIX="node-b: " agent node-b $T/hosts $C/logs/pdsh.out "" $ARGS $SRC/trainer.py
sleep 1; rec "started agent node-b $(apid node-b)"
sleep 8
PREFIX="node-a: " agent node-a $T/hosts $C/logs/pdsh.out "" $ARGS $SRC/trainer.py
sleep 1; rec "started agent node-a $(apid node-a) (c10d store host)"
waitagents 150 node-a node-b || { rec "agents still alive after 150s, SIGTERM to agents"; kill $(apid node-a) $(apid node-b); }
rec "done"
