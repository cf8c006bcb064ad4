#!/bin/bash
# run-04: plain-print GPT trainer, 2 nodes x 2 workers, one file with srun --label
# style "N: " prefixes (N = node task id). Healthy run: nothing injected. The
# metrics sidecar (sink.py) on metrics-gw:9400 is started ~7 s after the job,
# so rank 0's first connection attempts are really refused. --amp makes the
# script use the deprecated torch.cuda.amp API (real FutureWarnings).
source "$(dirname "$0")/common.sh"
C=$B6/run-04; W=$WORK/c04
rm -rf $C/logs $W; mkdir -p $C/logs $W
write_hosts $W/hosts cn-r3-14 cn-r3-15
echo "127.0.1.40 metrics-gw" >> $W/hosts
i=0
for h in cn-r3-14 cn-r3-15; do
  start_node_pipe $h $W/hosts srun $i $C/logs/slurm-48213.out "" -- \
    $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint cn-r3-14:29641 \
      --rdzv-id 48213 --max-restarts 0 \
      $SRC/plain_train.py --data $WORK/tokens/train.bin --out_dir $W/out-gpt --max_iters 300 \
      --eval_interval 100 --log_interval 10 --metrics_addr metrics-gw:9400 --amp > $W/$h.pid
  i=$((i+1)); sleep 1
done
sleep 7
python3 $SRC/sink.py 127.0.1.40 9400 & SINK=$!
echo "$(stamp) metrics sidecar started (pid $SINK)" >> $W/inject.txt
wait $(cat $W/cn-r3-14.pid) $(cat $W/cn-r3-15.pid)
kill $SINK
echo "$(stamp) all agents exited" >> $W/inject.txt
