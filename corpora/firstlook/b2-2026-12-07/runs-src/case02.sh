# run-02: 2 nodes (cn-0412, cn-0413) x 2 ranks, Slurm-style: one agent per node as task 0 / task 1,
# both outputs merged into one file with srun --label style "N: " prefixes (emulated with sed -u, no Slurm here).
# One of the 4 validation shards (val-002.pt) is cut to 60% of its size (os.truncate).
# gloo timeout 20 s.
. /work/firstlook-b2/runs-src/lib.sh
prep 02; JOBID=slurm-88412
python3 $R/prep_data.py --out $W/data --val-shards 4 --cut-val 2
L=$C/logs
ARGS="--data $W/data --steps 300 --log-every 2 --val-every 50 --ckpt-every 50 --ckpt-dir $W/ckpt --pg-timeout 20 --log-stream stderr"
task() {  # task ID HOST
  ( setsid $R/node.sh $2 torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29812 \
      --rdzv_id $JOBID $T $ARGS 2>&1; echo "agent $2 rc=$?" >&2 ) | sed -u "s/^/$1: /" >> $L/slurm-88412.out &
}
task 0 cn-0412
sleep 1
task 1 cn-0413
wait
echo done
