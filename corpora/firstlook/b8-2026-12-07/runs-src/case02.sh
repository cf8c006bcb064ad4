#!/bin/bash
# NOTE (as run): P[..]=$(node ..) runs node() in a subshell, so the final `wait` returned at once
# (script exited ~3 s before the agents did); inject record c02 also holds two stray lines
# ("first global_step line", "kill -ABRT rank 1 pid ") from an aborted first attempt whose script was still alive.
# run-02: PaddleNLP-style Trainer logs, 3 nodes x 1 worker, kubectl logs --timestamps per pod
# (logs/<pod>.log). Injected from outside: kill -SIGABRT of the rank-1 worker (node 2) ~25 s
# after its first "global_step" line appeared on rank 0.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-02; W=$SCR/c02; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/out
mkhosts $W/hosts ernie-ft-worker-0 ernie-ft-worker-1 ernie-ft-worker-2
declare -A P
for h in ernie-ft-worker-0 ernie-ft-worker-1 ernie-ft-worker-2; do
  P[$h]=$(node $h $W/hosts "--style kubets --out $C/logs/$h.log" "cd $W" \
    torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint ernie-ft-worker-0:29802 --rdzv-id paddle-sft-7731 \
      $SRC/paddlenlp_like.py --data $SCR/data --output_dir $W/out --max_steps 1500 --save_steps 500 --eval_steps 250)
  sleep 1
done
note "launched"; wait_for_line $C/logs/ernie-ft-worker-0.log "global_step: 10," 120; note "first global_step line"
sleep 25
pid=$(rank_pid ${P[ernie-ft-worker-1]} 1); note "kill -ABRT rank 1 pid $pid"; kill -ABRT $pid
wait; note "all agents exited"
