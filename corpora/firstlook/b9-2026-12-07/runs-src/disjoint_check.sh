#!/bin/bash
# For each case: grep -rlF two distinctive strings in the dev set, all corpora (incl. firstlook
# b1..b8), the other /work/staging/b9 folders, and (file names only) /work/main/patterns.
declare -A S
S[01]='clai-cls-118|Booster init: plugin=TorchDDPPlugin, mixed_precision=None, params=0.33M'
S[02]='(TorchTrainerWorker pid=4213, ip=127.0.9.12)|INFO:root:epoch 2 batch 20 auc'
S[03]='espnet-cls-2|size mismatch for body.0.weight: copying a param with shape torch.Size([256, 64]) from checkpoint, the shape in current model is torch.Size([384, 64])'
S[04]='mlflow-run-771|key=samples_per_sec value='
S[05]='sockeye-node-2|failed to connect to [::ffff:192.0.2.77]:29905'
S[06]='acc-ft-worker-0|No module named '"'"'torchmetrics'"'"
S[07]='mds-gpu-03|The node '"'"'mds-gpu-03_10203_0'"'"' has failed'
S[08]='hyd-a100-2|Unable to find address for: ib0'
S[09]='ign-train-worker-1|Process 10875 got signal: 1'
for c in 01 02 03 04 05 06 07 08 09; do
  IFS='|' read -r a b <<< "${S[$c]}"
  for s in "$a" "$b"; do
    n=$(grep -rlF -- "$s" /work/shared/eval/dev /work/main/corpora $(ls -d /work/staging/b9/*/ | grep -v "/run-$c/\|runs-src") 2>/dev/null | wc -l)
    p=$(grep -rlF -- "$s" /work/main/patterns 2>/dev/null | wc -l)
    echo "run-$c  hits_elsewhere=$n  hits_patterns=$p  string: $s"
  done
done
