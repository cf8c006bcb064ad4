#!/bin/bash
# case 08: 3 nodes x 1 rank, ProgressMeter-like console, ONE merged console as a cloud log export shows it (RFC3339 timestamp +
# replica label workerpool0-0 / workerpool1-0 / workerpool1-1). ~t+30s every process of node-b (agent, rank, loader worker) is
# frozen with the cgroup-v1 freezer; thawed after the other two agents have exited.
source /work/staging/b19/runs-src/lib.sh
setup 08; mkhosts $T/hosts node-a node-b node-c; mkdata $T/data
export STYLE=progmeter STEPS=3000 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=200 PG_TIMEOUT=60 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29198 --rdzv-id=vtx-custom-08 --max-restarts=0 --tee=3"
OUTMODE=cloud LABEL=workerpool0-0 agent node-a $T/hosts $C/logs/job-console.log "" $ARGS $SRC/trainer.py
OUTMODE=cloud LABEL=workerpool1-0 agent node-b $T/hosts $C/logs/job-console.log "" $ARGS $SRC/trainer.py
OUTMODE=cloud LABEL=workerpool1-1 agent node-c $T/hosts $C/logs/job-console.log "" $ARGS $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c)"
sleep 30
CG=/sys/fs/cgroup/freezer/b19c08; mkdir -p $CG
P="$(apid node-b) $(desc $(apid node-b))"; for p in $P; do echo $p > $CG/cgroup.procs; done
echo FROZEN > $CG/freezer.state; sleep 1; rec "node-b pids $P -> $CG, freezer.state=$(cat $CG/freezer.state)"
waitagents 150 node-a node-c || rec "node-a/node-c agents still alive after 150s"
rec "node-a/node-c agents gone"; sleep 5
echo THAWED > $CG/freezer.state; rec "node-b thawed"
waitagents 40 node-b || rec "node-b agent still alive 40s after thaw"
reap node-a node-b node-c; for p in $(cat $CG/cgroup.procs); do echo $p > /sys/fs/cgroup/freezer/cgroup.procs; done; rmdir $CG; sleep 1; rec "done"
