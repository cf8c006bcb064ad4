. /work/firstlook/scratch/lib.sh
prep 09; JOBID=rm-train-1207
L=$C/logs
ARGS="--steps 50 --step-sleep 0.2 --log-every 4 --epoch-iter --log-stream stderr"
agent node-a 0 29709 $L/console.log --tee 3 --role trainer -- $ARGS
sleep 1
agent node-b 1 29709 $L/console.log --tee 3 --role trainer -- $ARGS
wait
echo done
