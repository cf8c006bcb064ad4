#!/bin/bash
# case 04: 3 nodes x 1 rank, DGL-distributed-like per-part console. Checkpoint dir is shared by all nodes (one host path).
# After the step-100 save, inside worker-2's mount namespace only, the checkpoint dir is bind-mounted onto itself and
# remounted read-only (nsenter from outside); worker-0/1 keep a writable view.
source /work/staging/b20/runs-src/lib.sh
setup 04; mkhosts $T/hosts worker-0 worker-1 worker-2; mkdata $T/data 12 256; mkdir -p $T/ckpt
export STYLE=dgl STEPS=500 LOG_EVERY=20 EVAL_EVERY=50 SAVE_EVERY=100 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=dgl-tok
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=worker-0:29204 --rdzv-id=dglx-2f90 --max-restarts=0 --tee=3"
for n in 0 1 2; do agent worker-$n $T/hosts $C/logs/worker-$n.log "" $ARGS --log-dir=$C/logs/worker-$n-elastic $SRC/train_b20.py; done
rec "started agents worker-0 $(apid worker-0) worker-1 $(apid worker-1) worker-2 $(apid worker-2)"
waitlog $C/logs/worker-2.log "saved model state to $T/ckpt/step_000100" 150 || rec "step-100 save line not seen"
A=$(apid worker-2)
nsenter --mount --target $A sh -c "mount --bind $T/ckpt $T/ckpt && mount -o remount,bind,ro $T/ckpt && grep ' $T/ckpt ' /proc/self/mountinfo" >> $REC 2>&1
rec "worker-2 (agent $A): $T/ckpt made a read-only bind mount inside its mount namespace only (line above = its mountinfo)"
waitagents 170 worker-0 worker-1 worker-2 || rec "agents still alive after 170s"
reap worker-0 worker-1 worker-2; rec "done"
