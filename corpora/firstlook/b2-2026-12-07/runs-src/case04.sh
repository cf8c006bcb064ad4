# run-04: 2 pods (pt-run7-worker-0, pt-run7-worker-1) x 2 ranks. /mnt/ckpt in each pod is that pod's own
# disk (a bind mount of a per-pod directory inside the pod's mount namespace), not shared storage.
# Stage 1 (not logged) trains 60 steps; rank 0 (worker-0) writes /mnt/ckpt/run7/step_000030.pt and step_000060.pt
# on worker-0's disk. Stage 2 (logged) is launched with --resume /mnt/ckpt/run7/step_000060.pt on every pod.
# Collected like `kubectl logs -l job=pt-run7 --prefix -f`: one stream, each line prefixed [pod/NAME/pytorch].
. /work/firstlook-b2/runs-src/lib.sh
prep 04; JOBID=pt-run7
python3 $R/prep_data.py --out $W/data --val-shards 4
mkdir -p $W/disk/pt-run7-worker-0 $W/disk/pt-run7-worker-1 /mnt/ckpt
ARGS="--data $W/data --log-every 5 --val-every 30 --ckpt-every 30 --ckpt-dir /mnt/ckpt/run7 --pg-timeout 120"
pod() {  # pod NAME PORT OUT trainer-args...
  local n=$1 port=$2 out=$3; shift 3
  ( NODE_SETUP="mount --bind $W/disk/$n /mnt/ckpt" setsid $R/node.sh $n torchrun --nnodes 2 --nproc_per_node 2 \
      --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:$port --rdzv_id $JOBID $T $ARGS "$@" 2>&1; echo "pod $n rc=$?" >&2 ) \
    | sed -u "s#^#[pod/$n/pytorch] #" >> $out &
}
pod pt-run7-worker-0 29814 $W/stage1.log --steps 60
sleep 1
pod pt-run7-worker-1 29814 $W/stage1.log --steps 60
wait
find $W/disk -type f | xargs ls -la
JOBID=pt-run7-resume
pod pt-run7-worker-0 29824 $C/logs/pt-run7.log --steps 200 --resume /mnt/ckpt/run7/step_000060.pt
sleep 1
pod pt-run7-worker-1 29824 $C/logs/pt-run7.log --steps 200 --resume /mnt/ckpt/run7/step_000060.pt
wait
rmdir /mnt/ckpt
echo done
