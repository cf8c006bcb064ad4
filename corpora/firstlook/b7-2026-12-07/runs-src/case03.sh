#!/bin/bash
# run-03: OpenNMT-style trainer, 2 nodes x 2 workers, torchrun --log-dir tree with --tee 3,
# plus the agent console of each node. Injection from outside: starting ~20 s after launch a
# stats-poller sends SIGUSR1 to rank 3 (mt-node-2, local_rank 1) about every 0.7 s (the trainer
# logs its reader statistics on SIGUSR1) and stops once rank 3 stops answering. ~30 s after it
# stopped answering, py-spy dumps of all four workers are taken (kept in logs/py-spy/).
source "$(dirname "$0")/lib7.sh"
C=$B7/run-03; W=$SCR/c03; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs/py-spy $W/ckpt
mkhosts $W/hosts mt-node-1 mt-node-2
declare -A ROOT
for h in mt-node-1 mt-node-2; do
  mkdir -p $C/logs/$h
  ROOT[$h]=$(node $h $W/hosts $C/logs/$h/console.log "" \
    torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint mt-node-1:29703 \
      --rdzv-id onmt-enfr-3 --max-restarts 0 --log-dir $C/logs/$h/torchelastic --tee 3 \
      $SRC/onmt_like.py -config enfr_tiny.yaml -data_dir $SCR/data -save_model $W/ckpt/enfr \
      -train_steps 1500 -report_every 50 -save_checkpoint_steps 250 -timeout 90)
  sleep 1
done
sleep 20
P3=$(rank_pid ${ROOT[mt-node-2]} 3); note "rank 3 pid $P3"
OUT3=$(ls $C/logs/mt-node-2/torchelastic/*/attempt_0/1/stdout.log)
hung=0
for i in $(seq 1 120); do
  before=$(grep -c "reader stats" $OUT3)
  kill -USR1 $P3; note "SIGUSR1 -> rank 3 (pid $P3) #$i"
  sleep 0.7
  after=$(grep -c "reader stats" $OUT3)
  if [ "$after" = "$before" ]; then
    sleep 3; after=$(grep -c "reader stats" $OUT3)
    if [ "$after" = "$before" ]; then note "rank 3 stopped answering after signal #$i"; hung=1; break; fi
  fi
done
if [ $hung = 1 ]; then
  sleep 27
  for h in mt-node-1 mt-node-2; do for r in 0 1 2 3; do
    p=$(rank_pid ${ROOT[$h]} $r) || continue
    note "py-spy dump rank $r pid $p ($h)"
    py-spy dump --pid $p > $C/logs/py-spy/$h-rank$r-pid$p.txt 2>&1
  done; done
fi
wait
note "agents exited"
