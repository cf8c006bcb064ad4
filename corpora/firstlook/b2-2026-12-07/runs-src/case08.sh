# run-08: 2 nodes (dgx-07, dgx-11) x 2 ranks. One training record (the one rank 1 sees at step 57, batch
# position 5, epoch 0) has all 64 features set to 3e38 by prep_data.py --poison 1:57:5. The trainer logs a
# warning per non-finite loss and keeps going; it gives up after 20 consecutive non-finite steps (--max-nonfinite 20).
# Layout: torchrun --log_dir per node with --tee 3: per-rank files in logs/<node>/<run_id>_*/attempt_0/<local_rank>/,
# the agent console (worker lines with [defaultN]: prefixes) in logs/<node>/console.log.
. /work/firstlook-b2/runs-src/lib.sh
prep 08; JOBID=lm-probe-57
python3 $R/prep_data.py --out $W/data --val-shards 4 --poison 1:57:5
mkdir -p $C/logs/dgx-07 $C/logs/dgx-11
ARGS="--data $W/data --steps 300 --log-every 3 --val-every 40 --ckpt-every 40 --ckpt-dir $W/ckpt --keep 2 --max-nonfinite 20 --pg-timeout 60"
agent dgx-07 29818 $C/logs/dgx-07/console.log --log_dir $C/logs/dgx-07 --tee 3 -- $ARGS
sleep 1
agent dgx-11 29818 $C/logs/dgx-11/console.log --log_dir $C/logs/dgx-11 --tee 3 -- $ARGS
wait
echo done
