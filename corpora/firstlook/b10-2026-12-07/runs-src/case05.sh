#!/bin/bash
# run-05: diffusers-style trainer, 2 nodes x 1 rank; job 1 trains + saves to a shared dir, then the newest checkpoint file is truncated from outside; job 2 resumes
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-05; REC=$SRC/inject-records/c05.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c05; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
CK=/tmp/b10-c05-output; rm -rf $CK; mkdir -p $CK
export STYLE=diffusers STEPS=90 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=60 EPOCH_LEN=30 CKPT_DIR=$CK CKPT_EVERY=30 HIDDEN=1024
TR="torchrun --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/job1/node-a.log "" $TR --rdzv-endpoint=node-a:29515 --rdzv-id=job-c05a --log-dir $C/logs/job1/torchelastic-node-a $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/job1/node-b.log "" $TR --rdzv-endpoint=node-a:29515 --rdzv-id=job-c05a --log-dir $C/logs/job1/torchelastic-node-b $SRC/trainer.py)
rec "job1 started node-a=$A node-b=$B"
while kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null; do sleep 2; done; rec "job1 finished; latest=$(cat $CK/latest); files: $(ls -l $CK/step_*/model.pt | awk '{print $5, $9}' | tr '\n' ';')"
F=$CK/step_000090/model.pt; S=$(stat -c %s $F); truncate -s $((S/2)) $F
rec "truncated $F from $S to $(stat -c %s $F) bytes"
sleep 3
export STEPS=180 RESUME=1
A=$(start_node node-a $H $C/logs/job2/node-a.log "" $TR --rdzv-endpoint=node-a:29525 --rdzv-id=job-c05b --log-dir $C/logs/job2/torchelastic-node-a $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/job2/node-b.log "" $TR --rdzv-endpoint=node-a:29525 --rdzv-id=job-c05b --log-dir $C/logs/job2/torchelastic-node-b $SRC/trainer.py)
rec "job2 (resume) started node-a=$A node-b=$B"
for i in $(seq 1 30); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
wait; rec "done"; rm -rf $CK
