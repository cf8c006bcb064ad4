#!/bin/bash
# For each case: a host string and a distinctive line from its logs must not occur in
# /work/shared/eval/dev, /work/main/corpora (all, incl. firstlook/b1..b7), the other
# /work/staging/b8 folders, nor /work/staging/b7 (staged, not yet merged); also grep the
# same strings in /work/main/patterns (file names only, not read).
B8=/work/staging/b8
declare -A S=(
 [run-01]="kr-node02: " [run-02]="ernie-ft-worker-1" [run-03]="pl-job-master-0" [run-04]="gpu-a18_"
 [run-05]="det-n2" [run-06]="cn033 python3[" [run-07]="[lg-1] " [run-08]="/work/staging/b8-work-runs/c08/out/model_0000994.pth" [run-09]="hpc-c12")
declare -A L=(
 [run-01]="Epoch 1: val_loss improved from inf to 0.69772"
 [run-02]="exitcode  : -6 (pid: 5542)  (SIGABRT)"
 [run-03]="'val_loss' reached 0.82233 (best 0.82233)"
 [run-04]="step:636 - global_seqlen/min:33"
 [run-05]="Unterminated string starting at: line 18 column 7"
 [run-06]="rendezvous 'trainjob-4471'"
 [run-07]="Logging error in Loguru Handler #2"
 [run-08]="$(cat $B8/runs-src/.d2line 2>/dev/null)"
 [run-09]="$(cat $B8/runs-src/.c09line 2>/dev/null)")
for c in $(echo "${!S[@]}" | tr ' ' '\n' | sort); do
  others=$(ls -d $B8/*/ | grep -vE "/($c|runs-src)/$")
  for s in "${S[$c]}" "${L[$c]}"; do
    hits=$(grep -rlF -- "$s" /work/shared/eval/dev /work/main/corpora /work/staging/b7 $others 2>/dev/null | wc -l)
    pat=$(grep -rlF -- "$s" /work/main/patterns 2>/dev/null | wc -l)
    own=$( { grep -rhaF -- "$s" $B8/$c/logs 2>/dev/null; for z in $B8/$c/logs/*.tar.gz; do [ -f "$z" ] && tar -xzOf "$z" | grep -aF -- "$s"; done; } | wc -l)
    echo "$c | $s | lines in own logs: $own | files hit outside: $hits | patterns: $pat"
  done
done
