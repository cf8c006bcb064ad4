#!/bin/bash
# case 03: 2 nodes x 2 ranks, Coqui-trainer-like console. Before the job, a torchrun agent of an earlier attempt is left over on
# node-a (started for another rdzv id, waiting for a peer, then suspended with SIGSTOP as a ctrl-Z'ed shell job would be);
# it still holds node-a:29183, the rendezvous endpoint of the new job.
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-03; T=$TMPB/c03; REC=$SRC/inject-records/c03.txt
rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; mkhosts $T/hosts node-a node-b; mkdata $T/data 3
cat > $T/config.json <<'J'
{"max_steps": 600, "lr": 0.0005, "warmup_steps": 50, "batch_size": 8, "seq_len": 64, "log_every": 25, "eval_every": 100, "save_every": 200, "seed": 54321}
J
export LOGLEVEL=INFO LOG_STYLE=coqui JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.08 CKPT_DIR=$T/ckpt
agent old-node-a $T/hosts $T/leftover.log "hostname node-a; unset LOGLEVEL" --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29183 --rdzv-id=vits-ft-0931 $SRC/trainer.py
sleep 8; O=$(apid old-node-a); kill -STOP $O
rec "leftover: torchrun agent pid $O (rdzv-id vits-ft-0931, hosting c10d store on node-a:29183, waiting for 2nd node) SIGSTOPped; $(ss -ltnp | grep 29183 | tr -s ' ')"
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29183 --rdzv-id=vits-ft-0932 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) node-b $(apid node-b) (LOGLEVEL=INFO in the job environment)"
waitagents 100 node-a node-b || {
  for n in node-a node-b; do A=$(apid $n); for p in $A $(desc $A); do
    echo "### py-spy dump --pid $p ($(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-60)) at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >> $C/logs/py-spy-$n.txt
    py-spy dump --pid $p >> $C/logs/py-spy-$n.txt 2>&1; done; done
  rec "agents still alive after 100s; py-spy dumps taken -> logs/py-spy-node-X.txt" ; }
waitagents 40 node-a node-b || rec "agents still alive after 140s; operator SIGTERM"
reap node-a node-b
kill -KILL $O; kill -CONT $O; sleep 1; kill -0 $O 2>/dev/null && rec "leftover $O still alive" || rec "leftover agent $O killed"
rec "done"
