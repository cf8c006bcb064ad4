#!/bin/bash
# run-08: structlog key=value trainer, 2 nodes x 2 ranks; SIGTERM sent from outside to every agent and worker process at once (preemption / pod deletion), SIGKILL after 30 s grace
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-08; REC=$SRC/inject-records/c08.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c08; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
CK=/tmp/b10-c08-ckpt; rm -rf $CK
export STYLE=structlog STEPS=500 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=60 CKPT_DIR=$CK CKPT_EVERY=50
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29518 --rdzv-id=job-c08 --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/node-a/console.log "" $TR --log-dir $C/logs/node-a/torchelastic $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/node-b/console.log "" $TR --log-dir $C/logs/node-b/torchelastic $SRC/trainer.py)
rec "started agents node-a=$A node-b=$B"
sleep 45; ALL="$A $B $(children $A) $(children $B)"; rec "SIGTERM to all processes of both nodes: $ALL"; kill -TERM $ALL
sleep 30; for p in $ALL; do kill -0 $p 2>/dev/null && { rec "SIGKILL $p after grace"; kill -9 $p; }; done
wait; rec "done"; rm -rf $CK
