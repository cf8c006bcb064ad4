#!/bin/bash
# run-06: JSON-lines trainer, single node (host train-box-3), 2 workers. Logs: the
# console (stdout+stderr) of two consecutive job submissions, job-1.log and job-2.log.
# Job 1 (as plain root) trains steps 1..120, saving at 60 and 120 (writes latest.json).
# Injection between the jobs, from outside: chmod 0444 on ckpt/latest.json (the file only;
# the folder stays 0755 and writable). Job 2 (resume, --steps 400) is started through
# `setpriv --bounding-set -dac_override,-dac_read_search`, i.e. root without the capability
# to override file permission bits, as in a container that drops those capabilities.
source "$(dirname "$0")/lib7.sh"
C=$B7/run-06; W=$SCR/c06; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/ckpt
mkhosts $W/hosts train-box-3
ARGS="--data $SCR/data --ckpt-dir $W/ckpt --save-every 60 --log-every 10 --run-name tinylm-jsonl-06"
note "job 1 start"
node train-box-3 $W/hosts $C/logs/job-1.log "" \
  torchrun --standalone --nproc-per-node 2 --rdzv-id jsonl06a $SRC/jsonl_trainer.py $ARGS --steps 120 >/dev/null
sleep 2; wait_rdzv jsonl06a   # (standalone ignores rdzv-id in args? we poll on the script name too)
while pgrep -f "jsonl_trainer.py.*--steps 120" >/dev/null; do sleep 1; done
note "job 1 end"; ls -lR $W/ckpt >> $INJ
chmod 0444 $W/ckpt/latest.json; note "chmod 0444 $W/ckpt/latest.json"; ls -l $W/ckpt >> $INJ
note "job 2 start"
node train-box-3 $W/hosts $C/logs/job-2.log "" \
  setpriv --bounding-set -dac_override,-dac_read_search \
  torchrun --standalone --nproc-per-node 2 $SRC/jsonl_trainer.py $ARGS --steps 400 >/dev/null
sleep 2
while pgrep -f "jsonl_trainer.py.*--steps 400" >/dev/null; do sleep 1; done
note "job 2 end"; ls -lR $W/ckpt >> $INJ
