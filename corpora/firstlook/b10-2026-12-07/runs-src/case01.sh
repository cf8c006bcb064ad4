#!/bin/bash
# run-01: jsonl trainer, 2 nodes x 2 ranks; one rank on node-b frozen with SIGSTOP from outside
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-01; REC=$SRC/inject-records/c01.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c01; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2
export STYLE=jsonl STEPS=400 STEP_SLEEP=0.25 TRAIN_DIST_TIMEOUT=60
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29511 --rdzv-id=job-c01 --max-restarts=0 --tee 3"
A=$(start_node node-a $H $C/logs/node-a/console.log "" $TR --log-dir $C/logs/node-a/torchelastic $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/node-b/console.log "" $TR --log-dir $C/logs/node-b/torchelastic $SRC/trainer.py)
rec "started agents node-a pid=$A node-b pid=$B"
sleep 35
W=$(children $B | sort -n | tail -1)
rec "SIGSTOP to node-b local worker pid=$W ($(tr '\0' ' ' < /proc/$W/environ | grep -o 'RANK=[0-9]*' | head -1))"
kill -STOP $W
for i in $(seq 1 30); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; 
  if ! kill -0 $A 2>/dev/null && ! kill -0 $B 2>/dev/null; then break; fi; done
for p in $A $B; do if kill -0 $p 2>/dev/null; then rec "agent pid=$p still alive at deadline; SIGTERM (hang detector)"; kill -TERM $p; fi; done
sleep 10; kill -CONT $W 2>/dev/null; for p in $A $B $W; do kill -0 $p 2>/dev/null && { rec "SIGKILL leftover $p"; kill -9 $p; }; done
wait; rec "done"
