#!/bin/bash
# case 09: 1 node x 2 ranks (world 2), fairscale/word_language_model-like console + python-logging log file (rank 0).
# The log file and model.pt live on the job's scratch volume (a 16 MiB tmpfs at $T/scratch), shared with other users' files.
# Injection: after the console shows "end of epoch   3", another process fallocate()s a file on the scratch volume that takes
# all the remaining free space.  model.pt is written as model.pt.tmp then renamed.
source /work/staging/b22/runs-src/lib.sh
setup 09; mkhosts $T/hosts trainer-0; mkdata tok $T/data 10 100000 1 20000
mkdir -p $C/logs $T/scratch; mount -t tmpfs -o size=16m tmpfs $T/scratch; mkdir -p $T/scratch/wlm $T/scratch/tmp
export STYLE=wlm STEPS=1500 STEPS_PER_EPOCH=100 LOG_EVERY=2 BATCH=16 STEP_SLEEP=0.04 PG_TIMEOUT=60 DATA_DIR=$T/data HIDDEN=256 LR=2e-3
ARGS="--nnodes=1 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=trainer-0:29414 --rdzv-id=wlm-tfm-0914 --max-restarts=0 --tee=3"
agent trainer-0 $T/hosts $C/logs/console.log "export CKPT_DIR=$T/scratch/wlm OUT_DIR=$T/scratch/wlm LOG_FILE=$T/scratch/wlm/train.log" $ARGS --log-dir=$C/logs/elastic $SRC/train_b22.py
rec "started agent trainer-0 $(apid trainer-0); scratch: $(df -k --output=size,used,avail $T/scratch | tail -1)"
waitlog $C/logs/console.log "end of epoch   3" 170 || rec "end of epoch 3 not seen"
sleep 1
AV=$(df -B1 --output=avail $T/scratch | tail -1 | tr -d ' ')
fallocate -l $AV $T/scratch/tmp/sort-merge.tmp || fallocate -l $((AV-4096)) $T/scratch/tmp/sort-merge.tmp
rec "fallocate $T/scratch/tmp/sort-merge.tmp ($AV bytes were free) -> scratch: $(df -k --output=size,used,avail $T/scratch | tail -1); files: $(cd $T/scratch && find . -type f -printf '%p:%s ' | sort)"
waitagents 150 trainer-0 || rec "agent still alive after 150 s"
reap trainer-0
mkdir -p $C/logs/scratch/wlm; cp -p $T/scratch/wlm/train.log $C/logs/scratch/wlm/train.log
rec "copied $T/scratch/wlm/train.log to logs/scratch/wlm/; scratch files at end: $(cd $T/scratch && find . -type f -printf '%p:%s ' | sort)"
umount $T/scratch; rec "scratch unmounted; done"
