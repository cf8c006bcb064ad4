#!/bin/bash
# run-02: rich console trainer, 3 nodes x 1 rank; node-b (agent + its worker) SIGKILLed from outside (lost node)
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-02; REC=$SRC/inject-records/c02.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c02; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2 node-c 127.0.10.3
export STYLE=rich STEPS=400 STEP_SLEEP=0.25 TRAIN_DIST_TIMEOUT=60 COLUMNS=120
TR="torchrun --nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29512 --rdzv-id=job-c02 --max-restarts=0 --tee 3"
declare -A P
for n in a b c; do P[$n]=$(start_node node-$n $H $C/logs/node-$n/console.log "" $TR --log-dir $C/logs/node-$n/torchelastic $SRC/trainer.py); done
rec "started agents node-a=${P[a]} node-b=${P[b]} node-c=${P[c]}"
sleep 40
W=$(children ${P[b]}); rec "SIGKILL node-b agent pid=${P[b]} and its worker pid(s)=$W ($(tr '\0' '\n' < /proc/$W/environ | grep -E '^RANK='))"
kill -9 ${P[b]} $W
for i in $(seq 1 30); do sleep 5; kill -0 ${P[a]} 2>/dev/null || kill -0 ${P[c]} 2>/dev/null || break; done
for p in ${P[a]} ${P[c]}; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
wait; rec "done"
