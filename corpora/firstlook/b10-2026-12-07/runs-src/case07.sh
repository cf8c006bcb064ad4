#!/bin/bash
# run-07: GNN-style epoch trainer, 2 nodes x 1 rank, DataLoader with 2 workers per rank; /dev/shm on node-a replaced by a tiny tmpfs from outside mid-run
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-07; REC=$SRC/inject-records/c07.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c07; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
export STYLE=gnn STEPS=300 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=60 EPOCH_LEN=20 NUM_WORKERS=2
TR="torchrun --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29517 --rdzv-id=job-c07 --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/node-a/console.log "" $TR --log-dir $C/logs/node-a/torchelastic $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/node-b/console.log "" $TR --log-dir $C/logs/node-b/torchelastic $SRC/trainer.py)
rec "started agents node-a=$A node-b=$B"
sleep 35; nsenter -t $A -m mount -t tmpfs -o size=1m tmpfs /dev/shm; rec "mounted tmpfs size=1m over /dev/shm in node-a's mount namespace: $(nsenter -t $A -m df -h /dev/shm | tail -1)"
for i in $(seq 1 30); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
sleep 5; for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p still alive; SIGKILL"; kill -9 $p; }; done
wait; rec "done"
