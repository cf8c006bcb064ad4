#!/bin/bash
# case 03: 3 nodes x 1 rank (world 3), hivemind-like console. Every node reads MODEL_CONFIG=$T/config/model.json;
# inside node-c's namespace a different model.json (hidden_size 96 instead of 64, as from an older image) is bind-mounted over it.
source /work/staging/b21/runs-src/lib.sh
setup 03; mkhosts $T/hosts node-a node-b node-c; mkdata text $T/data 12 256
mkdir -p $T/config $T/config-c
echo '{"hidden_size": 64, "num_heads": 4, "ffn_size": 256, "num_layers": 2}' > $T/config/model.json
echo '{"hidden_size": 96, "num_heads": 4, "ffn_size": 256, "num_layers": 2}' > $T/config-c/model.json
export STYLE=hivemind STEPS=300 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data RUN_NAME=lm-collab MODEL_CONFIG=$T/config/model.json
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29331 --rdzv-id=lmcollab-7c2e --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.log "export CKPT_DIR=$T/ckpt-a" $ARGS $SRC/train_b21.py
sleep 1
agent node-b $T/hosts $C/logs/node-b.log "export CKPT_DIR=$T/ckpt-b" $ARGS $SRC/train_b21.py
sleep 1
agent node-c $T/hosts $C/logs/node-c.log "mount --bind $T/config-c/model.json $T/config/model.json; export CKPT_DIR=$T/ckpt-c" $ARGS $SRC/train_b21.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c); node-c has $T/config-c/model.json (hidden_size 96) bind-mounted over $T/config/model.json"
waitagents 170 node-a node-b node-c || rec "agents still alive after 170s"
reap node-a node-b node-c; rec "done"
