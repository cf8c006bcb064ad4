. /work/firstlook/scratch/lib.sh
prep 05; JOBID=sft-resume-3
L=$C/logs
mkdir -p $W/checkpoints/sft
ARGS="--steps 200 --resume $W/checkpoints/sft/step_000150.pt --ckpt-dir $W/checkpoints/sft --ckpt-every 50"
agent node-a 0 29705 $L/node-a.log --tee 3 -- $ARGS
sleep 1
agent node-b 1 29705 $L/node-b.log --tee 3 -- $ARGS
wait
echo done
