#!/bin/bash
# case 05: 2 nodes x 2 ranks, Horovod-example-like console; torchrun on each node launched as mpirun would with --tag-output:
# one merged file, stdout lines "[1,N]<stdout>:", stderr lines "[1,N]<stderr>:" (N = node index). ~40 s in: SIGINT to node-b's agent.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-05; T=$TMPB/c05; REC=$SRC/inject-records/c05.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts node-a node-b; mkdata $T/data 5
cat > $T/config.json <<'J'
{"max_steps": 700, "lr": 0.0005, "batch_size": 8, "seq_len": 64, "log_every": 20, "eval_every": 200, "save_every": 0, "seed": 42}
J
export LOG_STYLE=hvd JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.08 PG_TIMEOUT=90 CKPT_DIR=$T/ckpt
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29185 --rdzv-id=1507 --max-restarts=0"
export OUTMODE=mpitag
TAG=0 agent node-a $T/hosts $C/logs/mpirun.out "" $ARGS $SRC/trainer.py
TAG=1 agent node-b $T/hosts $C/logs/mpirun.out "" $ARGS $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 40
A=$(apid node-b); kill -INT $A
rec "SIGINT -> node-b torchrun agent pid $A (workers: $(desc $A | tr '\n' ' '))"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
reap node-a node-b; sleep 1; rec "done"
