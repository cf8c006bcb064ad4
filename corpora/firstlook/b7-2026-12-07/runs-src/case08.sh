#!/bin/bash
# run-08: DeepSpeed-flavoured fp16-style trainer, 2 nodes x 2 workers, healthy run (nothing
# injected). Each node's console plus its torchrun --log-dir tree (--tee 3) under
# <host>/, the whole thing delivered as one archive logs/job-ds-0812-logs.tar.gz.
source "$(dirname "$0")/lib7.sh"
C=$B7/run-08; W=$SCR/c08; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/collect
mkhosts $W/hosts ds-trn-001 ds-trn-002
for h in ds-trn-001 ds-trn-002; do
  mkdir -p $W/collect/$h
  node $h $W/hosts $W/collect/$h/console.log "" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint ds-trn-001:29708 \
      --rdzv-id ds-0812 --max-restarts 0 --log-dir $W/collect/$h/torchrun-logs --tee 3 \
      $SRC/ds_fp16_like.py --deepspeed_config $SRC/ds_config_08.json --data $SCR/data \
      --save_dir $W/ckpt --train_iters 300 >/dev/null
  sleep 1
done
wait_rdzv ds-0812
note "agents exited"
tar -C $W/collect -czf $C/logs/job-ds-0812-logs.tar.gz ds-trn-001 ds-trn-002
