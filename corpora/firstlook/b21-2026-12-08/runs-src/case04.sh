#!/bin/bash
# case 04: 2 nodes x 2 ranks (world 4), hivemind-like console, ONE merged console logs/console.log written the way
# `parallel --tag --line-buffer` over ssh would: each agent's stdout+stderr (no --tee: the ranks write straight to it) goes
# through a FIFO to a per-node relay process that appends "node-x<TAB>line". At step ~200 node-b's relay process is
# SIGSTOPped (the transport stops reading: once the 64 KiB pipe is full, every writer on node-b blocks in write()).
# gloo timeout 60 s. 20 s after node-a's agent exits, node-b's agent gets SIGTERM (then SIGKILL); then node-b's relay is
# continued so what was buffered in its pipe reaches the file.
source /work/staging/b21/runs-src/lib.sh
setup 04; mkhosts $T/hosts node-a node-b; mkdata text $T/data 16 256
OUT=$C/logs/console.log
export OUTMODE=ptag LOGLEVEL=INFO STYLE=hivemind STEPS=1200 LOG_EVERY=1 EVAL_EVERY=100 SAVE_EVERY=200 STEP_SLEEP=0.1 PG_TIMEOUT=60 DATA_DIR=$T/data RUN_NAME=lm-swarm-b
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29341 --rdzv-id=swarm-b-0412 --max-restarts=0"
agent node-a $T/hosts $OUT "export CKPT_DIR=$T/ckpt-a" $ARGS $SRC/train_b21.py
sleep 1
agent node-b $T/hosts $OUT "export CKPT_DIR=$T/ckpt-b" $ARGS $SRC/train_b21.py
rec "started agents node-a $(apid node-a) (relay $(rpid node-a)) node-b $(apid node-b) (relay $(rpid node-b))"
waitlog $OUT "Step #200 loss" 150 || rec "step 200 not seen"
R=$(rpid node-b); kill -STOP $R; rec "SIGSTOP node-b relay pid $R (after 'Step #200 loss' in the console)"
for i in $(seq 1 60); do W=$(wpid node-b 0); S=$(cat /proc/$W/wchan 2>/dev/null); [ "$S" = pipe_write ] && break; sleep 1; done
rec "node-b LOCAL_RANK=0 pid $W wchan: $S; LOCAL_RANK=1 pid $(wpid node-b 1) wchan: $(cat /proc/$(wpid node-b 1)/wchan 2>/dev/null)"
waitagents 150 node-a || rec "node-a agent alive after 150 s"
rec "node-a agent gone; node-b agent $(apid node-b) state $(ps -o stat= -p $(apid node-b))"
sleep 20; kill -TERM $(apid node-b); rec "SIGTERM node-b agent"; sleep 10
kill -0 $(apid node-b) 2>/dev/null && { kill -KILL $(apid node-b) $(desc $(apid node-b)); rec "SIGKILL node-b agent and its workers"; }
sleep 1; kill -CONT $R; rec "SIGCONT node-b relay $R"; sleep 3
reap node-a node-b; rm -f $TMPB/fifo-node-a $TMPB/fifo-node-b; rec "done"
