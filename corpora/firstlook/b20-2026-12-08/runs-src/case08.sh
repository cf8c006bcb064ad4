#!/bin/bash
# case 08: 2 nodes x 2 ranks, GPT-NeoX-like console (rank 0 prints iterations). Each node's torchrun is started under
# `timeout --signal=SIGKILL 75` (a scheduler wall-time limit) with a step count that cannot finish in that time.
# Whatever is still running 25s after the limit is SIGKILLed (scheduler cleanup).
source /work/staging/b20/runs-src/lib.sh
setup 08; mkhosts $T/hosts trn-01 trn-02; mkdata $T/data 16 256
export STYLE=neox STEPS=3000 LOG_EVERY=25 EVAL_EVERY=250 SAVE_EVERY=250 PG_TIMEOUT=90 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=neox-tok-wt
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=trn-01:29208 --rdzv-id=neox-wt-3390 --max-restarts=0 --tee=3"
export WRAP="timeout --signal=SIGKILL 75"
agent trn-01 $T/hosts $C/logs/trn-01.log "" $ARGS --log-dir=$C/logs/trn-01 $SRC/train_b20.py
agent trn-02 $T/hosts $C/logs/trn-02.log "" $ARGS --log-dir=$C/logs/trn-02 $SRC/train_b20.py
rec "started (timeout --signal=SIGKILL 75 torchrun ...) trn-01 timeout pid $(apid trn-01) trn-02 timeout pid $(apid trn-02)"
sleep 40; for n in trn-01 trn-02; do rec "$n: processes under timeout: $(desc $(apid $n) | tr '\n' ' ')"; done
waitagents 60 trn-01 trn-02 || rec "timeout processes still alive"
rec "timeout(1) processes exited (SIGKILL to torchrun at 75s). ranks still alive: $(pgrep -f train_b20.py | tr '\n' ' ')"
sleep 25
L=$(pgrep -f train_b20.py | tr '\n' ' '); rec "cleanup: SIGKILL to remaining ranks: [$L]"; [ -n "$L" ] && kill -KILL $L
reap trn-01 trn-02; rec "done"
