# run-07: 2 nodes (bm-x9-0, bm-x9-1) x 2 ranks; nothing injected. Part 1: 120-step job with a planned stop after
# step 60 (--stop-after 60; rank 0 checkpoints every 30 steps to a shared dir). Part 2: the same job relaunched with
# --resume auto, continuing from step_000060.pt to step 120.
# Layout: per-node folders, each agent's console per part: logs/<host>/part1.log, logs/<host>/part2.log (--tee 3).
. /work/firstlook-b3/runs-src/lib.sh
prep 07; JOBID=bm-x9-ft-7
for h in bm-x9-0 bm-x9-1; do mkdir -p $C/logs/$h; done
ARGS="--steps 120 --log-every 5 --ckpt-dir $W/shared/ckpt --ckpt-every 30 --pg-timeout 60"
agent bm-x9-0 29907 $C/logs/bm-x9-0/part1.log --tee 3 -- $ARGS --stop-after 60
sleep 1
agent bm-x9-1 29907 $C/logs/bm-x9-1/part1.log --tee 3 -- $ARGS --stop-after 60
wait; cat $W/rc.txt; ls -la $W/shared/ckpt
JOBID=bm-x9-ft-7-resume
agent bm-x9-0 29917 $C/logs/bm-x9-0/part2.log --tee 3 -- $ARGS --resume auto
sleep 1
agent bm-x9-1 29917 $C/logs/bm-x9-1/part2.log --tee 3 -- $ARGS --resume auto
wait; cat $W/rc.txt; echo done
