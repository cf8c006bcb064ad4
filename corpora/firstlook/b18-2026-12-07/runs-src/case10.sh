#!/bin/bash
# case 10: 1 node x 4 ranks, Horovod-example-like console. Launched from a shell that had PYTHONDEVMODE=1 exported;
# config has amp=true and num_workers=3. Nothing injected.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-10; T=$TMPB/c10; REC=$SRC/inject-records/c10.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts node-a; mkdata $T/data 10
cat > $T/config.json <<'J'
{"max_steps": 300, "lr": 0.0005, "batch_size": 8, "seq_len": 64, "log_every": 20, "eval_every": 100, "save_every": 150, "amp": true, "num_workers": 3, "seed": 42}
J
export LOG_STYLE=hvd JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.05 PG_TIMEOUT=120 CKPT_DIR=$T/ckpt PYTHONDEVMODE=1
ARGS="--nnodes=1 --nproc-per-node=4 --rdzv-backend=c10d --rdzv-endpoint=node-a:29190 --rdzv-id=2291 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/console.log "" $ARGS --log-dir=$C/logs/elastic $SRC/trainer.py
rec "started agent node-a $(apid node-a) with PYTHONDEVMODE=1; nothing injected"
waitagents 170 node-a || rec "agent still alive after 170s"
reap node-a; rec "done"
