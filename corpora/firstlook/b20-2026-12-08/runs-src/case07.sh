#!/bin/bash
# case 07: 2 nodes x 2 ranks, PyG-Temporal-like console; both node agents run as by `pdsh -w node-a,node-b torchrun ...`,
# ONE merged console with "host: " prefixes. Each node has its own config dir (train.json -> _base_ base.json), bind-mounted
# on $T/conf; the trainer re-reads its config after every eval. ~30s in, node-b's base.json is rewritten from outside
# (a config sync) with "_base_": "train.json".
source /work/staging/b20/runs-src/lib.sh
setup 07; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 256; mkdir -p $T/conf
for n in a b; do mkdir -p $T/cfg-$n
  printf '{\n  "run_name": "pgt-tok",\n  "dim": 64,\n  "heads": 4,\n  "batch": 8,\n  "lr": 0.002,\n  "warmup": 20\n}\n' > $T/cfg-$n/base.json
  printf '{\n  "_base_": "base.json",\n  "steps": 700,\n  "log_every": 20,\n  "eval_every": 100,\n  "save_every": 200,\n  "reload_cfg": 1\n}\n' > $T/cfg-$n/train.json; done
export STYLE=pgt CONFIG=$T/conf/train.json PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29207 --rdzv-id=pgt-7a01 --max-restarts=0"
export OUTMODE=pdsh
LABEL=node-a agent node-a $T/hosts $C/logs/pdsh-console.log "mount --bind $T/cfg-a $T/conf" $ARGS $SRC/train_b20.py
LABEL=node-b agent node-b $T/hosts $C/logs/pdsh-console.log "mount --bind $T/cfg-b $T/conf" $ARGS $SRC/train_b20.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
sleep 30
printf '{\n  "_base_": "train.json",\n  "run_name": "pgt-tok",\n  "dim": 64,\n  "heads": 4,\n  "batch": 8,\n  "lr": 0.001,\n  "warmup": 20\n}\n' > $T/cfg-b/base.json.new && mv $T/cfg-b/base.json.new $T/cfg-b/base.json
rec "node-b's base.json replaced (atomic rename) with a version carrying \"_base_\": \"train.json\" and lr 0.001: $(tr -d '\n ' < $T/cfg-b/base.json)"
waitagents 150 node-a node-b || rec "agents still alive after 150s"
reap node-a node-b; rec "done"
