. /work/firstlook/scratch/lib.sh
prep 03; JOBID=ft-run-88
L=$C/logs
mkdir -p /mnt/fl03-ckpt && mount -t tmpfs -o size=5m tmpfs /mnt/fl03-ckpt
ARGS="--steps 40 --hidden 512 --ckpt-dir /mnt/fl03-ckpt/ft-run-88 --ckpt-every 10 --step-sleep 0.25 --pg-timeout 30"
mkdir -p $L/node-a $L/node-b
agent node-a 0 29703 $L/node-a/launcher.log --log_dir $L/node-a --redirects 3 -- $ARGS
sleep 1
agent node-b 1 29703 $L/node-b/launcher.log --log_dir $L/node-b --redirects 3 -- $ARGS
wait
df -h /mnt/fl03-ckpt; ls -la /mnt/fl03-ckpt/ft-run-88
umount /mnt/fl03-ckpt; rmdir /mnt/fl03-ckpt
echo done
