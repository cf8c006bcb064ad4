#!/bin/bash
# case 07: 2 nodes x 2 ranks, booster-like log, rank 0 writes a checkpoint every 120 steps.
# From outside, the rank-0 process is moved into a cgroup-v1 memory cgroup limited to 450 MiB at ~t+20s.
source /work/staging/b16/runs-src/common.sh
C=/work/staging/b16/run-07; REC=$SRC/inject-records/c07.txt; T=$TMPB/c07
rm -rf $C $T; mkdir -p $C/logs $T/ckpt; : > $REC; mkhosts $T/hosts
export STYLE=booster STEPS=300 STEP_SLEEP=0.1 PG_TIMEOUT=30 OMP_NUM_THREADS=1 CKPT_DIR=$T/ckpt SAVE_EVERY=120 CKPT_PAD=150000000
RID=b16c07
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29517 --rdzv-id=$RID --max-restarts=0 --tee=3 --log-dir=$C/logs/torchelastic"
rec "start agents"
agent node-a $T/hosts $C/logs/node-a.console.log $ARGS $SRC/trainer.py; A=$!
agent node-b $T/hosts $C/logs/node-b.console.log $ARGS $SRC/trainer.py; B=$!
sleep 20
P=$(rank_pid $RID 0); [ -z "$P" ] && { rec "no pid"; kill $A $B; wait; exit 1; }
H=$(tr '\0' '\n' < /proc/$P/environ | grep -E '^(LOCAL_RANK|GROUP_RANK)='|tr '\n' ' ')
CG=/sys/fs/cgroup/memory/b16c07; mkdir -p $CG; echo $((450*1024*1024)) > $CG/memory.limit_in_bytes
echo $P > $CG/cgroup.procs; rec "rank 0 pid $P ($H rss $(ps -o rss= -p $P) KiB) moved into $CG limit 450MiB"
for i in $(seq 1 100); do sleep 1; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
rec "memory.failcnt $(cat $CG/memory.failcnt) oom_control: $(tr '\n' ' ' < $CG/memory.oom_control)"
kill -0 $A 2>/dev/null && { rec "node-a agent still running, SIGTERM"; kill $A; }
kill -0 $B 2>/dev/null && { rec "node-b agent still running, SIGTERM"; kill $B; }
wait $A; rec "node-a agent exit $?"; wait $B; rec "node-b agent exit $?"
dmesg 2>/dev/null | grep -iE "oom|killed process" | tail -5 >> $REC
rmdir $CG 2>/dev/null; rec done
