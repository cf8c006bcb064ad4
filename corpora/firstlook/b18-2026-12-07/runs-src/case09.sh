#!/bin/bash
# case 09: 2 nodes x 2 ranks, PyTorch-BigGraph-like logging. node-a's checkpoint dir is an ext4 on a loop device whose
# writes are throttled to 1 MiB/s (blkio cgroup v1 throttle on the loop device, node-a's agent and its workers placed in it).
source /work/staging/b18/runs-src/lib.sh
C=/work/staging/b18/run-09; T=$TMPB/c09; REC=$SRC/inject-records/c09.txt; CG=/sys/fs/cgroup/blkio/b18c09
rm -rf $C $T; mkdir -p $C/logs $T/mnt; : > $REC; mkhosts $T/hosts node-a node-b; mkdata $T/data 9
truncate -s 400M $T/ckpt.img; mkfs.ext4 -q $T/ckpt.img; L=$(losetup -f --show $T/ckpt.img); MM=$(lsblk -no MAJ:MIN $L | tr -d ' ')
mkdir -p $CG; echo "$MM 1048576" > $CG/blkio.throttle.write_bps_device
rec "loop device $L ($MM) with ext4 for node-a /mnt/ckpt; blkio cgroup b18c09 write_bps $(cat $CG/blkio.throttle.write_bps_device)"
cat > $T/config.json <<'J'
{"max_steps": 300, "lr": 0.1, "optimizer": "adagrad", "batch_size": 8, "seq_len": 64, "log_every": 25, "eval_every": 100, "save_every": 100, "num_entities": 50000, "dim": 32, "seed": 0}
J
export LOG_STYLE=pbg JOB_CONFIG=$T/config.json TRAIN_DATA_PATTERN="$T/data/tok_train_*.bin" VAL_DATA_PATTERN="$T/data/tok_val_*.bin" STEP_SLEEP=0.08 PG_TIMEOUT=120 CKPT_DIR=/mnt/ckpt
ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29189 --rdzv-id=pbg-fb15k-3 --max-restarts=0 --tee=3"
agent node-a $T/hosts $C/logs/node-a.console.log "mkdir -p /mnt/ckpt; mount $L /mnt/ckpt; echo \$\$ > $CG/cgroup.procs" $ARGS --log-dir=$C/logs/elastic-node-a $SRC/trainer.py
agent node-b $T/hosts $C/logs/node-b.console.log "mkdir -p /mnt/ckpt; mount -t tmpfs -o size=512m tmpfs /mnt/ckpt" $ARGS --log-dir=$C/logs/elastic-node-b $SRC/trainer.py
rec "started agents node-a $(apid node-a) (in b18c09: $(grep blkio /proc/$(apid node-a)/cgroup)) node-b $(apid node-b)"
waitagents 175 node-a node-b || rec "agents still alive after 175s"
reap node-a node-b
rec "blkio stats: $(grep -i write $CG/blkio.throttle.io_service_bytes | tr '\n' ' ')"
sleep 1; losetup -d $L; rmdir $CG; rm -f $T/ckpt.img; rec "done"
