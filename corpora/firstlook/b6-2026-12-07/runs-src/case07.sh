#!/bin/bash
# run-07: HF-Trainer-style SFT, 2 nodes x 2 workers as "pods" sft-master-0 / sft-worker-0,
# merged console per attempt in `kubectl logs --prefix` form ([pod/NAME/pytorch] ).
# Attempt 1: max_steps 120, output_dir .../outputs/tinylm-sft-v2 (finishes).
# Attempt 2 (resubmitted to continue to 240 steps): --resume_from_checkpoint
#   .../outputs/tinylm-sft-v3/checkpoint-120 -- a folder attempt 1 never wrote.
source "$(dirname "$0")/common.sh"
C=$B6/run-07; W=$WORK/c07
rm -rf $C/logs $W; mkdir -p $C/logs $W/shared/outputs
write_hosts $W/hosts sft-master-0 sft-worker-0
launch() {  # $1 logfile, rest: extra trainer args
  local log=$1; shift
  for h in sft-master-0 sft-worker-0; do
    start_node_pipe $h $W/hosts kube "pod/$h/pytorch" $log "" -- \
      $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint sft-master-0:29671 \
        --rdzv-id tinylm-sft --max-restarts 0 \
        $SRC/hf_style.py --data_dir $WORK/shards --logging_steps 10 --save_steps 60 \
        --d_model 192 --n_layers 2 "$@" > $W/$h.pid
    sleep 1
  done
  wait $(cat $W/sft-master-0.pid) $(cat $W/sft-worker-0.pid)
}
launch $C/logs/attempt-1.log --output_dir $W/shared/outputs/tinylm-sft-v2 --max_steps 120
echo "$(stamp) attempt 1 ended" >> $W/inject.txt
sleep 5
echo "$(stamp) attempt 2 launched with resume path tinylm-sft-v3/checkpoint-120" >> $W/inject.txt
launch $C/logs/attempt-2.log --output_dir $W/shared/outputs/tinylm-sft-v3 --max_steps 240 \
  --resume_from_checkpoint $W/shared/outputs/tinylm-sft-v3/checkpoint-120
echo "$(stamp) attempt 2 ended" >> $W/inject.txt
