# run-06: 2 nodes (node-a, node-b) x 2 ranks; every rank writes its own checkpoint shard every 30 steps to
# node-local scratch /mnt/local-ssd/ckpt (trainlib.io.atomic_save: write .tmp in 1 MiB chunks, fsync, rename).
# /mnt/local-ssd is a tmpfs mounted inside each node's mount namespace: 200 MB on node-a, 16 MB on node-b.
# Layout: per-node folders, each agent's stdout+stderr (workers inherit it) in logs/<node>/train.log.
. /work/firstlook-b2/runs-src/lib.sh
prep 06; JOBID=shard-ckpt-31
python3 $R/prep_data.py --out $W/data --val-shards 4
mkdir -p /mnt/local-ssd $C/logs/node-a $C/logs/node-b
ARGS="--data $W/data --steps 300 --hidden 512 --log-every 3 --val-every 30 --ckpt-every 30 --ckpt-mode sharded --ckpt-dir /mnt/local-ssd/ckpt --pg-timeout 60"
NODE_SETUP="mount -t tmpfs -o size=200m tmpfs /mnt/local-ssd" agent node-a 29816 $C/logs/node-a/train.log -- $ARGS
sleep 1
NODE_SETUP="mount -t tmpfs -o size=16m tmpfs /mnt/local-ssd" agent node-b 29816 $C/logs/node-b/train.log -- $ARGS
wait
rmdir /mnt/local-ssd
echo done
