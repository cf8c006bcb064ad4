# run-04: 2 nodes (node17, node18) x 2 ranks, a long run (100000 steps), checkpoint every 100 steps.
# Injected: each agent runs under `timeout --signal=TERM 45 torchrun ...` (a wall-clock limit: SIGTERM to both
# launchers 45 s after their start).
# Layout: one console file per node, logs/node17.log and logs/node18.log (torchrun --tee 3).
. /work/firstlook-b3/runs-src/lib.sh
prep 04; JOBID=lm-long-0042
ARGS="--steps 100000 --log-every 10 --ckpt-dir $W/ckpt --ckpt-every 100 --pg-timeout 60"
PRE="timeout --signal=TERM 45"
agent node17 29904 $C/logs/node17.log --tee 3 -- $ARGS
sleep 1
agent node18 29904 $C/logs/node18.log --tee 3 -- $ARGS
wait; cat $W/rc.txt; echo done
