#!/bin/bash
# case 03: icefall-like, 3 nodes x 1 rank, one merged console (srun --label style "N: " prefix per node task).
# Injection: node-c's worker placed in a memory cgroup (v1) with a 150 MiB limit (a smaller node); dmesg lines kept.
CASE=c03; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/fbank; mkdir -p $D $WORK/$CASE/out
python3 -c "
import numpy as np
r=np.random.default_rng(0)
for i in range(10): np.save('$D/feats-%03d.npy'%i, r.standard_normal((240,400,80)).astype(np.float32))"
DM0=$(dmesg | wc -l)
i=0
for n in a b c; do
  ( cd $WORK/$CASE && B14_NODE=node-$n in_node node-$n python3 -m torch.distributed.run --nnodes=3 --nproc-per-node=1 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29503 --rdzv-id=zipformer-ls100-3n --max-restarts=0 \
      $SRC/icefall_like.py --manifest-dir $D 2>&1 | sed -u "s/^/$i: /" >> $WORK/$CASE/out/console.log ) &
  i=$((i+1))
done
rec "started 3 agents node-a,node-b,node-c (1 rank each); all output into one console.log with srun-label-like 'N: ' prefix (0=node-a,1=node-b,2=node-c)"
sleep 15
W=$(for p in $(pgrep -f icefall_like.py); do e=$(tr '\0' '\n' </proc/$p/environ); echo "$e" | grep -qx B14_NODE=node-c && echo "$e" | grep -q ^LOCAL_RANK= && echo $p; done | head -1)
CG=/sys/fs/cgroup/memory/b14-c03-node-c; mkdir -p $CG; echo $((150*1024*1024)) > $CG/memory.limit_in_bytes; echo $W > $CG/cgroup.procs
rec "moved node-c worker pid=$W into memory cgroup $CG with memory.limit_in_bytes=150MiB (new allocations charged)"
wait
rec "all agents exited"
dmesg | tail -n +$((DM0+1)) > $WORK/$CASE/out/dmesg-new.log
rec "saved new dmesg lines ($(wc -l < $WORK/$CASE/out/dmesg-new.log))"
rmdir $CG
