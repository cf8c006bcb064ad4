#!/bin/bash
# case 02: 2 nodes x 2 ranks, DLRM-like console. Each node reads its own local shard copy (/mnt/b17data), np.load per step.
# Injection: ~30 s in, node-a's part-00009.npy (read only by global rank 1 = node-a LOCAL_RANK=1) is replaced by a FIFO
# with no writer (open() blocks forever, like a stalled network mount). 25 s later a "hang detector" takes
# py-spy dumps of all four ranks (saved as logs/stack-dump-node-X.txt). Gloo timeout 60 s.
source /work/staging/b17/runs-src/lib.sh
C=/work/staging/b17/run-02; T=$TMPB/c02; REC=$SRC/inject-records/c02.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts
python3 $SRC/mkshards.py $T/data-a 16 8192 >/dev/null; cp -a $T/data-a $T/data-b
export STYLE=dlrm STEPS=900 EPOCHS=3 STEP_SLEEP=0.1 DATA_DIR=/mnt/b17data DATA_MODE=load PG_TIMEOUT=60 LOG_EVERY=25
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29172 --rdzv-id=dlrm-kaggle-4471 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "mount --bind $T/data-a /mnt/b17data" $ARGS --log-dir=$C/logs/torchelastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "mount --bind $T/data-b /mnt/b17data" $ARGS --log-dir=$C/logs/torchelastic-node-b $SRC/trainer.py
sleep 2; rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 28
rm -f $T/data-a/part-00009.npy; mkfifo $T/data-a/part-00009.npy
rec "node-a $T/data-a/part-00009.npy replaced by a FIFO without writer (reader: node-a LOCAL_RANK=1, global rank 1, pid $(wpid node-a 1))"
sleep 25
for n in node-a node-b; do for l in 0 1; do p=$(wpid $n $l)
  { echo "### py-spy dump --pid $p  ($n local_rank $l)  $(date -u +%Y-%m-%dT%H:%M:%SZ)"; py-spy dump --pid $p 2>&1; echo; } >> $C/logs/stack-dump-$n.txt
done; done
rec "py-spy dumps of 4 ranks taken -> logs/stack-dump-node-a.txt, stack-dump-node-b.txt"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
rec "done"
