#!/bin/bash
# run-04: yolo-style epoch table trainer, 2 nodes x 2 ranks, node-local sharded checkpoints; node-b's checkpoint dir is a small tmpfs
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-04; REC=$SRC/inject-records/c04.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c04; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
CK=/tmp/b10-c04-ckpt; rm -rf $CK; mkdir -p $CK
export STYLE=yolo STEPS=300 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=60 EPOCH_LEN=30 CKPT_DIR=$CK CKPT_EVERY=30 SHARDED_CKPT=1 HIDDEN=1024
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29514 --rdzv-id=job-c04 --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/node-a/console.log "" $TR --log-dir $C/logs/node-a/torchelastic $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/node-b/console.log "mount -t tmpfs -o size=80m tmpfs $CK" $TR --log-dir $C/logs/node-b/torchelastic $SRC/trainer.py)
rec "started agents node-a=$A node-b=$B; node-b has tmpfs size=80m mounted on $CK (its private mount ns); node-a uses $CK on the root disk"
for i in $(seq 1 36); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
rec "node-b tmpfs at end: $(nsenter -t $B -m df -h $CK 2>/dev/null | tail -1)"
for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
wait; rec "done"; rm -rf $CK
