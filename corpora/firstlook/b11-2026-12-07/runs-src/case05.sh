#!/bin/bash
# case 05: 2 nodes x 1 rank, MLPerf-style :::MLLOG trainer, shared checkpoint dir. Job 1 runs and finishes;
# between jobs rank1's latest checkpoint file is truncated to half size; job 2 resumes.
source /work/staging/b11/runs-src/lib.sh
C=/work/staging/b11/run-05; REC=$SRC/inject-records/c05.txt; : > $REC
H=/tmp/b11-c05-hosts; mkhosts $H node-a:127.0.11.1 node-b:127.0.11.2
rm -rf /tmp/b11-c05-ckpt/*
for j in 1 2; do
  D=$C/logs/submit-$j; mkdir -p $D
  ARGS="--nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:2940$((4+j)) --rdzv-id=mlp-33$j --max-restarts=0"
  T="$SRC/trainer.py --style mllog --steps $((j*100)) --ckpt-dir /tmp/b11-c05-ckpt --ckpt-every 50 --resume --sleep 0.02"
  node node-a $H "" $ARGS $T > $D/node-a.log 2>&1 &
  sleep 1
  node node-b $H "" $ARGS $T > $D/node-b.log 2>&1 &
  rec "job $j started"; wait; rec "job $j done"
  if [ $j = 1 ]; then F=$(readlink -f /tmp/b11-c05-ckpt/latest)/rank1.pt; S=$(stat -c %s $F); truncate -s $((S/2)) $F; rec "truncated $F from $S to $((S/2)) bytes"; sleep 5; fi
done
