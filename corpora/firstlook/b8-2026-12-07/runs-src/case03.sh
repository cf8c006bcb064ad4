#!/bin/bash
# run-03: Lightning-style console, 2 nodes x 2 workers, Kubernetes node log tree
# logs/pods/<ns>_<pod>_<uid>/trainer/0.log (CRI format). No outside injection: the run's
# hyper_parameters include a lambda, torch.save of the first checkpoint (after epoch 6, index 5) fails.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-03; W=$SCR/c03; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $W/root
mkhosts $W/hosts pl-job-master-0 pl-job-worker-0
for h in pl-job-master-0 pl-job-worker-0; do
  uid=$(python3 -c "import uuid;print(uuid.uuid4())"); d=$C/logs/pods/ml-train_${h}_$uid/trainer; mkdir -p $d
  node $h $W/hosts "--style cri --out $d/0.log" "cd $W" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint pl-job-master-0:29803 --rdzv-id pl-cls-20261207 \
      $SRC/lightning_like.py --data $SCR/data --default_root_dir $W/root --max_epochs 10 --every_n_epochs 6 >/dev/null
  sleep 1
done
note "launched"; wait; note "all agents exited"
