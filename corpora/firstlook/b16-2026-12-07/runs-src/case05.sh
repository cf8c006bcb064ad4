#!/bin/bash
# case 05: two jobs in a row, same log folder. 2 nodes x 1 rank, t5x-like gin summary + step log,
# each node reads its own local copy of a sharded dataset (index.json + shard-*.bin).
# Between job 1 (finishes, saves checkpoint) and job 2 (resume), node-b's local index.json is
# replaced by a partial copy (first 300 bytes), as an interrupted re-sync would leave it.
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-05; REC=$SRC/inject-records/c05.txt; T=$TMPB/c05
rm -rf $C $T; mkdir -p $C/logs $T/ckpt; : > $REC; mkhosts $T/hosts
python3 $SRC/mkdata.py $T/data-a 8 400; cp -a $T/data-a $T/data-b; rec "dataset copies $T/data-a (node-a) $T/data-b (node-b)"
export STYLE=t5x STEP_SLEEP=0.1 PG_TIMEOUT=60 OMP_NUM_THREADS=1 CKPT_DIR=$T/ckpt SAVE_EVERY=50
ARGS="--nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29515 --max-restarts=0 --tee=3 --log-dir=$C/logs/torchelastic"
for job in 1 2; do
  export STEPS=$((job*100))
  rec "job $job start STEPS=$STEPS"
  export DATA_DIR=$T/data-a; agent node-a $T/hosts $C/logs/node-a.console.log $ARGS --rdzv-id=b16c05j$job $SRC/trainer.py; A=$!
  export DATA_DIR=$T/data-b; agent node-b $T/hosts $C/logs/node-b.console.log $ARGS --rdzv-id=b16c05j$job $SRC/trainer.py; B=$!
  for i in $(seq 1 100); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
  kill -0 $A 2>/dev/null && { rec "node-a agent still running, SIGTERM"; kill $A; }
  kill -0 $B 2>/dev/null && { rec "node-b agent still running, SIGTERM"; kill $B; }
  wait $A; rec "job $job node-a agent exit $?"; wait $B; rec "job $job node-b agent exit $?"
  if [ $job = 1 ]; then
    head -c 300 $T/data-b/index.json > $T/idx.part && mv $T/idx.part $T/data-b/index.json
    rec "node-b $T/data-b/index.json replaced by its first 300 bytes"
  fi
done
rec done
