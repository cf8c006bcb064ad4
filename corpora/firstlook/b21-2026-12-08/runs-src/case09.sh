#!/bin/bash
# case 09: 2 nodes x 2 ranks (world 4), axolotl-like console, per-node consoles logs/worker-0.log (node-a) and
# logs/worker-1.log (node-b), --tee 3. OMP_NUM_THREADS left unset; train DataLoader with 3 workers per rank on this 2-CPU
# machine; on node-a LD_PRELOAD names a jemalloc library that is not installed. Nothing else injected.
source /work/staging/b21/runs-src/lib.sh
setup 09; mkhosts $T/hosts node-a node-b; mkdata text $T/data 16 256
unset OMP_NUM_THREADS
export STYLE=axolotl STEPS=400 LOG_EVERY=10 EVAL_EVERY=100 SAVE_EVERY=200 NUM_WORKERS=3 STEP_SLEEP=0.05 PG_TIMEOUT=120 DATA_DIR=$T/data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29391 --rdzv-id=sft-tiny-0090 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/worker-0.log "export LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 CKPT_DIR=$T/out-a" $ARGS $SRC/train_b21.py
sleep 1
agent node-b $T/hosts $C/logs/worker-1.log "export CKPT_DIR=$T/out-b" $ARGS $SRC/train_b21.py
rec "started agents node-a $(apid node-a) (LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2, file absent: $(ls /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 2>&1 | head -1)) node-b $(apid node-b); OMP_NUM_THREADS unset"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "done"
