#!/bin/bash
# case 08: 2 nodes x 2 ranks, Coqui-trainer-like console, two jobs in one folder with a shared checkpoint dir.
# job1: lr 0.1 (SGD), 150 steps, checkpoints every 50. Between the jobs the config's lr was edited to 1.0; job2 resumes (RESUME=1) to 350 steps.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-08; T=$TMPB/c08; REC=$SRC/inject-records/c08.txt
rm -rf $C $T; mkdir -p $C/logs/job1 $C/logs/job2 $T/ckpt; : > $REC; mkhosts $T/hosts node-a node-b; mkdata $T/data 8
cat > $T/config.json <<'J'
{"max_steps": 150, "lr": 0.1, "optimizer": "sgd", "grad_clip": 0, "batch_size": 8, "seq_len": 64, "log_every": 10, "eval_every": 50, "save_every": 50, "seed": 54321}
J
export LOG_STYLE=coqui JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.05 PG_TIMEOUT=90 CKPT_DIR=/mnt/ckpt RUN_NAME=glowtts_bytes
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29188 --max-restarts=0 --tee=3"
for n in a b; do agent node-$n $T/hosts $C/logs/job1/node-$n.console.log "mount --bind $T/ckpt /mnt/ckpt" $ARGS --rdzv-id=tts-8801 --log-dir=$C/logs/job1/elastic-node-$n $SRC/trainer.py; done
rec "job1 started agents node-a $(apid node-a) node-b $(apid node-b), config lr 0.1 max_steps 150"
waitagents 120 node-a node-b || rec "job1 agents still alive after 120s"; reap node-a node-b
rec "job1 ended; checkpoints: $(ls $T/ckpt | tr '\n' ' ')"
sed -i 's/"max_steps": 150, "lr": 0.1,/"max_steps": 350, "lr": 1.0,/' $T/config.json
rec "config edited: $(cat $T/config.json)"
export RESUME=1
for n in a b; do agent node-$n $T/hosts $C/logs/job2/node-$n.console.log "mount --bind $T/ckpt /mnt/ckpt" $ARGS --rdzv-id=tts-8802 --log-dir=$C/logs/job2/elastic-node-$n $SRC/trainer.py; done
rec "job2 started agents node-a $(apid node-a) node-b $(apid node-b), RESUME=1"
waitagents 150 node-a node-b || rec "job2 agents still alive after 150s"; reap node-a node-b; rec "done"
