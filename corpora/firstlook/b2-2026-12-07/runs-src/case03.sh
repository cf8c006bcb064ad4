# run-03: 2 nodes (trn-a01, trn-a02) x 2 ranks, shared checkpoint dir, pre-1.6 (legacy) serialization.
# Job A (not logged) trains 120 of 400 steps, saving step_000040/80/120.pt; then step_000120.pt is cut
# to 45% of its size with `truncate` (what an interrupted write leaves). Job B (logged) starts with
# --resume auto and torchrun --max-restarts 1. Collected as a tar.gz of the log folder.
. /work/firstlook-b2/runs-src/lib.sh
prep 03; JOBID=ft-legacy-v2
python3 $R/prep_data.py --out $W/data --val-shards 4
ARGS="--data $W/data --steps 400 --log-every 4 --val-every 40 --ckpt-every 40 --ckpt-legacy --ckpt-dir $W/shared/ckpt/ft-legacy-v2 --hidden 384 --pg-timeout 60"
mkdir -p $W/jobA
agent trn-a01 29813 $W/jobA/a01.log -- $ARGS --steps 120
sleep 1
agent trn-a02 29813 $W/jobA/a02.log -- $ARGS --steps 120
wait
ls -la $W/shared/ckpt/ft-legacy-v2
F=$W/shared/ckpt/ft-legacy-v2/step_000120.pt
truncate -s $(( $(stat -c %s $F) * 45 / 100 )) $F
ls -la $W/shared/ckpt/ft-legacy-v2
# job B
JOBID=ft-legacy-v2-r1
L=$W/collect/logs; mkdir -p $L/trn-a01 $L/trn-a02
agent trn-a01 29823 $L/trn-a01/launcher.log --max-restarts 1 --log_dir $L/trn-a01 --redirects 3 -- $ARGS --resume auto
sleep 1
agent trn-a02 29823 $L/trn-a02/launcher.log --max-restarts 1 --log_dir $L/trn-a02 --redirects 3 -- $ARGS --resume auto
wait
tar -C $W/collect -czf $C/logs/ft-legacy-v2-r1-logs.tar.gz logs
tar -tzvf $C/logs/ft-legacy-v2-r1-logs.tar.gz
echo done
