#!/bin/bash
# run-09: 3 nodes (cn0411-cn0413) x 2 workers, GRU trainer with JSON-lines logging and a
# SIGTERM handler (checkpoint at the next step boundary, exit 143). The three consoles
# are collected into one slurm-<jobid>.out the way `srun --label` writes it.
# Fault: once step 60 is logged, SIGTERM is sent from outside to every process of the
# job on every node at the same moment (the three torchrun agents and their six workers),
# as a scheduler does when it preempts/cancels a job. No SIGKILL follows from outside.
source "$(dirname "$0")/common.sh"
scratch case09 cn0411 cn0412 cn0413
PORT=29509
OUTF=$WORK/slurm-88120.out
mkdir -p $WORK/ckpt
i=0
for h in cn0411 cn0412 cn0413; do
  ih=$([ $i = 0 ] && echo 1 || echo 0)
  run_node $h $WORK/agent_$i.pid \
    $PY -m torch.distributed.run --nnodes 3 --nproc-per-node 2 \
      --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:$PORT --rdzv-id 88120 --rdzv-conf is_host=$ih \
      $SRC/jsonl_trainer.py --steps 2000 --batch 32 --ckpt $WORK/ckpt/gru.pt --ckpt_interval 50 --log_interval 10 \
    2>&1 | $PY $SRC/prefix_lines.py srun $i $OUTF &
  i=$((i+1))
done
sleep 3
wait_for_line $OUTF '"step": 60,' 100
pids=""
for i in 0 1 2; do a=$(cat $WORK/agent_$i.pid); pids="$pids $a $(workers_of $a | tr '\n' ' ')"; done
echo "$(date -u +%FT%T.%3NZ) kill -TERM $pids" | tee $WORK/injection.txt
kill -TERM $pids
wait
ls -la $WORK/ckpt >> $WORK/injection.txt
OUT=$B4/run-09/logs
rm -rf $OUT; mkdir -p $OUT
cp $OUTF $OUT/
