#!/bin/bash
# run-09: torchtune-style finetune recipe, single node (host ft-node-17), 2 workers,
# torchrun --max-restarts 1, --log-dir tree + --tee 3; console + tree delivered as one .zip.
# Injection from outside: the node-local dataset folder is being re-synced; when rank 0's bar
# reaches global step 97 (epoch 1 of 3 ends at 100), shard-00001.bin (rank 1's shard, which it
# re-reads at each epoch start) is renamed away; it is renamed back as soon as the console shows
# a worker failure line (or after 8 s at most). (A first try that kept it away for a fixed 2.5 s
# from step 97 missed the epoch boundary and ran clean; two further tries, with c10d and with
# static rendezvous, restarted but attempt 1 failed in gloo connectFullMesh (connection refused
# to an address of attempt 0); the trainer then got a per-attempt store prefix; not collected.)
source "$(dirname "$0")/lib7.sh"
C=$B7/run-09; W=$SCR/c09; INJ=$W/inject.txt
rm -rf $C/logs $W; mkdir -p $C/logs $W/collect $W/data $W/out
cp $SCR/data/shard-0000[01].bin $W/data/
mkhosts $W/hosts ft-node-17
node ft-node-17 $W/hosts $W/collect/console.log "" \
  torchrun --nnodes 1 --nproc-per-node 2 --master-addr ft-node-17 --master-port 29709 \
    --max-restarts 1 --log-dir $W/collect/torchelastic --tee 3 \
    $SRC/torchtune_like.py --config tiny_full_finetune.yaml epochs=3 steps_per_epoch=100 \
    dataset_dir=$W/data output_dir=$W/out >/dev/null
wait_for_line $W/collect/console.log '1\|9[0-9]\|Loss' 200 || note "step 90 not seen"
mv $W/data/shard-00001.bin $W/data/.shard-00001.bin.partial; note "renamed shard-00001.bin away"
wait_for_line $W/collect/console.log 'failed \(exitcode|Traceback' 8 || note "no failure line within 8 s"
note "failure line seen on console (or 8 s passed)"
mv $W/data/.shard-00001.bin.partial $W/data/shard-00001.bin; note "renamed shard-00001.bin back"
while pgrep -f "torchtune_like.py --config" >/dev/null; do sleep 1; done
note "agent exited"
(cd $W/collect && zip -qr $C/logs/ft-run-0917-logs.zip console.log torchelastic)
