#!/bin/bash
# case 02: 2 nodes x 2 ranks, csv-row trainer; node-b's torchrun --log-dir sits on a small tmpfs
# which another writer fills up from outside mid-run.
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-02; REC=$SRC/inject-records/c02.txt; T=$TMPB/c02
umount $T/nbl 2>/dev/null; rm -rf $C $T; mkdir -p $C/logs/node-a $C/logs/node-b $T/nbl; : > $REC; mkhosts $T/hosts
mount -t tmpfs -o size=2m tmpfs $T/nbl; rec "node-b log dir: tmpfs size=2m at $T/nbl"
export STYLE=csv STEPS=1500 STEP_SLEEP=0.02 PG_TIMEOUT=30 OMP_NUM_THREADS=1
RID=b16c02
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29512 --rdzv-id=$RID --max-restarts=0 --tee=3"
rec "start agents"
agent node-a $T/hosts $C/logs/node-a/console.log $ARGS --log-dir=$C/logs/node-a/torchelastic $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/node-b/console.log $ARGS --log-dir=$T/nbl/torchelastic $SRC/trainer.py; B=$!
sleep 15
rec "fill node-b log tmpfs: dd if=/dev/zero of=$T/nbl/.scratch bs=64k"
dd if=/dev/zero of=$T/nbl/.scratch bs=64k 2>>$REC; df -k $T/nbl >> $REC
for i in $(seq 1 90); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
kill -0 $A 2>/dev/null && rec "node-a agent still running at $(date +%T)"; kill -0 $B 2>/dev/null && rec "node-b agent still running"
kill $A $B 2>/dev/null; sleep 5; wait
rm -f $T/nbl/.scratch; cp -a $T/nbl/torchelastic $C/logs/node-b/ ; rec "copied node-b log dir (scratch file removed)"
umount $T/nbl; rec done
