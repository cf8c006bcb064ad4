#!/bin/bash
# run-03: Lightning-style image classifier, 2 nodes x 2 workers, DataLoader num_workers=2.
# Both nodes get a 64 MiB /dev/shm (the container-runtime default) in their mount namespace.
# Fault: ~35 s after launch, a co-located process on lit-worker-1 writes a 63 MiB
# file into that node's /dev/shm (nsenter into the node's mount namespace, dd).
source "$(dirname "$0")/common.sh"
C=$B6/run-03; W=$WORK/c03
rm -rf $C/logs $W; mkdir -p $C/logs $W
write_hosts $W/hosts lit-worker-0 lit-worker-1
for h in lit-worker-0 lit-worker-1; do
  mkdir -p $C/logs/$h
  start_node $h $W/hosts $C/logs/$h/console.log "mount -t tmpfs -o size=64m shm /dev/shm;" -- \
    $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint lit-worker-0:29631 \
      --rdzv-id cls-sweep-3 --max-restarts 0 \
      $SRC/lit_style.py --task image --data $WORK/images --default_root_dir $W/lightning_logs/version_0 \
      --max_epochs 12 --batch_size 32 --num_workers 2 > $W/$h.pid
  sleep 1
done
sleep 35
AG=$(cat $W/lit-worker-1.pid)
echo "$(stamp) dd 63MiB into lit-worker-1:/dev/shm/.psm_cache (agent pid $AG)" >> $W/inject.txt
nsenter --mount --target $AG dd if=/dev/zero of=/dev/shm/.psm_cache bs=1M count=63 2>> $W/inject.txt
nsenter --mount --target $AG df -h /dev/shm >> $W/inject.txt
wait
echo "$(stamp) all agents exited" >> $W/inject.txt
