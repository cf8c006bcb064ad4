#!/bin/bash
# case 10: Tevatron-like, 2 nodes x 1 rank, two consecutive jobs (attempt 1, then resubmitted attempt 2 with the same command).
# Each node has its own local scratch (a per-node directory bind-mounted over /mnt), checkpoints saved on each node (save_on_each_node).
# Between the jobs: node-b's local scratch wiped (as when a node is swapped for a fresh one).
CASE=c10; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; mkdir -p $WORK/$CASE/out $WORK/$CASE/scratch-node-a $WORK/$CASE/scratch-node-b
node() {  # $1 node, $2 job tag
  ( cd $WORK/$CASE && B14_NODE=node-$1 unshare --uts --mount bash -c 'hostname "$0"; mount --bind "'"$WORK/$CASE/hosts"'" /etc/hosts; mount --bind "'"$WORK/$CASE/scratch-node-$1"'" /mnt; exec "$@"' node-$1 \
      python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29510 --rdzv-id=tevatron-msmarco-$2 --max-restarts=0 \
      $SRC/tevatron_like.py --output_dir /mnt/tevatron/msmarco-bert-dr > $WORK/$CASE/out/$2-node-$1.log 2>&1 ) & }
node a job1; node b job1
rec "job1: started agents node-a, node-b (1 rank each)"
for i in $(seq 200); do [ -d $WORK/$CASE/scratch-node-b/tevatron/msmarco-bert-dr/checkpoint-40 ] && break; sleep 0.5; done
sleep 2
PIDS=$(for p in $(pgrep -f "torch.distributed.run .*tevatron-msmarco-job1"); do tr '\0' '\n' </proc/$p/environ | grep -q ^B14_NODE= && echo $p; done)
kill -TERM $PIDS
rec "job1: checkpoint-40 present on both nodes; SIGTERM to both agents (allocation ended): $(echo $PIDS)"
wait
rec "job1: agents exited"
rm -rf $WORK/$CASE/scratch-node-b/*
rec "between jobs: node-b local scratch emptied (rm -rf scratch-node-b/*); node-a scratch untouched"
node a job2; node b job2
rec "job2: resubmitted same command on node-a, node-b"
wait
rec "job2: agents exited"
