#!/bin/bash
# case 06: 3 nodes x 1 rank, llm.c-like console. node-b's agent is started under `ulimit -t 25` (RLIMIT_CPU 25 s, soft=hard),
# as a login/PAM limit would impose; its worker inherits it.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-06; T=$TMPB/c06; REC=$SRC/inject-records/c06.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts node-a node-b node-c; mkdata $T/data 6
cat > $T/config.json <<'J'
{"max_steps": 1200, "lr": 0.0006, "warmup_steps": 100, "batch_size": 8, "seq_len": 64, "log_every": 50, "eval_every": 200, "save_every": 400, "seed": 1337}
J
export LOG_STYLE=llmc JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.05 PG_TIMEOUT=90 CKPT_DIR=$T/ckpt
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29186 --rdzv-id=gpt2-d2-0413 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "ulimit -t 25" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
agent node-c $T/hosts $C/logs/node-c.console.log "" $ARGS --log-dir=$C/logs/elastic-node-c $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) [$(grep 'Max cpu time' /proc/$(apid node-b)/limits | tr -s ' ')] node-c $(apid node-c)"
waitagents 175 node-a node-b node-c || rec "agents still alive after 175s"
reap node-a node-b node-c; rec "done"
