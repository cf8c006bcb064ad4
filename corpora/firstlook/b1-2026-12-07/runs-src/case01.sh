. /work/firstlook/scratch/lib.sh
prep 01; JOBID=ddp-7f3a21
L=$C/logs
agent node-a 0 29701 $L/node-a.log -- --steps 40 --heartbeat 5 --pg-timeout 30 --shard-index /tmp/fl/01/shards/epoch1.idx --shard-rank 3 --shard-step 7
sleep 1
agent node-b 1 29701 $L/node-b.log -- --steps 40 --heartbeat 5 --pg-timeout 30 --shard-index /tmp/fl/01/shards/epoch1.idx --shard-rank 3 --shard-step 7
wait
echo done
