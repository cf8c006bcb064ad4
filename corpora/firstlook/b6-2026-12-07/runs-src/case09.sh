#!/bin/bash
# run-09: torchtitan-style byte-LM, 2 nodes x 2 workers, torchrun --log-dir with
# --redirects 3 (worker stdout/stderr only in the per-rank files) plus each
# agent's own console; per-node folders.
# Fault: ~40 s after launch, SIGKILL to the torchrun agent process (only the
# agent, not its workers) on compute-0-12, the node that hosts the c10d
# rendezvous store (rdzv endpoint compute-0-12:29691).
source "$(dirname "$0")/common.sh"
C=$B6/run-09; W=$WORK/c09
rm -rf $C/logs $W; mkdir -p $C/logs $W
write_hosts $W/hosts compute-0-12 compute-0-13
for h in compute-0-12 compute-0-13; do
  mkdir -p $C/logs/$h
  start_node $h $W/hosts $C/logs/$h/torchrun-agent.log "" -- \
    $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint compute-0-12:29691 \
      --rdzv-id pt-bytelm-091 --max-restarts 0 --log-dir $C/logs/$h/rank-logs --redirects 3 \
      $SRC/titan_style.py --job.dump_folder $W/outputs --training.dataset_path $WORK/text/corpus.jsonl \
      --training.steps 2000 --checkpoint.interval 50 --model.dim 128 --model.n_layers 2 \
      --comm.init_timeout_seconds 120 > $W/$h.pid
  sleep 2
done
sleep 40
AG=$(cat $W/compute-0-12.pid)
echo "$(stamp) SIGKILL -> torchrun agent pid $AG on compute-0-12 (workers left running)" >> $W/inject.txt
kill -KILL $AG
wait $(cat $W/compute-0-13.pid)
echo "$(stamp) compute-0-13 agent exited" >> $W/inject.txt
sleep 150
echo "$(stamp) remaining processes:" >> $W/inject.txt
ps -eo pid,etime,args | grep "[t]itan_style.py --job.dump_folder $W" >> $W/inject.txt
