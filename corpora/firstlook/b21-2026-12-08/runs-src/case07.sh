#!/bin/bash
# case 07: 2 nodes x 2 ranks (world 4), detectron2-like colored console; train DataLoader 1 worker per rank (re-created
# every epoch), evaluation DataLoader 2 workers per rank (created at each evaluation, every 200 iterations).
# node-b's agent runs in pids-controller cgroup (v1) b21c07-nodeb; after node-a's console shows iteration 139,
# pids.max of that cgroup is set to its pids.current + 1.
source /work/staging/b21/runs-src/lib.sh
setup 07; mkhosts $T/hosts node-a node-b; mkdata feat $T/data 16 256
CG=/sys/fs/cgroup/pids/b21c07-nodeb; mkdir -p $CG
export STYLE=d2 STEPS=600 LOG_EVERY=20 EVAL_EVERY=200 SAVE_EVERY=200 NUM_WORKERS=1 EVAL_WORKERS=2 STEP_SLEEP=0.08 PG_TIMEOUT=60 DATA_DIR=$T/data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29371 --rdzv-id=d2cls-8812 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.log "export OUT_DIR=$C/logs/output/node-a CKPT_DIR=$T/ckpt-a" $ARGS $SRC/train_b21.py
sleep 1
agent node-b $T/hosts $C/logs/node-b.log "echo \$\$ > $CG/cgroup.procs; export OUT_DIR=$C/logs/output/node-b CKPT_DIR=$T/ckpt-b" $ARGS $SRC/train_b21.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) (node-b agent in $CG)"
waitlog $C/logs/node-a.log "iter: 139 " 150 || rec "iter 139 not seen"
CUR=$(cat $CG/pids.current); echo $((CUR + 1)) > $CG/pids.max
rec "pids.max of $CG set to $(cat $CG/pids.max) (pids.current was $CUR) after 'iter: 139' on node-a"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
rec "pids.events: $(cat $CG/pids.events 2>/dev/null | tr '\n' ' ')"
reap node-a node-b
for p in $(cat $CG/cgroup.procs); do kill -KILL $p; done; sleep 1; rmdir $CG; rec "done"
