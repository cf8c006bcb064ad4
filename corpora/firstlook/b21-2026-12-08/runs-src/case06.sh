#!/bin/bash
# case 06: 2 nodes x 2 ranks (world 4), ludwig-like console; TWO launches appended to the same per-node files
# logs/node-a.log, logs/node-b.log (--tee 3). Each node's LOCAL_RANK 0 saves to its own node-local checkpoint dir.
# Launch 1 (rdzv id tab-j1): steps 0-300. Between the launches one bit of node-b's 300.ckpt is flipped (byte at the
# local-file-header signature of the first tensor record: XOR 0x04), size unchanged. Launch 2 (tab-j2): RESUME=1, STEPS=600.
source /work/staging/b21/runs-src/lib.sh
setup 06; mkhosts $T/hosts node-a node-b; mkdata feat $T/data 16 256
export STYLE=ludwig LOG_EVERY=20 EVAL_EVERY=100 SAVE_EVERY=100 STEP_SLEEP=0.08 PG_TIMEOUT=60 DATA_DIR=$T/data RUN_NAME=tabular_cls
launch() { local id=$1
  ARGS="--nnodes=2 --nproc-per-node=2 --rdzv-backend=c10d --rdzv-endpoint=node-a:29361 --rdzv-id=$id --max-restarts=0 --tee=3"
  agent node-a $T/hosts $C/logs/node-a.log "export CKPT_DIR=$T/ckpt-a" $ARGS $SRC/train_b21.py
  sleep 1
  agent node-b $T/hosts $C/logs/node-b.log "export CKPT_DIR=$T/ckpt-b" $ARGS $SRC/train_b21.py
  rec "launch $id: agents node-a $(apid node-a) node-b $(apid node-b) STEPS=$STEPS RESUME=${RESUME:-0}"
  waitagents 150 node-a node-b || rec "agents still alive after 150s"; reap node-a node-b; }
STEPS=300 launch tab-j1
F=$T/ckpt-b/training_checkpoints/300.ckpt
OFF=$(python3 -c "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print([i.header_offset for i in z.infolist() if i.filename.endswith('/data/0')][0])" $F)
python3 -c "import sys; f=open(sys.argv[1],'r+b'); o=int(sys.argv[2]); f.seek(o); b=f.read(1)[0]; f.seek(o); f.write(bytes([b^4])); f.close()" $F $OFF
rec "flipped one bit (XOR 0x04) of byte $OFF of $F (size $(stat -c %s $F)); node-a's copy untouched"
sleep 5
STEPS=600 RESUME=1 launch tab-j2
rec "done"
