#!/bin/bash
# case 07: 3 nodes x 1 rank, MaxText-like console. Each node reads /etc/b18job/config.json (bind-mounted per node copy);
# node-c's copy was cut short at 60% of its bytes (an interrupted sync) before the launch.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-07; T=$TMPB/c07; REC=$SRC/inject-records/c07.txt
rm -rf $C $T; mkdir -p $C/logs $T/etc; : > $REC; mkhosts $T/hosts node-a node-b node-c; mkdata $T/data 7
cat > $T/etc/config.json <<'J'
{
  "max_steps": 800,
  "lr": 0.0003,
  "warmup_steps": 100,
  "batch_size": 8,
  "seq_len": 64,
  "log_every": 25,
  "eval_every": 200,
  "save_every": 400,
  "seed": 7,
  "dim": 64
}
J
for n in a b c; do mkdir -p $T/etc-$n; cp $T/etc/config.json $T/etc-$n/; done
S=$(stat -c %s $T/etc-c/config.json); truncate -s $((S*6/10)) $T/etc-c/config.json
rec "node-c config.json truncated from $S to $((S*6/10)) bytes before launch"
mkdir -p /etc/b18job
export LOG_STYLE=maxtext JOB_CONFIG=/etc/b18job/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.08 PG_TIMEOUT=45 CKPT_DIR=$T/ckpt
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29187 --rdzv-id=maxtext-smoke-3n --max-restarts=0 --tee=3"
for n in a b c; do agent node-$n $T/hosts $C/logs/node-$n.console.log "mount --bind $T/etc-$n /etc/b18job" $ARGS --log-dir=$C/logs/elastic-node-$n $SRC/trainer.py; done
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c)"
waitagents 170 node-a node-b node-c || rec "agents still alive after 170s"
reap node-a node-b node-c; rmdir /etc/b18job; rec "done"
