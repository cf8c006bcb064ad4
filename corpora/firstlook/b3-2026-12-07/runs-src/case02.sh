# run-02: 2 pods (trainer-job-5-master-0, trainer-job-5-worker-0) x 2 ranks, gradients synchronised by hand
# (--grad-sync manual: all grads flattened into one tensor, one dist.all_reduce per step; no DDP).
# Model size comes from /etc/seqreg/model.cfg inside each pod (bind-mounted per pod): hidden 128 on the master pod,
# hidden 160 on the worker pod (config drift). Injected: that per-pod config file only.
# Layout: `kubectl logs --prefix --timestamps` style, both pods merged in arrival order into logs/trainer-job-5.log.
. /work/firstlook-b3/runs-src/lib.sh
prep 02; JOBID=trainer-job-5
mkdir -p $W/cfg-m $W/cfg-w /etc/seqreg
printf 'dim: 32\nhidden: 128\n' > $W/cfg-m/model.cfg
printf 'dim: 32\nhidden: 160   # tuned 2026-12-05\n' > $W/cfg-w/model.cfg
ARGS="--steps 120 --log-every 5 --grad-sync manual --model-cfg /etc/seqreg/model.cfg --pg-timeout 60"
pod() { local n=$1 cfg=$2
  ( NODE_SETUP="mount --bind $cfg /etc/seqreg" setsid $R/node.sh $n torchrun --nnodes 2 --nproc_per_node 2 \
      --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:29902 --rdzv_id $JOBID $T $ARGS 2>&1; echo "$n $?" >> $W/rc.txt ) \
    | python3 $R/kprefix.py "[pod/$n/pytorch]" $C/logs/trainer-job-5.log &
}
pod trainer-job-5-master-0 $W/cfg-m
sleep 1
pod trainer-job-5-worker-0 $W/cfg-w
wait; rmdir /etc/seqreg; cat $W/rc.txt; echo done
