#!/bin/bash
# run-04: Composer-style trainer, 3 nodes x 1 worker, one merged console where every node's
# lines carry an srun --label style prefix "<nodeid>: " (tagger.py --style label).
# Injection from outside: when rank 0 has logged batch 125 (eval + monitored barrier every 150
# batches), rank 2's worker process (node cmp-n2) is moved into a cgroup-v1 cpu cgroup with
# cpu.cfs_quota_us=2500 / cpu.cfs_period_us=100000 (2.5% of one CPU), as a co-tenant's CPU
# limit would do. It stays there until the end.
source "$(dirname "$0")/lib7.sh"
C=$B7/run-04; W=$SCR/c04; INJ=$W/inject.txt; CG=/sys/fs/cgroup/cpu/b7-c04-throttle
rm -rf $C/logs $W; mkdir -p $C/logs $W
mkhosts $W/hosts cmp-n0 cmp-n1 cmp-n2
OUT=$C/logs/job-7781.out
i=0
for h in cmp-n0 cmp-n1 cmp-n2; do
  node $h $W/hosts "|--style label --tag $i --out $OUT" "" \
    torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint cmp-n0:29704 \
      --rdzv-id cmp-7781 --max-restarts 0 \
      $SRC/composer_like.py --data $SCR/data --save-folder $W/ckpt --max-duration 600ba \
      --eval-interval 150 --eval-batches 100 --log-interval 25 --barrier-timeout 30 > $W/root-$h.pid
  i=$((i+1)); sleep 1
done
wait_for_line $OUT '^0: \[batch=125/' 200 || note "batch 125 not seen"
P2=$(pgrep -f "composer_like.py" | while read p; do grep -qz '^RANK=2$' /proc/$p/environ 2>/dev/null && echo $p; done | head -1)
mkdir -p $CG; echo 100000 > $CG/cpu.cfs_period_us; echo 2500 > $CG/cpu.cfs_quota_us
echo $P2 > $CG/cgroup.procs
note "rank 2 pid $P2 moved into $CG (quota 2500/100000)"
wait_rdzv cmp-7781
note "agents exited"
cat $CG/cpu.stat >> $INJ
echo $P2 > /dev/null; rmdir $CG 2>>$INJ
