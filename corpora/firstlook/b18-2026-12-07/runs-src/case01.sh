#!/bin/bash
# case 01: 2 nodes x 2 ranks (world 4), llm.c-like console. ~40 s in, node-b LOCAL_RANK=0 (global rank 2) gets SIGABRT from outside.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-01; T=$TMPB/c01; REC=$SRC/inject-records/c01.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts node-a node-b; mkdata $T/data
cat > $T/config.json <<'J'
{"max_steps": 700, "lr": 0.0006, "warmup_steps": 50, "batch_size": 8, "seq_len": 64, "log_every": 20, "eval_every": 100, "save_every": 200, "seed": 1337}
J
export LOG_STYLE=llmc JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.08 PG_TIMEOUT=90
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29181 --rdzv-id=gpt2-d2-0412 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "export CKPT_DIR=$T/ckpt-a" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "export CKPT_DIR=$T/ckpt-b" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 40
W=$(wpid node-b 0); kill -ABRT $W
rec "SIGABRT -> node-b LOCAL_RANK=0 (global rank 2) pid $W"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
reap node-a node-b; rec "done"
