#!/bin/bash
# case 05: 2 nodes x 2 ranks, Sacred-like console, two jobs appended to the same per-node log files.
# Job 1 (250 steps) runs to its end. Job 2 (continue to 500 steps, resume from the latest checkpoint) is started on both
# nodes, but node-b's hosts file now maps node-a to 192.0.2.17 (a stale entry, an address not on this host).
source /work/staging/b20/runs-src/lib.sh
setup 05; mkhosts $T/hosts node-a node-b; mkdata $T/data 16 256
printf '127.0.0.1\tlocalhost\n192.0.2.17\tnode-a\n127.0.20.2\tnode-b\n' > $T/hosts-b2
export STYLE=sacred LOG_EVERY=25 EVAL_EVERY=125 SAVE_EVERY=125 PG_TIMEOUT=90 DATA_DIR=$T/data CKPT_DIR=$T/ckpt RUN_NAME=tokxf_sacred
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29205 --max-restarts=0 --tee=3 --rdzv-conf=join_timeout=90"
export STEPS=250
agent node-a $T/hosts $C/logs/node-a.log "" $ARGS --rdzv-id=sac-tok-j1 --log-dir=$C/logs/elastic-node-a $SRC/train_b20.py
agent node-b $T/hosts $C/logs/node-b.log "" $ARGS --rdzv-id=sac-tok-j1 --log-dir=$C/logs/elastic-node-b $SRC/train_b20.py
rec "job1 (STEPS=250) started agents node-a $(apid node-a) node-b $(apid node-b)"
waitagents 150 node-a node-b || rec "job1 agents still alive after 150s"; reap node-a node-b
rec "job1 ended; ckpt latest=$(cat $T/ckpt/latest 2>/dev/null)"
sleep 5
export STEPS=500
agent node-a $T/hosts $C/logs/node-a.log "" $ARGS --rdzv-id=sac-tok-j2 --log-dir=$C/logs/elastic-node-a $SRC/train_b20.py
agent node-b $T/hosts-b2 $C/logs/node-b.log "" $ARGS --rdzv-id=sac-tok-j2 --log-dir=$C/logs/elastic-node-b $SRC/train_b20.py
rec "job2 (STEPS=500) started agents node-a $(apid node-a) node-b $(apid node-b); node-b hosts file: node-a -> 192.0.2.17"
waitagents 150 node-a node-b || rec "job2 agents still alive after 150s"
reap node-a node-b; rec "done"
