#!/bin/bash
# case 06: 2 nodes x 2 ranks (world 4), PaddleOCR-like console (rank 0) + train.log; evaluation every 150 iterations runs the
# whole held-out slice of each rank in one batch (EVAL_CHUNK=0, 16384 rows x hidden 256).
# Injection: after node-a's console shows the first "cur metric" line, the address-space limit (RLIMIT_AS, soft and hard)
# of node-a's LOCAL_RANK=1 process (global rank 1) is set from outside with prlimit to its current VmSize + 8 MiB.
source /work/staging/b22/runs-src/lib.sh
setup 06; mkhosts $T/hosts node-a node-b; mkdata cls $T/data 16 512 1 65536
mkdir -p $C/logs/node-a $C/logs/node-b
export STYLE=ppocr STEPS=900 LOG_EVERY=10 EVAL_EVERY=150 SAVE_EVERY=100000 BATCH=16 EVAL_CHUNK=0 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=256
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29411 --rdzv-id=rec-svtr-0611 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "export CKPT_DIR=$T/output/rec_svtr OUT_DIR=$C/logs/node-a/output/rec_svtr LOG_FILE=$C/logs/node-a/output/rec_svtr/train.log" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b22.py
sleep 1
agent node-b $T/hosts $C/logs/node-b/console.log "export CKPT_DIR=$T/output-b/rec_svtr OUT_DIR=$C/logs/node-b/output/rec_svtr LOG_FILE=$C/logs/node-b/output/rec_svtr/train.log" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b22.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/node-a/console.log "ppocr INFO: cur metric" 170 || rec "first eval line not seen"
W=$(wpid node-a 1); VM=$(awk '/^VmSize/{print $2}' /proc/$W/status); L=$(( (VM + 8192) * 1024 ))
rec "node-a LOCAL_RANK=1 pid $W: VmSize ${VM} kB, VmRSS $(awk '/^VmRSS/{print $2}' /proc/$W/status) kB"
prlimit --pid $W --as=$L:$L; rec "prlimit --pid $W --as=$L:$L -> $(prlimit --pid $W --as -o SOFT,HARD --noheadings)"
waitagents 150 node-a node-b || rec "agents still alive after 150 s"
reap node-a node-b; rec "done"
