#!/bin/bash
# case 01: 2 nodes x 2 ranks (world 4), flashlight/wav2letter-like report lines printed by EVERY rank, ONE merged console
# logs/console.log written the way `kubectl logs --prefix -l job=...` collects pods: each node agent's stdout+stderr (--tee 3)
# goes through a FIFO to a per-node relay that appends "[pod/asr-fl-worker-N/pytorch] <line>".
# Injection: after node-b's rank reports nupdates 300, every process of node-b (agent + both ranks) gets SIGKILL at once
# (the whole node disappears).  gloo timeout 60 s.
source /work/staging/b22/runs-src/lib.sh
setup 01; mkhosts $T/hosts node-a node-b; mkdata cls $T/data 16 512
OUT=$C/logs/console.log
export OUTMODE=prefix STYLE=flashlight PRINT_RANKS=all STEPS=1500 LOG_EVERY=25 EVAL_EVERY=25 SAVE_EVERY=100000 BATCH=16 STEP_SLEEP=0.04 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=128
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29401 --rdzv-id=asr-fl-1208 --max-restarts=0 --tee=3"
PREFIX="[pod/asr-fl-worker-0/pytorch] " agent node-a $T/hosts $OUT "export OUT_DIR=$T/run-a CKPT_DIR=$T/ck-a" $ARGS --log-dir=$C/logs/worker-0/torchelastic $SRC/train_b22.py
sleep 1
PREFIX="[pod/asr-fl-worker-1/pytorch] " agent node-b $T/hosts $OUT "export OUT_DIR=$T/run-b CKPT_DIR=$T/ck-b" $ARGS --log-dir=$C/logs/worker-1/torchelastic $SRC/train_b22.py
rec "started agents node-a $(apid node-a) (relay $(rpid node-a)) node-b $(apid node-b) (relay $(rpid node-b))"
waitlog $OUT "worker-1/pytorch\] \[default[01]\]:epoch: .*nupdates: *300 " 170 || rec "nupdates 300 on node-b not seen"
A=$(apid node-b); P="$A $(desc $A | tr '\n' ' ')"; kill -KILL $P; rec "SIGKILL to all node-b processes: agent $A and descendants: $P"
waitagents 120 node-a || rec "node-a agent alive after 120 s"
reap node-a node-b; rm -f $TMPB/fifo-node-a $TMPB/fifo-node-b; rec "done"
