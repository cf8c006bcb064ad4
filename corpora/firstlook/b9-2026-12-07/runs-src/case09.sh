#!/bin/bash
# run-09: PyTorch-Ignite-style console, 3 nodes x 1 worker. Layout: Kubernetes node log tree
# logs/pods/<ns>_<pod>_<uid>/trainer/0.log (CRI format), one pod per node.
# Injected from outside: SIGHUP to the torchrun agent process on node 2 (ign-train-worker-1)
# ~20 s after the first "Validation Results" line.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-09; W=$SCR/c09; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $W/out
mkhosts $W/hosts ign-train-master-0 ign-train-worker-0 ign-train-worker-1
for h in ign-train-master-0 ign-train-worker-0 ign-train-worker-1; do
  uid=$(python3 -c "import uuid;print(uuid.uuid4())"); d=$C/logs/pods/kubeflow_${h}_$uid/trainer; mkdir -p $d
  [ $h = ign-train-master-0 ] && M=$d/0.log
  node $h $W/hosts "--style cri --out $d/0.log" "cd $SRC" \
    torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint ign-train-master-0:29909 --rdzv-id ign-mlp-808 \
      $SRC/ignite_like.py --data $SCR/data --output-path $W/out --num-epochs 12
  sleep 1
done
note "launched"; wait_for_line $M "Validation Results - Epoch: 1 " 120; note "saw Validation Results epoch 1"
sleep 20; a=$(cat $W/pid.ign-train-worker-1); note "kill -HUP $a (torchrun agent on ign-train-worker-1)"; kill -HUP $a
wait; sleep 1; note "all agents exited"; ls -l $W/out >> $INJ
