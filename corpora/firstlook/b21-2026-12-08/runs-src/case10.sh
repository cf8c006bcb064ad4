#!/bin/bash
# case 10: 2 nodes x 2 ranks (world 4), axolotl-like console, tokenizing collate in 1 DataLoader worker per rank.
# Data prep: vocab.txt (v2, 514 entries) = specials + w000..w509; parts 12-15 (read at epoch 3) contain the new words
# w500..w509 in ~2% of positions. Inside node-b's namespace an older vocab (v1, same size 514: specials + w000..w499 +
# <reserved_0..9>) is bind-mounted over DATA_DIR/vocab.txt. Per-node consoles (--tee 3) + --log-dir trees.
source /work/staging/b21/runs-src/lib.sh
setup 10; mkhosts $T/hosts node-a node-b; mkdata text $T/data 16 512
python3 - $T/data $T/vocab-v1.txt <<'PY'
import sys, os, numpy as np
d, v1 = sys.argv[1], sys.argv[2]
sp = ["<pad>", "<s>", "</s>", "<unk>"]; base = ["w%03d" % i for i in range(500)]
open(os.path.join(d, "vocab.txt"), "w").write("\n".join(sp + base + ["w%03d" % i for i in range(500, 510)]) + "\n")
open(v1, "w").write("\n".join(sp + base + ["<reserved_%d>" % i for i in range(10)]) + "\n")
rng = np.random.default_rng(77)
for i in range(12, 16):
    p = os.path.join(d, "part-%05d.txt" % i); out = []
    for ln in open(p).read().splitlines():
        out.append(" ".join(("w%03d" % (500 + rng.integers(0, 10))) if rng.random() < 0.02 else w for w in ln.split()))
    open(p, "w").write("\n".join(out) + "\n")
PY
mkdir -p $C/logs
export STYLE=axolotl STEPS=600 LOG_EVERY=10 EVAL_EVERY=100 SAVE_EVERY=100 NUM_WORKERS=1 STEP_SLEEP=0.06 PG_TIMEOUT=60 DATA_DIR=$T/data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29301 --rdzv-id=sft-tiny-0217 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.log "export CKPT_DIR=$T/out-a" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/train_b21.py
sleep 1
agent node-b $T/hosts $C/logs/node-b.log "mount --bind $T/vocab-v1.txt $T/data/vocab.txt; export CKPT_DIR=$T/out-b" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/train_b21.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b); node-b has $T/vocab-v1.txt bind-mounted over $T/data/vocab.txt"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b; rec "done"
