#!/bin/bash
# run-03: ESPnet-style trainer log, 3 nodes x 1 worker, two consecutive jobs on the same
# exp dir: job 1 with conf/train_mlp_h256.yaml (max_epoch 10) finishes; job 2 is launched
# with --resume true and conf/train_mlp_h384.yaml (same exp dir). Layout: per job, per node
# torchrun --log-dir tree with --tee 3 (logs/jobN/<host>/console.log + logs/jobN/<host>/torchelastic/...).
# Injected from outside: the config change between job 1 and job 2 (nothing else).
source "$(dirname "$0")/lib9.sh"
C=$B9/run-03; W=$SCR/c03; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/exp/asr_mlp_cls
mkhosts $W/hosts espnet-n01 espnet-n02 espnet-n03
job() {
  for h in espnet-n01 espnet-n02 espnet-n03; do mkdir -p $C/logs/job$1/$h
    node $h $W/hosts "--style none --out $C/logs/job$1/$h/console.log" "cd $SRC" \
      torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint espnet-n01:29903 --rdzv-id espnet-cls-$1 \
        --log-dir $C/logs/job$1/$h/torchelastic --tee 3 \
        $SRC/espnet_like.py --config conf/$2 --output_dir $W/exp/asr_mlp_cls --train_data_path $SCR/data --resume true
    sleep 1
  done; wait; sleep 1
}
note "job 1 start (conf/train_mlp_h256.yaml)"; job 1 train_mlp_h256.yaml; note "job 1 end"; ls -l $W/exp/asr_mlp_cls >> $INJ
sleep 2
note "job 2 start (conf/train_mlp_h384.yaml, --resume true)"; job 2 train_mlp_h384.yaml; note "job 2 end"; ls -l $W/exp/asr_mlp_cls >> $INJ
