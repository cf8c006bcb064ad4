# run-08: 2 nodes (wk-a, wk-b) x 2 ranks. Every 40 steps local rank 0 of each node allocates a 1536 MB in-memory
# validation cache (bytearray) before the validation all_reduce. Injected: on wk-b only, `ulimit -v 2000000`
# (KB of virtual address space per process) is set inside the node before torchrun starts; a worker uses ~900 MB VSZ.
# Layout: per-node folders with the agent console: logs/wk-a/console.log, logs/wk-b/console.log (--tee 3).
. /work/firstlook-b3/runs-src/lib.sh
prep 08; JOBID=wk-seqreg-80
mkdir -p $C/logs/wk-a $C/logs/wk-b
ARGS="--steps 150 --log-every 5 --val-every 40 --val-cache-mb 1536 --pg-timeout 60"
agent wk-a 29908 $C/logs/wk-a/console.log --tee 3 -- $ARGS
sleep 1
NODE_SETUP="ulimit -v 2000000" agent wk-b 29908 $C/logs/wk-b/console.log --tee 3 -- $ARGS
wait; cat $W/rc.txt; echo done
