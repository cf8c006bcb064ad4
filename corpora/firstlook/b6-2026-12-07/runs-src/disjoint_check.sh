#!/bin/bash
# For each case: grep -rlF one distinctive log line (an id that only this case's
# logs contain) in the eval dev set, the whole corpora tree and the other b6 staging folders.
declare -A S=(
 [run-01]="host      : gpu-node-08"    [run-02]="[trn-2] [rank0]:[rank2]: KeyError: 'text'"   [run-03]="host      : lit-worker-1"
 [run-04]="0: [metrics] WARN connect to metrics-gw:9400 failed"       [run-05]="[seqcls-worker-1:rank2] seqcls.train" [run-06]="host      : ip-10-0-3-18"
 [run-07]="tinylm-sft-v3/checkpoint-120/pytorch_model.bin"         [run-08]="0 | model     | TabularMLP | 74.5 K | train"        [run-09]="compute-0-13_"
)
for c in $(printf '%s\n' "${!S[@]}" | sort); do
  s=${S[$c]}
  own=$(grep -rlF -- "$s" /work/staging/b6/$c/logs 2>/dev/null | wc -l)
  own_z=0; for t in /work/staging/b6/$c/logs/*.tar.gz; do [ -f "$t" ] && tar -xzOf "$t" | grep -qF -- "$s" && own_z=1; done
  other=$(grep -rlF -- "$s" /work/shared/eval/dev /work/main/corpora 2>/dev/null | wc -l)
  sib=$(grep -rlF --exclude-dir=runs-src -- "$s" /work/staging/b6 2>/dev/null | grep -v "^/work/staging/b6/$c/" | wc -l)
  echo "$c '$s': own=$own own_tgz=$own_z dev+corpora=$other other_b6_cases=$sib"
done
