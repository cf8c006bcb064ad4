# run-03: 2 nodes (sc-gpu041, sc-gpu042) x 2 ranks, DataLoader num_workers=2, pad_collate pads to max_len 64 and
# raises ValueError for a longer sample. Injected: sample index K (--long-sample K) has 199 tokens; K is the 6th
# sample of global rank 1's 23rd batch of epoch 0 (computed below with the same DistributedSampler).
# Layout: Slurm-style: task 0 = sc-gpu041, task 1 = sc-gpu042, both outputs in logs/slurm-771203.out with
# srun --label style 'N: ' prefixes (emulated with sed -u; no Slurm here).
. /work/firstlook-b3/runs-src/lib.sh
prep 03; JOBID=771203
K=$(python3 -c "
from torch.utils.data.distributed import DistributedSampler
s=DistributedSampler(range(20000),num_replicas=4,rank=1,shuffle=True,seed=0); s.set_epoch(0); print(list(s)[22*16+5])")
echo K=$K
ARGS="--steps 200 --log-every 5 --num-workers 2 --long-sample $K --pg-timeout 60"
task() { ( setsid $R/node.sh $2 torchrun --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29903 \
      --rdzv_id $JOBID $T $ARGS 2>&1; echo "$2 $?" >> $W/rc.txt ) | sed -u "s/^/$1: /" >> $C/logs/slurm-771203.out & }
task 0 sc-gpu041
sleep 1
task 1 sc-gpu042
wait; cat $W/rc.txt; echo done
