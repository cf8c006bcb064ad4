#!/bin/bash
# run-06: accelerate-no_trainer-style script (accelerator.print + tqdm), 2 nodes x 2 workers.
# Layout: `kubectl logs --timestamps` per pod (logs/<pod>.log).
# Injected from outside before launch: torchmetrics (+ lightning-utilities) is installed in
# a site dir that is on PYTHONPATH on node 1 (acc-ft-master-0) only; node 2's environment lacks it.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-06; W=$SCR/c06; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/out
mkhosts $W/hosts acc-ft-master-0 acc-ft-worker-0
note "PYTHONPATH=$SCR/site-node1 (torchmetrics 1.9.0, lightning-utilities 0.15.3) on acc-ft-master-0 only"
for h in acc-ft-master-0 acc-ft-worker-0; do
  pp=""; [ $h = acc-ft-master-0 ] && pp="export PYTHONPATH=$SCR/site-node1;"
  node $h $W/hosts "--style kubets --out $C/logs/$h.log" "cd $SRC; $pp" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint acc-ft-master-0:29906 --rdzv-id acc-ft-3391 \
      $SRC/accel_tqdm.py --train_dir $SCR/data --output_dir $W/out --num_train_epochs 8
  sleep 1
done
note "launched"; wait; sleep 1; note "all agents exited"; ls -lR $W/out >> $INJ
