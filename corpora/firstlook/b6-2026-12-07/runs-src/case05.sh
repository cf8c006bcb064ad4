#!/bin/bash
# run-05: python-logging seq classifier, 2 nodes x 2 workers ("pods" seqcls-worker-0/1),
# collected like `kubectl logs --timestamps` per pod (prefix.py --mode ts);
# the first container's output is <pod>.previous.log, the restarted one <pod>.log.
# Fault: preemption of one node: ~40 s after launch SIGTERM is sent to the
# torchrun agent of seqcls-worker-1 only. The job is then resubmitted (both
# agents started again 10 s after the first attempt ended) and resumes from the
# newest checkpoint in the shared ckpt dir.
source "$(dirname "$0")/common.sh"
C=$B6/run-05; W=$WORK/c05
rm -rf $C/logs $W; mkdir -p $C/logs $W
write_hosts $W/hosts seqcls-worker-0 seqcls-worker-1
launch() {   # $1 = log suffix
  for h in seqcls-worker-0 seqcls-worker-1; do
    start_node_pipe $h $W/hosts ts "" $C/logs/$h$1 "" -- \
      $TORCHRUN --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint seqcls-worker-0:29651 \
        --rdzv-id seqcls-job --max-restarts 0 \
        $SRC/logtrain.py --ckpt_dir $W/ckpt --total_steps 700 --save_every 50 --log_every 10 > $W/$h.pid
    sleep 1
  done
}
launch .previous.log
sleep 40
AG=$(cat $W/seqcls-worker-1.pid)
echo "$(stamp) SIGTERM -> torchrun agent pid $AG on seqcls-worker-1" >> $W/inject.txt
kill -TERM $AG
wait $(cat $W/seqcls-worker-0.pid) $(cat $W/seqcls-worker-1.pid)
echo "$(stamp) attempt 1 ended" >> $W/inject.txt
sleep 10
echo "$(stamp) attempt 2 launched" >> $W/inject.txt
launch .log
wait $(cat $W/seqcls-worker-0.pid) $(cat $W/seqcls-worker-1.pid)
sleep 1
echo "$(stamp) attempt 2 ended" >> $W/inject.txt
