# run-05: single node (this VM, hostname vm), torchrun 2 ranks, DataLoader num_workers=2 per rank.
# The record decoder reads each record's length field and copies that many bytes with ctypes.string_at.
# One training record (the one rank 1 would see at step 150, batch position 3, epoch 0) has its length
# field set to 0x7ff00000 by prep_data.py --bad-header 1:150:3.
# Layout: torchrun --log_dir logs --tee 3: per-rank files plus the console (with [defaultN]: prefixes) in logs/console.log.
. /work/firstlook-b2/runs-src/lib.sh
prep 05
python3 $R/prep_data.py --out $W/data --world 2 --val-shards 2 --bad-header 1:150:3
L=$C/logs
torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29815 --rdzv_id imgrec-2207 \
  --log_dir $L --tee 3 $T --data $W/data --steps 300 --log-every 2 --num-workers 2 --val-every 50 --ckpt-every 50 \
  --ckpt-dir $W/ckpt --pg-timeout 60 > $L/console.log 2>&1
echo rc=$?
echo done
