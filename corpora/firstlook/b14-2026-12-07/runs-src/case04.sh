#!/bin/bash
# case 04: nnU-Net-like, 2 nodes x 2 ranks. Injection: one preprocessed case file overwritten mid-run (outside the trainer) with data containing non-finite values.
CASE=c04; source /work/staging/b14/runs-src/lib.sh
rm -rf $WORK/$CASE; mk_hosts; D=$WORK/$CASE/nnUNet_preprocessed/Dataset014_Toy/nnUNetPlans_2d; python3 -m b14common images $D 1
mkdir -p $WORK/$CASE/out
for n in a b; do
  ( cd $WORK/$CASE && B14_NODE=node-$n in_node node-$n python3 -m torch.distributed.run --nnodes=2 --nproc-per-node=2 \
      --rdzv-backend=c10d --rdzv-endpoint=node-a:29504 --rdzv-id=nnunet-d014-f0 --max-restarts=0 \
      --log-dir $WORK/$CASE/out/torchelastic-node-$n --tee 3 \
      $SRC/nnunet_like.py --preprocessed $D --out $WORK/$CASE/out/results-node-$n/fold_0 > $WORK/$CASE/out/console-node-$n.log 2>&1 ) &
done
rec "started agents node-a and node-b (2 ranks each)"
sleep 24
python3 - <<PY
import numpy as np
p = "$D/case_0003.npz"
z = np.load(p); x = z["data"].copy(); s = z["seg"].copy()
x[5:40, :, 8:20, :] = np.nan
np.savez("$D/tmp_case_0003.npz", data=x, seg=s)
import os; os.replace("$D/tmp_case_0003.npz", p)
PY
rec "overwrote $D/case_0003.npz (rows 5-39 of 'data' partly set to NaN, atomic replace)"
wait
rec "all agents exited"
