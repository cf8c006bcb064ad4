#!/bin/bash
# run-06: 2 nodes (ip-10-0-1-21, ip-10-0-1-22) x 2 workers, tiny transformer LM with
# HF-Trainer-style logging, 150 steps, checkpoint every 50. Per-node folders: the agent
# console (--tee 3) and the torchrun --log-dir tree.
# Nothing is broken on purpose, but the run is noisy: deprecated torch.cpu.amp.autocast /
# clip_grad_norm names (--legacy_amp_api), the nested-tensor UserWarning of
# nn.TransformerEncoder, a --report_to metrics endpoint (127.0.0.1:9) that refuses
# connections (caught, retried 3x with tracebacks, then disabled), and an empty
# tokenizer cache file left by an earlier interrupted run (caught, rebuilt).
source "$(dirname "$0")/common.sh"
scratch case06 ip-10-0-1-21 ip-10-0-1-22
PORT=29506
mkdir -p $WORK/shared/out $WORK/shared/cache
: > $WORK/shared/cache/char_vocab.json
i=0
for h in ip-10-0-1-21 ip-10-0-1-22; do
  mkdir -p $WORK/$h
  ih=$([ $i = 0 ] && echo 1 || echo 0)
  run_node $h $WORK/agent_$i.pid \
    $PY -m torch.distributed.run --nnodes 2 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id lm-tiny-0917 --rdzv-conf is_host=$ih \
      --log-dir $WORK/$h/torchelastic --tee 3 \
      $SRC/lm_trainer.py --output_dir $WORK/shared/out --max_steps 150 --logging_steps 10 --save_steps 50 \
        --learning_rate 1e-3 --legacy_amp_api --report_to http://127.0.0.1:9/metrics \
        --tokenizer_cache $WORK/shared/cache/char_vocab.json \
    > $WORK/$h/launcher.log 2>&1 &
  i=$((i+1))
done
wait
echo "exit codes: see launcher.log tails"; tail -n 3 $WORK/*/launcher.log
OUT=$B4/run-06/logs
rm -rf $OUT; mkdir -p $OUT
for h in ip-10-0-1-21 ip-10-0-1-22; do cp -a $WORK/$h $OUT/$h; done
