#!/bin/bash
# run-09: print-with-wall-clock trainer, 3 nodes x 1 rank, consoles captured with RFC3339 timestamps (kubectl logs --timestamps style); node-c launched with a wrong rendezvous port
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-09; REC=$SRC/inject-records/c09.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c09; make_hosts $H node-a 127.0.10.1 node-b 127.0.10.2 node-c 127.0.10.3
export STYLE=wallclock STEPS=300 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=60
TR="torchrun --nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29519 --rdzv-id=job-c09 --rdzv-conf join_timeout=100 --max-restarts=0"
mkdir -p $C/logs/kubectl
A=$(start_node node-a $H $C/logs/kubectl/train-node-a.log "" $SRC/tsrun.sh $TR $SRC/trainer.py)
B=$(start_node node-b $H $C/logs/kubectl/train-node-b.log "" $SRC/tsrun.sh $TR $SRC/trainer.py)
sleep 4
Cc=$(start_node node-c $H $C/logs/kubectl/train-node-c.log "" $SRC/tsrun.sh ${TR/node-a:29519/node-a:29591} $SRC/trainer.py)
rec "started node-a=$A node-b=$B (hosts: node-a=127.0.10.1) and node-c=$Cc 4 s later with --rdzv-endpoint=node-a:29591 instead of node-a:29519 (nothing listens on 29591)"
for i in $(seq 1 34); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || kill -0 $Cc 2>/dev/null || break; done
for p in $A $B $Cc; do kill -0 $p 2>/dev/null && { rec "node process $p alive at deadline; SIGTERM"; kill -TERM $p; pkill -TERM -P $p; }; done
wait; rec "done"
