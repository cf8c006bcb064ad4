#!/bin/bash
# run-04: MLflow-style console ("metric step=.. key=.. value=.."), single node x 2 workers.
# Layout: the pod's log as `kubectl logs --timestamps` output, shipped in
# logs/mlp-cls-trainer-logs.tar.gz (mlp-cls-trainer-0/trainer.log).
# Injected from outside: after rank 0 printed "metric step=200", rank 1 is attached with
# `strace -f -e trace=writev -e inject=writev:delay_enter=8000` (every writev of that
# process, i.e. its gloo sends, delayed 8 ms) until the job ends. No failure expected.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-04; W=$SCR/c04; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/art $W/collect/mlp-cls-trainer-0
mkhosts $W/hosts mlp-cls-trainer-0
L=$W/collect/mlp-cls-trainer-0/trainer.log
node mlp-cls-trainer-0 $W/hosts "--style kubets --out $L" "cd $SRC" \
  torchrun --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint mlp-cls-trainer-0:29904 --rdzv-id mlflow-run-771 \
    $SRC/mlflow_like.py --data $SCR/data --artifact-dir $W/art --max-steps 900 --ckpt-every 300
note "launched"; wait_for_line $L "metric step=200 " 120; note "saw metric step=200"
sleep 1; r=$(rank_pid $(cat $W/pid.mlp-cls-trainer-0) 1)
note "strace -f -p $r -e trace=writev -e inject=writev:delay_enter=8000 (rank 1)"
strace -f -p $r -e trace=writev -e inject=writev:delay_enter=8000 -o /dev/null &
wait; sleep 1; note "job end"; ls -l $W/art >> $INJ
tar -C $W/collect -czf $C/logs/mlp-cls-trainer-logs.tar.gz mlp-cls-trainer-0
