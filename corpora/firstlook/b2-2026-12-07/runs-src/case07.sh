# run-07: 2 nodes (ip-10-0-3-17, ip-10-0-3-42) x 2 ranks, DataLoader num_workers=2 per rank (default
# file_descriptor sharing strategy), hard-example replay keeps the last 96 batches.
# The open-files limit differs per node: ulimit -n 20000 on ip-10-0-3-17 (this VM's default), 256 on
# ip-10-0-3-42 (set by NODE_SETUP inside that node's namespace before torchrun starts).
# Layout: one merged console: both agents' stdout+stderr appended to logs/console.log, no prefixes.
. /work/firstlook-b2/runs-src/lib.sh
prep 07; JOBID=replay-ft-09
python3 $R/prep_data.py --out $W/data --val-shards 4
ARGS="--data $W/data --steps 400 --log-every 4 --num-workers 2 --replay 96 --val-every 50 --ckpt-every 50 --ckpt-dir $W/ckpt --pg-timeout 60"
agent ip-10-0-3-17 29817 $C/logs/console.log -- $ARGS
sleep 1
NODE_SETUP="ulimit -n 256" agent ip-10-0-3-42 29817 $C/logs/console.log -- $ARGS
wait
echo done
