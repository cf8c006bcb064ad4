#!/bin/bash
# run-07: Megatron-DeepSpeed-style console, elastic job --nnodes 2:3 --max-restarts 3,
# 2 workers per node. Nodes mds-gpu-01/02 start together; mds-gpu-03 is started ~25 s later.
# Layout: merged Slurm output with srun --label prefixes ("0: ", "1: ", "2: "), logs/slurm-771204.out.
# Injected from outside: only the late start of node 3. No failure expected.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-07; W=$SCR/c07; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt
mkhosts $W/hosts mds-gpu-01 mds-gpu-02 mds-gpu-03
start() {
  node $1 $W/hosts "--style label --tag $2 --out $C/logs/slurm-771204.out" "cd $SRC" \
    torchrun --nnodes 2:3 --nproc-per-node 2 --max-restarts 3 --rdzv-backend c10d --rdzv-endpoint mds-gpu-01:29907 --rdzv-id 771204 \
      $SRC/mds_like.py --data-path $SCR/data --save $W/ckpt --load $W/ckpt --train-iters 1200 --save-interval 100
}
start mds-gpu-01 0; sleep 1; start mds-gpu-02 1; note "nodes 0,1 launched"
wait_for_line $C/logs/slurm-771204.out "iteration +100/" 120; note "saw iteration 100"
sleep 12; start mds-gpu-03 2; note "node 2 (mds-gpu-03) launched"
wait; sleep 1; note "all agents exited"; ls -l $W/ckpt >> $INJ
