#!/bin/bash
# case07: single node (hostname trn-box-07), 2 workers, Megatron-like GPT trainer
# (megatron_like.py), torchrun --standalone, gloo. PYTHONFAULTHANDLER=1 is set
# for the job (common practice to get Python stacks on fatal signals).
# Fault: ~20 s into training the collector sends SIGSEGV to the local_rank 1
# worker process only:  kill -11 <pid of LOCAL_RANK=1 worker>.
# Layout: the node's merged console (torchrun --tee 3, stdout+stderr) in one file.
set -u
. "$(dirname "$0")/common.sh"
W=/tmp/b5/case07; rm -rf $W; mkdir -p $W/ckpt
printf '127.0.0.1 localhost\n127.0.1.71 trn-box-07\n' > $W/hosts
OUT=$B5/run-07/logs; rm -rf $OUT; mkdir -p $OUT
unshare --uts --mount --fork bash -c "hostname trn-box-07; mount --bind $W/hosts /etc/hosts; cd $W; \
  echo \$\$ > $W/agent.pid; export PYTHONFAULTHANDLER=1; \
  exec > $OUT/train-console.log 2>&1; \
  exec $TORCHRUN --standalone --nnodes 1 --nproc-per-node 2 --max-restarts 0 --log-dir $W/elastic --tee 3 \
    $SRC/megatron_like.py --num-layers 4 --hidden-size 96 --num-attention-heads 4 --seq-length 48 \
    --micro-batch-size 8 --global-batch-size 32 --train-iters 4000 --lr 6e-4 --log-interval 25 \
    --save $W/ckpt --save-interval 200" &
sleep 20
APID=$(cat $W/agent.pid)
VICTIM=$(worker_pid $APID 1)
echo "$(date '+%F %T') kill -11 $VICTIM (LOCAL_RANK=1)" > $W/injection.txt
kill -11 $VICTIM
wait
echo done
