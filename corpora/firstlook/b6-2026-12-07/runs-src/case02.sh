#!/bin/bash
# run-02: torchtitan-style byte-LM, 3 nodes x 1 worker; one merged console with
# "[hostname] " prefixes (a log shipper tags each node's stream).
# Fault: trn-2's node-local copy of the corpus is a different export in which
# records 1200-1259 carry the field "content" instead of "text".
source "$(dirname "$0")/common.sh"
C=$B6/run-02; W=$WORK/c02
rm -rf $C/logs $W; mkdir -p $C/logs $W
write_hosts $W/hosts trn-0 trn-1 trn-2
for h in trn-0 trn-1 trn-2; do mkdir -p $W/$h/data; cp $WORK/text/corpus.jsonl $W/$h/data/; done
python3 - $W/trn-2/data/corpus.jsonl <<'PY'
import json, sys
L = open(sys.argv[1]).read().splitlines()
for i in range(1200, 1260):
    r = json.loads(L[i]); r["content"] = r.pop("text"); L[i] = json.dumps(r)
open(sys.argv[1], "w").write("\n".join(L) + "\n")
PY
echo "$(stamp) trn-2 corpus.jsonl lines 1200-1259: text->content" >> $W/inject.txt
for h in trn-0 trn-1 trn-2; do
  start_node_pipe $h $W/hosts host $h $C/logs/console.log "mount --bind $W/$h/data /mnt;" -- \
    $TORCHRUN --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint trn-0:29621 \
      --rdzv-id bytelm-pt-77 --max-restarts 0 --role rank --tee 3 --local-ranks-filter 0 \
      $SRC/titan_style.py --job.dump_folder $WORK/c02/shared-ckpt --training.dataset_path /mnt/corpus.jsonl \
      --training.steps 300 --checkpoint.interval 50 --model.dim 128 --model.n_layers 2 --comm.init_timeout_seconds 300 > $W/$h.pid
  sleep 1
done
wait; sleep 1
echo "$(stamp) all agents exited" >> $W/inject.txt
