#!/bin/bash
# run-08: Hydra-job-logging-style trainer that writes outputs/<date>/<time>/rank{N}.log itself,
# 2 nodes x 2 workers. Layout: the run dir's rank logs (logs/outputs/...) plus each node's
# launcher console (logs/launcher/<host>.out).
# Injected from outside before launch: node 2's job environment has GLOO_SOCKET_IFNAME=ib0
# (no such interface on that machine); node 1 has no GLOO_* variable.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-08; W=$SCR/c08; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs/launcher $W
RUN=$C/logs/outputs/$(date +%Y-%m-%d)/$(date +%H-%M-%S)
mkhosts $W/hosts hyd-a100-1 hyd-a100-2
note "GLOO_SOCKET_IFNAME=ib0 exported on hyd-a100-2 only"
for h in hyd-a100-1 hyd-a100-2; do
  ex=""; [ $h = hyd-a100-2 ] && ex="export GLOO_SOCKET_IFNAME=ib0;"
  node $h $W/hosts "--style none --out $C/logs/launcher/$h.out" "cd $SRC; $ex" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint hyd-a100-1:29908 --rdzv-id hydra-cls-42 \
      $SRC/hydra_like.py data.root=$SCR/data run_dir=$RUN trainer.max_steps=1500
  sleep 1
done
note "launched"; wait; sleep 1; note "all agents exited"; ls -l $RUN >> $INJ
