#!/bin/bash
# run-08: Detectron2-style logs, 3 nodes x 1 worker; job 1 runs with a 20 s wall-time budget,
# saves and exits 0; job 2 (same output dir, --resume) finishes MAX_ITER. Logs collected
# per node per job, shipped as logs/d2-job-logs.tar.gz.
source "$(dirname "$0")/lib8.sh"
C=$B8/run-08; W=$SCR/c08; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/out $W/collect
mkhosts $W/hosts d2-node-0 d2-node-1 d2-node-2
job() {
  for h in d2-node-0 d2-node-1 d2-node-2; do mkdir -p $W/collect/job$1/$h
    node $h $W/hosts "--style none --out $W/collect/job$1/$h/stdout.log" "cd $W" \
      torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint d2-node-0:29808 --rdzv-id d2-cls-$1 \
        $SRC/d2_like.py --data $SCR/data --output-dir $W/out --max-iter 1500 $2 >/dev/null
    sleep 1
  done; wait
}
note "job 1 start (--max-walltime 20)"; job 1 "--max-walltime 20"; note "job 1 end"; ls -l $W/out >> $INJ
sleep 3
note "job 2 start (--resume)"; job 2 "--resume"; note "job 2 end"; ls -l $W/out >> $INJ
tar -C $W/collect -czf $C/logs/d2-job-logs.tar.gz job1 job2
