#!/bin/bash
# run-02: torchrec-DLRM-style logging (INFO:root:...), 2 nodes x 2 workers, DataLoader
# with 2 persistent workers per rank. Layout: one merged driver log with Ray-style
# "(TorchTrainerWorker pid=<agent pid>, ip=<node ip>) " prefixes (logs/job-driver.log).
# Injected from outside: SIGKILL to one DataLoader worker process of rank 3 (node 2)
# ~8 s after the first "epoch 2 batch 20" line.
source "$(dirname "$0")/lib9.sh"
C=$B9/run-02; W=$SCR/c02; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt
mkhosts $W/hosts rec-w0 rec-w1
i=11
for h in rec-w0 rec-w1; do
  node $h $W/hosts "--style ray --ip 127.0.9.$i --out $C/logs/job-driver.log" "cd $SRC" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint rec-w0:29902 --rdzv-id dlrm-dense-55 \
      $SRC/recsys_like.py --in_memory_binary_criteo_path $SCR/data --epochs 20 --save_dir $W/ckpt
  i=$((i+1)); sleep 1
done
note "launched"; wait_for_line $C/logs/job-driver.log "epoch 2 batch 20 " 150; note "saw epoch 2 batch 20"
sleep 8
agent=$(cat $W/pid.rec-w1); r=$(rank_pid $agent 3)
wk=$(for c in $(ps -o pid= --ppid $r); do echo $c; done | head -1)
note "rank 3 pid $r; its DataLoader worker pids: $(ps -o pid= --ppid $r | tr '\n' ' '); kill -KILL $wk"
kill -KILL $wk
wait; sleep 1; note "all agents exited"; ls -l $W/ckpt >> $INJ
