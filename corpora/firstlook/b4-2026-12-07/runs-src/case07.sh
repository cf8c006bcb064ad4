#!/bin/bash
# run-07: single node (hostname dl-ws-03), 2 workers, tiny transformer LM with HF-Trainer-style
# logging; one merged console of both ranks via torchrun --tee 3 (console.log).
# Fault: optimizer set to SGD(momentum 0.9) at learning rate 1.2 with gradient clipping off
# (--max_grad_norm 0); the trainer's --halt_on_nonfinite_loss check raises once the
# all-reduced loss stops being finite.
source "$(dirname "$0")/common.sh"
scratch case07 dl-ws-03
mkdir -p $WORK/out
run_node dl-ws-03 $WORK/agent.pid \
  $PY -m torch.distributed.run --standalone --nproc-per-node 2 --tee 3 \
    $SRC/lm_trainer.py --output_dir $WORK/out --max_steps 300 --logging_steps 5 --save_steps 100 \
      --optim sgd --learning_rate 1.2 --warmup_steps 20 --max_grad_norm 0 --halt_on_nonfinite_loss \
  > $WORK/console.log 2>&1
OUT=$B4/run-07/logs
rm -rf $OUT; mkdir -p $OUT
cp $WORK/console.log $OUT/console.log
