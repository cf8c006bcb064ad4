. /work/firstlook/scratch/lib.sh
prep 08; JOBID=mlp-base-v3
L=$C/logs
mkdir -p $L/node-a $L/node-b
ARGS="--steps 45 --step-sleep 0.2 --log-every 5 --num-workers 3 --legacy --metrics-url http://127.0.0.1:29788/push --ckpt-dir $W/ckpt --ckpt-every 20"
agent node-a 0 29708 $L/node-a/launcher.log --log_dir $L/node-a --tee 3 -- $ARGS
sleep 1
agent node-b 1 29708 $L/node-b/launcher.log --log_dir $L/node-b --tee 3 -- $ARGS
F=$L/node-a/launcher.log
waitfor $F 'metrics push gave up' 90 || echo NOGIVEUP
python3 $S/metrics_sink.py 29788 > $W/sink.log 2>&1 &
SINK=$!
wait $(cat $W/agent-node-a.pid) $(cat $W/agent-node-b.pid)
kill $SINK
echo done
