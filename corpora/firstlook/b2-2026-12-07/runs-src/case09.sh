# run-09: 2 nodes (worker-17, worker-18) x 2 ranks, torchrun --max-restarts 2. Both nodes get the same job
# environment, PYTHONPATH=/opt/ml-site:<code>/pkgs. /opt/ml-site is empty on worker-17; on worker-18 it holds an
# older copy of the job's helper package trainlib (0.8.1, bind-mounted inside worker-18's mount namespace from
# runs-src/pkgs-0.8), which shadows trainlib 0.9.2 from <code>/pkgs and has no trainlib.sched.build_scheduler.
# Layout: per-node console files logs/worker-17.log, logs/worker-18.log (agents run with --tee 3).
. /work/firstlook-b2/runs-src/lib.sh
prep 09; JOBID=mlp-sweep-218
python3 $R/prep_data.py --out $W/data --val-shards 4
mkdir -p /opt/ml-site
export PYTHONPATH=/opt/ml-site:$R/pkgs
ARGS="--data $W/data --steps 300 --log-every 3 --val-every 50 --ckpt-every 50 --ckpt-dir $W/ckpt --pg-timeout 60"
agent worker-17 29819 $C/logs/worker-17.log --max-restarts 2 --tee 3 -- $ARGS
sleep 1
NODE_SETUP="mount --bind $R/pkgs-0.8 /opt/ml-site" agent worker-18 29819 $C/logs/worker-18.log --max-restarts 2 --tee 3 -- $ARGS
wait
rmdir /opt/ml-site
echo done
