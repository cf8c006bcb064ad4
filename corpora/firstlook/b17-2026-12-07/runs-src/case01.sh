#!/bin/bash
# case 01: 2 nodes x 2 ranks, swin-like logger. Each node reads its own local copy of the shards
# (bind-mounted at /mnt/b17data), memory-mapped and kept open by the trainer.
# Injection: ~35 s in, node-b's copy of part-00011.npy (read only by global rank 3) is truncated to 1/4.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-01; T=$TMPB/c01; REC=$SRC/inject-records/c01.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data-a 16 8192 >/dev/null; cp -a $T/data-a $T/data-b
export STYLE=swin STEPS=600 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=/mnt/b17data DATA_MODE=mmapcache PG_TIMEOUT=120 OUT_DIR=$T/out LOG_EVERY=20
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29171 --rdzv-id=ctr-swin-0117 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "mount --bind $T/data-a /mnt/b17data" $ARGS --log-dir=$C/logs/torchelastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "mount --bind $T/data-b /mnt/b17data" $ARGS --log-dir=$C/logs/torchelastic-node-b $SRC/trainer.py
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 33
W=$(wpid node-b 1); S=$(stat -c %s $T/data-b/part-00011.npy)
truncate -s $((S/4)) $T/data-b/part-00011.npy
rec "truncated node-b $T/data-b/part-00011.npy from $S to $((S/4)) bytes (mapped by node-b LOCAL_RANK=1 = global rank 3, pid $W)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
rec "done"
