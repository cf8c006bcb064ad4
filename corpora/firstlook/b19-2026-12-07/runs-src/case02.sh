#!/bin/bash
# case 02: 2 nodes x 2 ranks, MindSpore-like console, two jobs sharing one checkpoint dir. Job 1: when rank 0 starts writing
# step_000300.pt, every process of both nodes (agents, ranks, loader workers) gets SIGTERM at once (preemption, scancel-like).
# Job 2: same command again (the trainer auto-resumes from the newest step_*.pt).
source /work/staging/b19/runs-src/lib.sh
setup 02; mkhosts $T/hosts node-a node-b; mkdata $T/data
export STYLE=mindspore STEPS=500 LOG_EVERY=25 EVAL_EVERY=100 SAVE_EVERY=100 PG_TIMEOUT=60 MODEL_DIM=256 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokconv-m
mkdir -p $C/logs/job1 $C/logs/job2
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29192 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/job1/node-a.console.log "" $ARGS --rdzv-id=tc-m-1207a --log-dir=$C/logs/job1/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/job1/node-b.console.log "" $ARGS --rdzv-id=tc-m-1207a --log-dir=$C/logs/job1/elastic-node-b $SRC/trainer.py
rec "job1: started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $C/logs/job1/node-a.console.log "step_000200.pt saved" 120
PIDS="$(apid node-a) $(desc $(apid node-a)) $(apid node-b) $(desc $(apid node-b))"
rec "job1: watcher armed for $T/ckpt/step_000300.pt; pids $PIDS"
python3 - $T/ckpt/step_000300.pt $PIDS >> $REC <<'PY'
import os, sys, time, signal, datetime
p = sys.argv[1]; pids = [int(x) for x in sys.argv[2:]]
t0 = time.time()
while not os.path.exists(p) and time.time() - t0 < 120: time.sleep(0.0005)
time.sleep(0.004)
sz = os.path.getsize(p) if os.path.exists(p) else -1
for q in pids:
    try: os.kill(q, signal.SIGTERM)
    except ProcessLookupError: pass
print(datetime.datetime.utcnow().isoformat(timespec="milliseconds") + "Z job1: SIGTERM sent to all %d pids; %s size at that moment %d" % (len(pids), p, sz))
PY
waitagents 60 node-a node-b || rec "job1 agents still alive after 60s"
reap node-a node-b
rec "job1 over; ckpt dir: $(ls -l $T/ckpt | tail -n +2 | awk '{print $5, $9}' | tr '\n' ';')"
sleep 5
agent node-a $T/hosts $C/logs/job2/node-a.console.log "" $ARGS --rdzv-id=tc-m-1207b --log-dir=$C/logs/job2/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/job2/node-b.console.log "" $ARGS --rdzv-id=tc-m-1207b --log-dir=$C/logs/job2/elastic-node-b $SRC/trainer.py
rec "job2: started agents node-a $(apid node-a) node-b $(apid node-b)"
waitagents 150 node-a node-b || rec "job2 agents still alive after 150s"
reap node-a node-b; rec "done"
