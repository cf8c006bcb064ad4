#!/bin/bash
# run-06: plain-print GPT trainer reading a node-local np.memmap token file,
# 2 nodes x 2 workers; per-node console folders shipped as one .tar.gz.
# Fault: ~35 s after launch a dataset-refresh job on ip-10-0-3-18 rewrites that
# node's local copy /mnt/nvme/train.bin in place (truncate to 0, then write 1 MB
# of the new version); the trainer's existing memmap of the 4 MB file now
# points past EOF.
source "$(dirname "$0")/common.sh"
C=$B6/run-06; W=$WORK/c06
rm -rf $C/logs $W; mkdir -p $C/logs $W/collect
write_hosts $W/hosts ip-10-0-3-17 ip-10-0-3-18
for h in ip-10-0-3-17 ip-10-0-3-18; do
  mkdir -p $W/$h/nvme $W/collect/$h; cp $WORK/tokens/train.bin $W/$h/nvme/
  start_node $h $W/hosts $W/collect/$h/stdout.log "mount --bind $W/$h/nvme /mnt;" -- \
    $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint ip-10-0-3-17:29661 \
      --rdzv-id job-7741 --max-restarts 0 \
      $SRC/plain_train.py --data /mnt/train.bin --out_dir $W/shared/out --max_iters 400 \
      --eval_interval 100 --log_interval 10 > $W/$h.pid
  sleep 1
done
sleep 35
echo "$(stamp) in-place rewrite of ip-10-0-3-18:/mnt/nvme/train.bin (truncate 0, write 1000000 bytes)" >> $W/inject.txt
truncate -s 0 $W/ip-10-0-3-18/nvme/train.bin
head -c 1000000 $WORK/tokens/train.bin > $W/ip-10-0-3-18/nvme/train.bin.new
cat $W/ip-10-0-3-18/nvme/train.bin.new >> $W/ip-10-0-3-18/nvme/train.bin; rm $W/ip-10-0-3-18/nvme/train.bin.new
wait $(cat $W/ip-10-0-3-17.pid) $(cat $W/ip-10-0-3-18.pid)
echo "$(stamp) all agents exited" >> $W/inject.txt
sleep 1
tar -C $W/collect -czf $C/logs/job-7741-node-logs.tar.gz ip-10-0-3-17 ip-10-0-3-18
