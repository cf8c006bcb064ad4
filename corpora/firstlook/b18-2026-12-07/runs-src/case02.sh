#!/bin/bash
# case 02: 3 nodes x 1 rank, MaxText-like console, all pods' output in ONE file as `kubectl logs --prefix` shows it.
# Injection: rank on lm-pretrain-worker-1 put in a cpu cgroup: ~30 s in cfs quota 20% (straggler), ~60 s in 0.1% (1 ms per 1 s).
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-02; T=$TMPB/c02; REC=$SRC/inject-records/c02.txt; CG=/sys/fs/cgroup/cpu/b18c02
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts lm-pretrain-worker-0 lm-pretrain-worker-1 lm-pretrain-worker-2; mkdata $T/data 2
cat > $T/config.json <<'J'
{"max_steps": 900, "lr": 0.0003, "warmup_steps": 100, "batch_size": 8, "seq_len": 64, "log_every": 25, "eval_every": 0, "save_every": 0, "seed": 0}
J
export LOG_STYLE=maxtext JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" STEP_SLEEP=0.08 PG_TIMEOUT=30 CKPT_DIR=$T/ckpt
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=lm-pretrain-worker-0:29182 --rdzv-id=lm-pretrain --max-restarts=0"
export OUTMODE=prefix
for i in 0 1 2; do PREFIX="[pod/lm-pretrain-worker-$i/pytorch] " agent lm-pretrain-worker-$i $T/hosts $C/logs/kubectl-logs.txt "" $ARGS $SRC/trainer.py; done
rec "started agents w0 $(apid lm-pretrain-worker-0) w1 $(apid lm-pretrain-worker-1) w2 $(apid lm-pretrain-worker-2)"
sleep 30
mkdir -p $CG; W=$(wpid lm-pretrain-worker-1 0)
echo 100000 > $CG/cpu.cfs_period_us; echo 20000 > $CG/cpu.cfs_quota_us; echo $W > $CG/cgroup.procs
rec "worker-1 rank (global rank 1, pid $W) moved to cpu cgroup b18c02: cfs_quota 20000/100000 us"
sleep 30
echo 1000 > $CG/cpu.cfs_quota_us; echo 1000000 > $CG/cpu.cfs_period_us
rec "b18c02 cfs_quota set to 1000 us per 1000000 us period (0.1% of one CPU)"
waitagents 120 lm-pretrain-worker-0 lm-pretrain-worker-1 lm-pretrain-worker-2 || rec "agents still alive after 120s"
reap lm-pretrain-worker-0 lm-pretrain-worker-1 lm-pretrain-worker-2
for p in $(cat $CG/cgroup.procs); do echo $p > /sys/fs/cgroup/cpu/cgroup.procs; done; rmdir $CG; rec "done"
