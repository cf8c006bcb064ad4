#!/bin/bash
# run-06: ASR-style trainer, 2 pods x 2 ranks, per-pod log folders; a dataset shard file is deleted from outside mid-run
source /work/staging/b10/runs-src/lib.sh
C=$B10/run-06; REC=$SRC/inject-records/c06.txt; rm -rf $C; mkdir -p $C/logs; : > $REC
H=$SRC/hosts-c06; make_hosts $H asr-job-worker-0 127.0.10.1 asr-job-worker-1 127.0.10.2
D=/tmp/b10-c06-data/train; rm -rf $D; mkdir -p $D
python3 -c "
import torch
for i in range(16):
    g=torch.Generator().manual_seed(i); torch.save({'x':torch.randn(320,256,generator=g),'y':torch.randint(0,10,(320,),generator=g)}, '$D/shard-%05d-of-00016.pt'%i)"
rec "wrote 16 shards to $D"
export STYLE=asr STEPS=400 STEP_SLEEP=0.2 TRAIN_DIST_TIMEOUT=60 EPOCH_LEN=50 DATA_DIR=$D
TR="torchrun --nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=asr-job-worker-0:29516 --rdzv-id=asr-job --max-restarts=0 --tee 3"
A=$(start_node asr-job-worker-0 $H $C/logs/pods/asr-job-worker-0/log.txt "" $TR --log-dir $C/logs/pods/asr-job-worker-0/torchelastic $SRC/trainer.py)
B=$(start_node asr-job-worker-1 $H $C/logs/pods/asr-job-worker-1/log.txt "" $TR --log-dir $C/logs/pods/asr-job-worker-1/torchelastic $SRC/trainer.py)
rec "started agents worker-0=$A worker-1=$B"
sleep 25; rm -f $D/shard-00014-of-00016.pt; rec "deleted $D/shard-00014-of-00016.pt"
for i in $(seq 1 30); do sleep 5; kill -0 $A 2>/dev/null || kill -0 $B 2>/dev/null || break; done
for p in $A $B; do kill -0 $p 2>/dev/null && { rec "agent $p alive at deadline; SIGTERM"; kill -TERM $p; }; done
wait; rec "done"; rm -rf /tmp/b10-c06-data
