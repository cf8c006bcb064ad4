# run-05: 2 nodes (mlx-a3, mlx-a4) x 2 ranks, gloo timeout 20 s. Local rank 0 of each node queues a metrics line per
# step and every 10 steps a background thread takes the queue lock and writes the queue to the node's metrics FIFO
# /run/seqreg/metrics.fifo (per-node dir bind-mounted at /run/seqreg); the main thread takes the same lock to count
# the queue at every log step. Injected: mlx-a3's FIFO has a reader (a `cat` loop, the node's metrics agent),
# mlx-a4's FIFO has none, so open() for writing blocks forever while holding the lock.
# Layout: a tar.gz of the log folder: <host>/launcher.log + torchrun --log_dir <host> --redirects 3 tree per node.
. /work/firstlook-b3/runs-src/lib.sh
prep 05; JOBID=mlx-seqreg-19
mkdir -p $W/run-a3 $W/run-a4 /run/seqreg; mkfifo $W/run-a3/metrics.fifo $W/run-a4/metrics.fifo
( while true; do cat $W/run-a3/metrics.fifo > /dev/null; done ) & READER=$!
L=$W/collect/logs; mkdir -p $L/mlx-a3 $L/mlx-a4
ARGS="--steps 200 --log-every 5 --metrics-fifo /run/seqreg/metrics.fifo --pg-timeout 20"
NODE_SETUP="mount --bind $W/run-a3 /run/seqreg" agent mlx-a3 29905 $L/mlx-a3/launcher.log --log_dir $L/mlx-a3 --redirects 3 -- $ARGS
sleep 1
NODE_SETUP="mount --bind $W/run-a4 /run/seqreg" agent mlx-a4 29905 $L/mlx-a4/launcher.log --log_dir $L/mlx-a4 --redirects 3 -- $ARGS
wait %2 %3 2>/dev/null; while [ $(wc -l < $W/rc.txt 2>/dev/null || echo 0) -lt 2 ]; do sleep 1; done
kill $READER; : > $W/run-a3/metrics.fifo; rmdir /run/seqreg   # opening the FIFO for writing lets the last cat finish
tar -C $W/collect -czf $C/logs/mlx-seqreg-19-logs.tar.gz logs; tar -tzvf $C/logs/mlx-seqreg-19-logs.tar.gz
cat $W/rc.txt; echo done
