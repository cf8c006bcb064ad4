. /work/firstlook/scratch/lib.sh
prep 02; JOBID=pretrain-0412
L=$C/logs
agent node-a 0 29712 $L/console.log -- --steps 60 --log-every 4 --pg-timeout 60
sleep 1
agent node-b 1 29712 $L/console.log -- --steps 60 --log-every 4 --pg-timeout 60
waitfor $L/console.log 'rank=3/4\] trainer: step 20/' 90 || echo NOSTEP
sleep 0.7
PG=$(cat $W/agent-node-b.pid); PIDS="$PG $(descendants $PG)"
ps -o pid,pgid,sid,cmd -p "$(echo $PIDS|tr " " ,)" | cut -c1-150 > $W/killed.txt
kill -KILL $PIDS
echo "killed pgid $PG at $(date +%T.%N)"
wait
echo done
