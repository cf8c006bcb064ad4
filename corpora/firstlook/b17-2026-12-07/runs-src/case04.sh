#!/bin/bash
# case 04: 3 nodes x 1 rank, video-diffusion-like step log. Each node sees its dataset as /mnt/b17data/current,
# a symlink to a versioned local cache directory ($T/cache-X/clips-v3).
# Injection: ~32 s in, node-c's symlink target directory ($T/cache-c/clips-v3) is removed (symlink left dangling).
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-04; T=$TMPB/c04; REC=$SRC/inject-records/c04.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
for n in a b c; do mkdir -p $T/mnt-$n $T/cache-$n; python3 $SRC/mkshards.py $T/cache-$n/clips-v3 12 8192 >/dev/null; ln -s $T/cache-$n/clips-v3 $T/mnt-$n/current; done
export STYLE=vdm STEPS=900 STEP_SLEEP=0.1 DATA_DIR=/mnt/b17data/current DATA_MODE=load PG_TIMEOUT=120 LOG_EVERY=20
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29174 --rdzv-id=vdm-16f-64px-0204 --max-restarts=0 --tee=3"
for n in a b c; do
  agent node-$n $T/hosts $C/logs/node-$n.console.log "mount --bind $T/mnt-$n /mnt/b17data" $ARGS --log-dir=$C/logs/torchelastic-node-$n $SRC/trainer.py
done
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c)"
sleep 30
rm -rf $T/cache-c/clips-v3
rec "removed node-c $T/cache-c/clips-v3 (target of node-c /mnt/b17data/current symlink; reader global rank 2, pid $(wpid node-c 0))"
waitagents 150 node-a node-b node-c || rec "agents still alive after 150s"
rec "done"
