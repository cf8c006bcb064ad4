. /work/firstlook/scratch/lib.sh
prep 06
L=$C/logs
torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29706 --rdzv_id img-aug-22 --log_dir $L --redirects 3 \
   $T --steps 60 --num-workers 2 --sample-delay 0.002 --step-sleep 0.2 --log-every 5 > $L/launcher.log 2>&1 &
TR=$!
sleep 2
F=$(ls -d $L/img-aug-22_*/attempt_0/1)/stdout.log
waitfor $F 'step 15/' 90 || echo NOSTEP
RP=$(grep -oE 'starting pid=[0-9]+' $F | head -1 | cut -d= -f2)
KIDS=$(ps -o pid= --ppid $RP | tr -d ' ')
echo "rank1 pid=$RP children=$KIDS"; ps -o pid,ppid,cmd -p $(echo $KIDS | tr ' ' ,) | cut -c1-120
VICTIM=$(echo $KIDS | awk '{print $2}')
kill -KILL $VICTIM; echo "killed $VICTIM at $(date +%T.%N)"
wait $TR; echo rc=$?
