#!/bin/bash
# run-05: NeMo/Lightning-style trainer, 2 nodes x 2 workers ("pods" nemo-gpt-worker-0/1), one
# merged file of both pods' consoles with kubectl logs --prefix style "[pod/<pod>/pytorch] ".
# Injection: the two pods are launched with different config overrides -- worker-0 with
# model.micro_batch_size=8, worker-1 with model.micro_batch_size=16 (everything else identical).
source "$(dirname "$0")/lib7.sh"
C=$B7/run-05; W=$SCR/c05; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W
mkhosts $W/hosts nemo-gpt-worker-0 nemo-gpt-worker-1
OUT=$C/logs/pytorchjob-nemo-gpt.log
declare -A MBS=([nemo-gpt-worker-0]=8 [nemo-gpt-worker-1]=16)
for h in nemo-gpt-worker-0 nemo-gpt-worker-1; do
  note "$h launched with model.micro_batch_size=${MBS[$h]}"
  node $h $W/hosts "|--style kube --tag $h/pytorch --out $OUT" "" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint nemo-gpt-worker-0:29705 \
      --rdzv-id nemo-gpt-5 --max-restarts 0 \
      $SRC/nemo_like.py --config-name megatron_gpt_tiny trainer.max_epochs=2 \
      model.micro_batch_size=${MBS[$h]} model.data.data_prefix=$SCR/data model.data.samples_per_rank=1600 \
      exp_manager.exp_dir=$W/nemo_exp >/dev/null
  sleep 1
done
wait_rdzv nemo-gpt-5
note "agents exited"
