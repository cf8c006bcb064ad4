#!/bin/bash
# For each case: a distinctive string from its logs must not occur in /work/shared/eval/dev,
# /work/main/corpora (all, incl. firstlook/b1..b6) nor in the other /work/staging/b7 folders.
B7=/work/staging/b7
declare -A S=(
 [run-01]="host      : lm-node-a" [run-02]="det-worker-1" [run-03]="mt-node-2" [run-04]="cmp-n2"
 [run-05]="nemo-gpt-worker-1" [run-06]="tinylm-jsonl-06" [run-07]="img-train-c" [run-08]="[Rank 0] training finished: 300 iterations, 14 skipped, final loss scale 4194304.0"
 [run-09]="Resuming from checkpoint: /work/staging/b7-work-runs/c09/out/recipe_state.pt (epochs_run=1)")
declare -A L=(
 [run-01]="| loaded checkpoint /work/staging/b7-work-runs/c01/ckpt/checkpoint_last.pt (epoch 2 @ 300 updates)"
 [run-02]="RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 16591680 vs 16591572"
 [run-03]="reader stats: {'read': 2048, 'batches': 112, 'tokens': 114688, 'buffered': 256}"
 [run-04]="[Rank 0]: Ranks 2 failed to pass monitoredBarrier in 30000 ms"
 [run-05]="model.micro_batch_size: 8"
 [run-06]="\"event\": \"tracker_updated\""
 [run-07]="kNN monitor: bank 16000 x 128, queries 4000"
 [run-08]="training finished: 300 iterations"
 [run-09]="Resuming from checkpoint:")
others=$(ls -d $B7/*/ | grep -vE "/(run-0[1-9]|runs-src)/$")
for c in $(echo "${!S[@]}" | tr ' ' '\n' | sort); do
  for s in "${S[$c]}" "${L[$c]}"; do
    hits=$(grep -rlF -- "$s" /work/shared/eval/dev /work/main/corpora $others 2>/dev/null | wc -l)
    own=$( { grep -rhF -- "$s" $B7/$c/logs 2>/dev/null; for z in $B7/$c/logs/*.tar.gz; do [ -f "$z" ] && tar -xzOf "$z" | grep -F -- "$s"; done; for z in $B7/$c/logs/*.zip; do [ -f "$z" ] && unzip -p "$z" | grep -aF -- "$s"; done; } | wc -l)
    echo "$c | $s | lines in own logs: $own | files hit outside: $hits"
  done
done
