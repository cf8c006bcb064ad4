#!/bin/bash
# run-10: open_clip-style trainer, 2 nodes x 2 ranks; 3 DataLoader workers per rank on a 2-core box, cuda GradScaler on CPU; node-b starts 15 s late
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-10; REC=$SRC/inject-records/c10.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c10; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
CK=/tmp/b10-c10-ckpt; rm -rf $CK
export STYLE=clip STEPS=180 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=120 EPOCH_LEN=60 NUM_WORKERS=3 AMP_SCALER=1 CKPT_DIR=$CK CKPT_EVERY=120
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29520 --rdzv-id=job-c10 --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/node-a/console.log "" $TR --log-dir $C/logs/node-a/torchelastic $SRC/trainer.py)
sleep 15
B=$(start_node node-b $H $C/logs/node-b/console.log "" $TR --log-dir $C/logs/node-b/torchelastic $SRC/trainer.py)
rec "started node-a=$A, node-b=$B 15 s later"
for i in $(seq 1 34); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
wait; rec "done; exit files: $(ls $CK)"; rm -rf $CK
