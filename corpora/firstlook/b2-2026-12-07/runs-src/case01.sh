# run-01: 2 nodes (gn-0417, gn-0418) x 2 ranks. 3 validation shards for 4 ranks; validation + checkpoint
# every 100 steps. Long gloo timeout (1800 s); stack dump after 120 s without a step.
# Logs are collected while the job is still running (~6 min after start), then the job is killed.
. /work/firstlook-b2/runs-src/lib.sh
prep 01; JOBID=reg-mlp-0417
python3 $R/prep_data.py --out $W/data --val-shards 3
L=$C/logs; mkdir -p $L/gn-0417 $L/gn-0418
ARGS="--data $W/data --steps 400 --log-every 2 --val-every 100 --ckpt-every 100 --ckpt-dir $W/ckpt --pg-timeout 1800 --stall-dump 120"
agent gn-0417 29811 $L/gn-0417/launcher.log --log_dir $L/gn-0417 --redirects 3 -- $ARGS
sleep 1
agent gn-0418 29811 $L/gn-0418/launcher.log --log_dir $L/gn-0418 --redirects 3 -- $ARGS
sleep 360
date +%T.%N; ps -ef | grep -c "[t]rainer.py"
cp -a $L /tmp/fl2/01/logs-snapshot
for h in gn-0417 gn-0418; do P=$(cat $W/agent-$h.pid); ALL="$P $(descendants $P)"; kill -KILL $ALL; done
wait
rm -rf $L; mv /tmp/fl2/01/logs-snapshot $L
echo done
