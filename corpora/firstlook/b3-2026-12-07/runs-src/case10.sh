# run-10: 2 nodes (dl-c1, dl-c2) x 2 ranks, DDP, 2 epochs over per-rank pre-tokenised shards (files[rank], no
# DistributedSampler), gloo timeout 30 s. Injected: shard-003.pt (global rank 3's) has 720 samples, the others 800
# (45 vs 50 batches of 16 per epoch); total steps are computed per rank from its own loader.
# Layout: one merged console: both agents' stdout+stderr appended to logs/console.log, no prefixes.
. /work/firstlook-b3/runs-src/lib.sh
prep 10; JOBID=dl-shards-3
python3 $R/prep_shards.py --out $W/data --sizes 800,800,800,720
ARGS="--shards $W/data --epochs 2 --log-every 5 --pg-timeout 30"
agent dl-c1 29910 $C/logs/console.log -- $ARGS
sleep 1
agent dl-c2 29910 $C/logs/console.log -- $ARGS
wait; cat $W/rc.txt; echo done
