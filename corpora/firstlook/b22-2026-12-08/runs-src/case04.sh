#!/bin/bash
# case 04: 2 nodes x 1 rank (world 2), tianshou-like policy-gradient console, two launches.
# Launch 1: after node-a's console shows the epoch-6 test line, SIGUSR1 is sent to both ranks (what a scheduler's
# `--signal=USR1@N` warning before a planned stop does); the trainer saves checkpoint.pth and exits 0.
# Launch 2: same command with RESUME=1 (loads checkpoint.pth) runs to the end.  Checkpoint dir shared by both nodes.
source /work/staging/b22/runs-src/lib.sh
setup 04; mkhosts $T/hosts node-a node-b; mkdata bandit $T/data 1 1
export STYLE=tianshou STEPS=600 STEPS_PER_EPOCH=50 LOG_EVERY=10 BATCH=32 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=128 LR=3e-3 CKPT_DIR=$T/log/bandit/pg
ARGS="--nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-id=pg-bandit-0404 --max-restarts=0 --tee=3"
for L in 1 2; do
  D=$C/logs/launch-$L; mkdir -p $D/node-a $D/node-b
  [ $L = 2 ] && export RESUME=1
  agent node-a $T/hosts $D/node-a/console.log "export OUT_DIR=$T/out-a" $ARGS --rdzv-endpoint=node-a:2940$((5+L)) --log-dir=$D/node-a/elastic $SRC/train_b22.py
  sleep 1
  agent node-b $T/hosts $D/node-b/console.log "export OUT_DIR=$T/out-b" $ARGS --rdzv-endpoint=node-a:2940$((5+L)) --log-dir=$D/node-b/elastic $SRC/train_b22.py
  rec "launch $L: started agents node-a $(apid node-a) node-b $(apid node-b) (RESUME=${RESUME:-0})"
  if [ $L = 1 ]; then
    waitlog $D/node-a/console.log "Epoch #6: test_reward" 150 || rec "epoch 6 test line not seen"
    A=$(wpid node-a 0); B=$(wpid node-b 0); kill -USR1 $A $B; rec "SIGUSR1 to rank pids $A (node-a) $B (node-b)"
  fi
  waitagents 150 node-a node-b || rec "launch $L: agents still alive after 150 s"
  reap node-a node-b; rec "launch $L ended; ckpt dir: $(ls -l --time-style=+%T $CKPT_DIR | tail -n +2 | tr '\n' ' ')"
  sleep 2
done
rec "done"
