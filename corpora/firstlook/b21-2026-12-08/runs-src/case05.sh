#!/bin/bash
# case 05: 2 nodes x 2 ranks (world 4), avalanche-like console (each epoch's part is an "experience"), per-node consoles
# (--tee 3) + --log-dir. After experience 1 has started, feat-00023.npy (read by global rank 3 = node-b LOCAL_RANK 1 at
# experience 5) is rewritten in place with +inf in 16 of its 512 rows. The trainer stops on a non-finite loss.
source /work/staging/b21/runs-src/lib.sh
setup 05; mkhosts $T/hosts node-a node-b; mkdata feat $T/data 32 512
mkdir -p $C/logs/node-a $C/logs/node-b
export STYLE=avalanche STEPS=1000 EVAL_EVERY=100000 EVAL_AT_EPOCH_END=1 SAVE_EVERY=128 STEP_SLEEP=0.08 PG_TIMEOUT=60 DATA_DIR=$T/data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29351 --rdzv-id=cl-stream-55 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "export CKPT_DIR=$T/ckpt-a" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b21.py
sleep 1
agent node-b $T/hosts $C/logs/node-b/console.log "export CKPT_DIR=$T/ckpt-b" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b21.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/node-a/console.log "Starting training on experience 1 " 120 || rec "experience 1 not seen"
python3 - $T/data/feat-00023.npy <<'PY'
import sys, numpy as np
a = np.load(sys.argv[1]); rows = np.random.default_rng(5).choice(len(a), 16, replace=False)
a[rows, 4] = np.inf
np.save(sys.argv[1], a)
print(sorted(rows.tolist()))
PY
rec "feat-00023.npy rewritten in place: column 4 set to +inf in 16 rows (after 'Starting training on experience 1' on node-a)"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "done"
