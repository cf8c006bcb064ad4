#!/bin/bash
# case 08: 1 node x 3 ranks (world 3), Marian-like console; every rank writes its own checkpoint file (SAVE_MODE=rank).
# After 'Up. 40', `prlimit --fsize=524288` is applied from outside to the LOCAL_RANK=1 process only (its checkpoint file
# is ~1.2 MB). Console logs/train.log (--tee 3) + --log-dir logs/torchelastic.
source /work/staging/b21/runs-src/lib.sh
setup 08; mkhosts $T/hosts trn-07; mkdata text $T/data 12 256
export LOGLEVEL=INFO STYLE=marian STEPS=400 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 SAVE_MODE=rank STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data RUN_NAME=nmt-lite
ARGS="--nnodes=1 --nproc-per-node=3 --rdzv-backend=c10d --rdzv-endpoint=trn-07:29381 --rdzv-id=nmt-lite-3w --max-restarts=0 --tee=3"
agent trn-07 $T/hosts $C/logs/train.log "export CKPT_DIR=$T/model" $ARGS --log-dir=$C/logs/torchelastic $SRC/train_b21.py
rec "started agent trn-07 $(apid trn-07)"
waitlog $C/logs/train.log "Ep. [0-9]* : Up. 40 :" 150 || rec "Up. 40 not seen"
W=$(wpid trn-07 1); prlimit --pid $W --fsize=524288; rec "prlimit --pid $W --fsize=524288 (LOCAL_RANK=1, global rank 1): $(prlimit --pid $W --fsize | tail -1)"
waitagents 150 trn-07 || rec "agent alive after 150 s"
rec "files: $(ls -l $T/model/ 2>/dev/null | tr '\n' ' ')"
reap trn-07; rec "done"
