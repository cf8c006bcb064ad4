#!/bin/bash
# case 01: 2 nodes x 2 ranks (world 4), detectron2-like colored console + per-rank log.txt files.
# node-b's agent (and so its ranks) runs in cgroup-v2 group b21c01-nodeb; after node-a's console shows iteration 259,
# iptables drops every packet sent by that cgroup and every packet to node-b's address 127.0.21.2 (node-b cut off the network);
# gloo timeout 60s; rules removed after both agents are gone.
source /work/staging/b21/runs-src/lib.sh
setup 01; mkhosts $T/hosts node-a node-b; mkdata feat $T/data 16 256
CG=/sys/fs/cgroup/unified/b21c01-nodeb; mkdir -p $CG
mkdir -p $C/logs/node-a $C/logs/node-b
export STYLE=d2 STEPS=600 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=200 STEP_SLEEP=0.1 PG_TIMEOUT=60 DATA_DIR=$T/data
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29311 --rdzv-id=d2cls-r50-0931 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a/console.log "export OUT_DIR=$C/logs/node-a/output CKPT_DIR=$T/ckpt-a" $ARGS --log-dir=$C/logs/node-a/elastic $SRC/train_b21.py
agent node-b $T/hosts $C/logs/node-b/console.log "echo \$\$ > $CG/cgroup.procs; export OUT_DIR=$C/logs/node-b/output CKPT_DIR=$T/ckpt-b" $ARGS --log-dir=$C/logs/node-b/elastic $SRC/train_b21.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) (node-b agent in $CG)"
waitlog $C/logs/node-a/console.log "iter: 259 " 150 || rec "iter 259 line not seen"
iptables -A OUTPUT -m cgroup --path b21c01-nodeb -j DROP; iptables -A INPUT -d 127.0.21.2 -j DROP
rec "iptables: OUTPUT -m cgroup --path b21c01-nodeb -j DROP; INPUT -d 127.0.21.2 -j DROP (after 'iter: 259' on node-a). cgroup procs: $(cat $CG/cgroup.procs | tr '\n' ' ')"
waitagents 170 node-a node-b || rec "agents still alive after 170s"
reap node-a node-b
iptables -D OUTPUT -m cgroup --path b21c01-nodeb -j DROP; iptables -D INPUT -d 127.0.21.2 -j DROP; rec "iptables rules removed"
for p in $(cat $CG/cgroup.procs); do kill -KILL $p; done; sleep 1; rmdir $CG; rec "done"
