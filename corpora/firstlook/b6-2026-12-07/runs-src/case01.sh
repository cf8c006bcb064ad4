#!/bin/bash
# run-01: HF-Trainer-style LM run, 2 nodes x 2 workers, torchrun --log-dir tree with --tee 3.
# Fault: on gpu-node-08 the node-local data cache file shard-00007.jsonl is a
# FIFO with no writer (stands in for a stuck network-filesystem read): the rank
# that opens it blocks forever in open(); the others wait in the DDP all-reduce.
source "$(dirname "$0")/common.sh"
C=$B6/run-01; W=$WORK/c01
rm -rf $C/logs $W; mkdir -p $C/logs $W
write_hosts $W/hosts gpu-node-07 gpu-node-08
for h in gpu-node-07 gpu-node-08; do
  mkdir -p $W/$h/data $W/$h/ckpt $C/logs/$h
  cp $WORK/shards/*.jsonl $W/$h/data/
done
# injection (before launch): node-08's cached copy of shard-00007 replaced by a fifo
rm $W/gpu-node-08/data/shard-00007.jsonl; mkfifo $W/gpu-node-08/data/shard-00007.jsonl
echo "$(stamp) injected fifo at gpu-node-08:/data/shard-00007.jsonl" >> $W/inject.txt
for h in gpu-node-07 gpu-node-08; do
  start_node $h $W/hosts $C/logs/$h/agent-console.log \
    "mount --bind $W/$h/data /mnt; mkdir -p /tmp/d; " -- \
    $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint gpu-node-07:29611 \
      --rdzv-id lm-ft-0612 --max-restarts 0 --log-dir $C/logs/$h/torchelastic --tee 3 \
      $SRC/hf_style.py --data_dir /mnt --output_dir $W/$h/ckpt/lm-ft-0612 \
      --max_steps 600 --save_steps 100 --logging_steps 10 --ddp_timeout 90 > $W/$h.pid
  sleep 2
done
wait
echo "$(stamp) all agents exited" >> $W/inject.txt
