#!/bin/bash
# case 02: 2 nodes x 2 ranks, GPT-NeoX-like iteration summary (rank 0 prints); both node agents launched as by
# `mpirun --tag-output` (one torchrun per node), ONE merged console with [1,N]<stdout>/<stderr> tags.
# When iteration 300 is printed, every process of node-b (agent + both ranks) gets SIGKILL in one kill(1) call.
source /work/staging/b20/runs-src/lib.sh
setup 02; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 256
export STYLE=neox STEPS=700 LOG_EVERY=25 EVAL_EVERY=100 SAVE_EVERY=200 PG_TIMEOUT=90 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=neox-tiny
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29202 --rdzv-id=neox-tiny-5521 --max-restarts=0"
export OUTMODE=mpitag
LABEL=1,0 agent node-a $T/hosts $C/logs/mpirun-console.log "" $ARGS $SRC/train_b20.py
LABEL=1,1 agent node-b $T/hosts $C/logs/mpirun-console.log "" $ARGS $SRC/train_b20.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/mpirun-console.log "iteration      300/" 150 || rec "iteration 300 not seen"
A=$(apid node-b); P="$A $(desc $A | tr '\n' ' ')"; kill -KILL $P
rec "node-b: SIGKILL to agent + descendants in one kill call: $P"
waitagents 170 node-a || rec "node-a agent still alive after 170s"
reap node-a node-b; rec "done"
