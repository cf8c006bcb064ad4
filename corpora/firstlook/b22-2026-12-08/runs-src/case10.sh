#!/bin/bash
# case 10: 3 nodes x 1 rank (world 3), WeNet-like console printed by every rank, ONE merged console logs/console.log
# written the way `stern wenet-conformer` tails pods: each node agent's output (--tee 3) goes through a FIFO to a per-node
# relay that appends "<pod> pytorch <line>".  The CV pass at each epoch end computes features with a native library
# loaded through ctypes from FBANK_LIB ($T/lib/libfbank.so, a copy of libfbank 2.x built from native/fbank_v2.c).
# PYTHONFAULTHANDLER=1 on all nodes.  Injection: inside node-c's namespace native/libfbank.so.1 (libfbank 1.x, older
# ABI: per-frame row-pointer output, native/fbank_v1.c) is bind-mounted over $T/lib/libfbank.so before its agent starts.
source /work/staging/b22/runs-src/lib.sh
setup 10; mkhosts $T/hosts node-a node-b node-c; mkdata cls $T/data 12 6144
mkdir -p $T/lib; cp $SRC/native/libfbank.so.2 $T/lib/libfbank.so
OUT=$C/logs/console.log
export OUTMODE=prefix STYLE=wenet PRINT_RANKS=all STEPS=1000 LOG_EVERY=20 BATCH=16 STEP_SLEEP=0.05 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=128 FBANK_LIB=$T/lib/libfbank.so PYTHONFAULTHANDLER=1
ARGS="--nnodes=3 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29415 --rdzv-id=wenet-conformer-1015 --max-restarts=0 --tee=3"
PREFIX="wenet-conformer-worker-0 pytorch " agent node-a $T/hosts $OUT "export CKPT_DIR=$T/exp-a/conformer" $ARGS --log-dir=$T/elastic-a $SRC/train_b22.py
sleep 1
PREFIX="wenet-conformer-worker-1 pytorch " agent node-b $T/hosts $OUT "export CKPT_DIR=$T/exp-b/conformer" $ARGS --log-dir=$T/elastic-b $SRC/train_b22.py
sleep 1
PREFIX="wenet-conformer-worker-2 pytorch " agent node-c $T/hosts $OUT "mount --bind $SRC/native/libfbank.so.1 $T/lib/libfbank.so; export CKPT_DIR=$T/exp-c/conformer" $ARGS --log-dir=$T/elastic-c $SRC/train_b22.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) node-c $(apid node-c) (node-c: $SRC/native/libfbank.so.1 bind-mounted over $T/lib/libfbank.so)"
waitagents 170 node-a node-b node-c || rec "agents still alive after 170 s"
reap node-a node-b node-c; rm -f $TMPB/fifo-node-*; rec "done"
