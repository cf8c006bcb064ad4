# run-06: single node (esx-n1), torchrun 2 ranks. Batches pass through a recursive to_device() helper.
# Injected: on rank 1 at step 33 the batch gets a "meta" dict that refers back to the batch (a cycle).
# Layout: the console only (torchrun --tee 3), logs/console.log.
. /work/firstlook-b3/runs-src/lib.sh
prep 06
export FAULT=recursion FAULT_RANK=1 FAULT_STEP=33
setsid $R/node.sh esx-n1 torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29906 \
  --rdzv_id seqreg-esx-3 --tee 3 $T --steps 100 --log-every 5 --pg-timeout 60 > $C/logs/console.log 2>&1
echo "rc=$?"; echo done
