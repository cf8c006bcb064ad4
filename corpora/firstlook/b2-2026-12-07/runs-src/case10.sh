# run-10: 2 nodes (g2-node01, g2-node02) x 2 ranks, full 250-step run. Noise only, nothing fatal injected:
# the model forward is wrapped in the deprecated torch.cuda.amp.autocast(enabled=False); DDP is built with
# find_unused_parameters=True although every parameter is used; rank 0 logs the job config JSON, whose
# restart_policy quotes error strings; rank 0 pushes metrics every 10 steps to a local HTTP sink
# (runs-src/metrics_sink.py 29930 2) that answers 503 to its first 2 requests, so the step-10 push fails twice
# with a logged HTTPError traceback and succeeds on attempt 3.
# Collected as a tar.gz of the log folder: <node>/console.log per agent (--tee 3) and the sink's access log.
. /work/firstlook-b2/runs-src/lib.sh
prep 10; JOBID=g2-pretrain-0093
python3 $R/prep_data.py --out $W/data --val-shards 4
L=$W/collect/g2-pretrain-0093; mkdir -p $L/g2-node01 $L/g2-node02
python3 $R/metrics_sink.py 29930 2 2> $L/metrics-sink.log &
SINK=$!
sleep 1
ARGS="--data $W/data --steps 250 --log-every 5 --val-every 50 --ckpt-every 50 --ckpt-dir $W/ckpt --keep 2 --pg-timeout 60 --autocast --find-unused --metrics-url http://127.0.0.1:29930/v1/push --job-config $R/job-config-10.json"
agent g2-node01 29820 $L/g2-node01/console.log --tee 3 -- $ARGS
sleep 1
agent g2-node02 29820 $L/g2-node02/console.log --tee 3 -- $ARGS
wait %2 %3
echo agents rc=$?
kill $SINK
tar -C $W/collect -czf $C/logs/g2-pretrain-0093.tar.gz g2-pretrain-0093
tar -tzvf $C/logs/g2-pretrain-0093.tar.gz
echo done
