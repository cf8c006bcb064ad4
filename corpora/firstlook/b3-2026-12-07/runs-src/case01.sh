# run-01: 2 nodes (hpc-r07n12, hpc-r07n13) x 2 ranks, DDP, 150 steps. Injected: global rank 3 calls os.abort()
# right after loss.backward() of step 47 (FAULT=abort FAULT_RANK=3 FAULT_STEP=47, same env on both agents).
# Layout: per-node folders: torchrun --log_dir logs/<host> --redirects 3 + the agent console as logs/<host>/launcher.log.
. /work/firstlook-b3/runs-src/lib.sh
prep 01; JOBID=seqreg-r07-551
export FAULT=abort FAULT_RANK=3 FAULT_STEP=47
L=$C/logs; mkdir -p $L/hpc-r07n12 $L/hpc-r07n13
ARGS="--steps 150 --log-every 5 --ckpt-dir $W/ckpt --ckpt-every 50 --pg-timeout 60"
agent hpc-r07n12 29901 $L/hpc-r07n12/launcher.log --log_dir $L/hpc-r07n12 --redirects 3 -- $ARGS
sleep 1
agent hpc-r07n13 29901 $L/hpc-r07n13/launcher.log --log_dir $L/hpc-r07n13 --redirects 3 -- $ARGS
wait; cat $W/rc.txt; echo done
