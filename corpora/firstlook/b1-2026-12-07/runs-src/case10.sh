. /work/firstlook/scratch/lib.sh
prep 10; JOBID=lm-pt-0031
L=$C/logs
ARGS="--steps 60 --step-sleep 0.25 --log-every 3 --ckpt-dir $W/ckpt --ckpt-every 25"
agent node-a 0 29710 $L/node-a.log --log_dir $L/ranks/node-a --tee 3 --local-ranks-filter 0 -- $ARGS
sleep 1
agent node-b 1 29710 $L/node-b.log --log_dir $L/ranks/node-b --tee 3 --local-ranks-filter 0 -- $ARGS
sleep 3
F=$(ls -d $L/ranks/node-b/$JOBID_*/attempt_0/1 2>/dev/null | head -1)/stdout.log
waitfor $F 'step 33/' 90 || echo NOSTEP
RP=$(grep -oE 'starting pid=[0-9]+' $F | head -1 | cut -d= -f2)
kill -TERM $RP; echo "SIGTERM -> $RP at $(date +%T.%N)"
wait
echo done
