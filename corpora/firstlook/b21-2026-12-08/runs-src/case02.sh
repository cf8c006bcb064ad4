#!/bin/bash
# case 02: 2 nodes x 2 ranks (world 4), Marian-like console. ONE merged console as a Slurm batch output file without --label:
# both node agents append stdout+stderr to logs/slurm-48213.out; torchrun --tee 3 and per-node --log-dir under logs/torchelastic/.
# After rank 0 logs update 200, node-b's torchrun agent process alone is SIGKILLed (its worker processes are left running).
# node-a's agent is sent SIGTERM 45 s after it logs that it waits for other agents (as an operator's scancel would), SIGKILL 10 s later.
# Agents run with LOGLEVEL=INFO.
source /work/staging/b21/runs-src/lib.sh
setup 02; mkhosts $T/hosts node-a node-b; mkdata text $T/data 16 256
OUT=$C/logs/slurm-48213.out
export LOGLEVEL=INFO STYLE=marian STEPS=500 LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 STEP_SLEEP=0.05 PG_TIMEOUT=90 DATA_DIR=$T/data RUN_NAME=nmt-lite
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29321 --rdzv-id=48213 --max-restarts=0 --tee=3"
agent node-a $T/hosts $OUT "export CKPT_DIR=$T/ckpt-a" $ARGS --log-dir=$C/logs/torchelastic/node-a $SRC/train_b21.py
sleep 2
agent node-b $T/hosts $OUT "export CKPT_DIR=$T/ckpt-b" $ARGS --log-dir=$C/logs/torchelastic/node-b $SRC/train_b21.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b)"
waitlog $OUT "Ep. [0-9]* : Up. 200 :" 150 || rec "Up. 200 not seen"
B=$(apid node-b); W2=$(wpid node-b 0); W3=$(wpid node-b 1); kill -KILL $B
rec "SIGKILL node-b torchrun agent pid $B only (after 'Up. 200'); its workers $W2 $W3 left running"
waitlog $OUT "Waiting 300 seconds for other agents" 150 || rec "exit barrier line not seen"
rec "node-a agent entered exit barrier; node-b workers: $(ps -o pid=,stat= -p $W2,$W3 | tr '\n' ' ')"
sleep 45; kill -TERM $(apid node-a); rec "SIGTERM node-a agent $(apid node-a) (45 s into its exit barrier)"
waitagents 10 node-a || { kill -KILL $(apid node-a); rec "node-a agent alive 10 s after SIGTERM: SIGKILL"; }
rec "node-b workers at end: $(ps -o pid=,stat= -p $W2,$W3 2>/dev/null | tr '\n' ' ' ) (empty = exited)"
reap node-a node-b; rec "done"
