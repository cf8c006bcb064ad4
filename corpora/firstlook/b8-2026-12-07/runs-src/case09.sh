#!/bin/bash
# run-09: plain-logging trainer, single node x 2 workers, Slurm batch output file
# (logs/slurm-88120.out). Injected from outside: the job shell sets `ulimit -f 4096`
# (RLIMIT_FSIZE 4 MiB) before torchrun; the first full checkpoint is larger than that.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-09; W=$SCR/c09; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/out
mkhosts $W/hosts hpc-c12
node hpc-c12 $W/hosts "--style none --out $C/logs/slurm-88120.out" "cd $W; ulimit -f 4096" \
  torchrun --standalone --nnodes 1 --nproc-per-node 2 \
    $SRC/plain_trainer.py --data $SCR/data --out $W/out --steps 1500 --ckpt-every 1000 >/dev/null
note "launched with ulimit -f 4096"; wait; note "agent exited"; ls -l $W/out >> $INJ
