#!/bin/bash
# case 03: 2 nodes x 1 rank (world 2), BasicSR-like console + BasicSR-like log file (rank 0), two launches.
# models/ and training_states/ live on a shared checkpoint volume (a tmpfs mounted on the host at $T/ckpt, visible to both
# node namespaces), sized so that two saves fit and the third does not: size = 2*(net_g + state) + net_g + state/2.
# Launch 1: trains, saves at iter 200/400/600 (rank 0 writes).  Launch 2: same command with auto_resume (RESUME=1).
# Nothing is changed between the launches.
source /work/staging/b22/runs-src/lib.sh
setup 03; mkhosts $T/hosts node-a node-b; mkdata reg $T/data 8 1024 32
export STYLE=basicsr STEPS=900 LOG_EVERY=20 EVAL_EVERY=200 SAVE_EVERY=200 BATCH=16 STEP_SLEEP=0.06 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=512 EXP_NAME=train_MSRResNet_x4 YDIM=32
SZ=$(python3 - <<'PY'
import torch, io, torch.nn as nn
m = nn.Sequential(nn.Linear(32,512), nn.GELU(), nn.Linear(512,512), nn.GELU()); h = nn.Linear(512,32)
net = nn.ModuleDict({"body": m, "head": h}); o = torch.optim.Adam(net.parameters(), 1e-3)
net(torch.zeros(1,32)) if False else None
l = h(m(torch.randn(4,32))).sum(); l.backward(); o.step()
s = torch.optim.lr_scheduler.LambdaLR(o, lambda x: 1.0)
a, b = io.BytesIO(), io.BytesIO(); torch.save(net.state_dict(), a); torch.save({"epoch":0,"iter":0,"optimizers":[o.state_dict()],"schedulers":[s.state_dict()]}, b)
na, nb = len(a.getvalue()), len(b.getvalue()); print(na, nb, 2*(na+nb) + na + nb//2)
PY
)
set -- $SZ; TOT=$(( ($3 + 4095) / 4096 * 4 ))k
mkdir -p $T/ckpt; mount -t tmpfs -o size=$TOT tmpfs $T/ckpt
rec "checkpoint volume: tmpfs size=$TOT on $T/ckpt (measured net_g=$1 B, state=$2 B)"
ARGS="--nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-id=msrresnet-x4-0303 --max-restarts=0 --tee=3"
for L in 1 2; do
  D=$C/logs/launch-$L; mkdir -p $D/node-a $D/node-b
  [ $L = 2 ] && export RESUME=1
  TS=$(date +%Y%m%d_%H%M%S)
  agent node-a $T/hosts $D/node-a/console.log "export OUT_DIR=$D/node-a/experiments/$EXP_NAME CKPT_DIR=$T/ckpt LOG_FILE=$D/node-a/experiments/$EXP_NAME/train_${EXP_NAME}_$TS.log" $ARGS --rdzv-endpoint=node-a:2940$((2+L)) --log-dir=$D/node-a/elastic $SRC/train_b22.py
  sleep 1
  agent node-b $T/hosts $D/node-b/console.log "export OUT_DIR=$D/node-b/experiments/$EXP_NAME CKPT_DIR=$T/ckpt LOG_FILE=$D/node-b/experiments/$EXP_NAME/train_${EXP_NAME}_$TS.log" $ARGS --rdzv-endpoint=node-a:2940$((2+L)) --log-dir=$D/node-b/elastic $SRC/train_b22.py
  rec "launch $L: started agents node-a $(apid node-a) node-b $(apid node-b) (RESUME=${RESUME:-0})"
  waitagents 150 node-a node-b || rec "launch $L: agents still alive after 150 s"
  reap node-a node-b
  rec "launch $L ended; checkpoint volume: $(df -k --output=used,avail $T/ckpt | tail -1); files: $(cd $T/ckpt && find . -type f -printf '%p:%s ' | sort)"
  sleep 2
done
umount $T/ckpt; rec "tmpfs unmounted; done"
