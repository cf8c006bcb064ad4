#!/bin/bash
# run-04: verl-style PPO console, 2 nodes x 2 workers, merged console with srun --label
# prefixes ("0: " node 0, "1: " node 1). No outside injection: data filtering leaves an
# uneven number of prompts per rank; ranks with fewer batches reach their own
# total_training_steps first and exit 0. Process-group timeout 60 s.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-04; W=$SCR/c04; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt
mkhosts $W/hosts gpu-a17 gpu-a18
i=0
for h in gpu-a17 gpu-a18; do
  node $h $W/hosts "--style label --tag $i --out $C/logs/slurm-552310.out" "cd $W; export B8_PG_TIMEOUT=60" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint gpu-a17:29804 --rdzv-id 552310 \
      $SRC/verl_like.py --data $SCR/data --ckpt $W/ckpt --total_epochs 6 --save_freq 200 --test_freq 100 >/dev/null
  i=$((i+1)); sleep 1
done
note "launched"; wait; note "all agents exited"
