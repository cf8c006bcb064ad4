. /work/firstlook/scratch/lib.sh
prep 04
L=$C/logs
# earlier job that wrote the checkpoint (log not kept in the case)
torchrun --standalone --nproc_per_node 2 $T --steps 20 --step-sleep 0.05 --ckpt-dir $W/ckpt --ckpt-every 10 > $W/prerun.log 2>&1
ls -l $W/ckpt
SZ=$(stat -c %s $W/ckpt/step_000020.pt); truncate -s $((SZ*6/10)) $W/ckpt/step_000020.pt; ls -l $W/ckpt
torchrun --standalone --nproc_per_node 2 $T --steps 60 --log-stream stderr --resume $W/ckpt/step_000020.pt --ckpt-dir $W/ckpt --ckpt-every 10 > $L/console.log 2>&1
echo rc=$?
