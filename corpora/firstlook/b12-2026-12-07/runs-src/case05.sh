#!/bin/bash
# case05: 2 nodes x 1 rank, TF-estimator-like logging; job 1 trains and saves, checkpoint truncated between jobs, job 2 resumes
. /work/staging/b12/runs-src/common.sh
C=/work/staging/b12/run-05; REC=$SRC/inject-records/c05.txt; H=$SRC/hosts/c05.hosts; : > $REC
CK=/tmp/b12-c05-shared/model_dir; rm -rf /tmp/b12-c05-shared; mkdir -p $CK
for J in 1 2; do
  TR="torchrun --nnodes=2 --nproc-per-node=1 --rdzv-backend=c10d --rdzv-endpoint=node-a:29515 --rdzv-id=est-58$J"
  if [ $J = 1 ]; then ARGS="$T --style tfest --epochs 2 --steps 160 --step-sleep 0.2 --ckpt-dir $CK --save-every 25"; else ARGS="$T --style tfest --epochs 4 --steps 160 --step-sleep 0.2 --ckpt-dir $CK --save-every 25 --resume"; fi
  rec "job $J start node-a"; A=$(node node-a $H $C/logs/job$J/node-a $TR --log-dir $C/logs/job$J/node-a --tee 3 $ARGS)
  rec "job $J start node-b"; B=$(node node-b $H $C/logs/job$J/node-b $TR --log-dir $C/logs/job$J/node-b --tee 3 $ARGS)
  for i in $(seq 120); do [ $(alive $A) = n ] && [ $(alive $B) = n ] && break; sleep 1; done
  rec "job $J after wait: A=$(alive $A) B=$(alive $B)"; wait
  if [ $J = 1 ]; then S=$(stat -c %s $CK/model.ckpt); truncate -s $((S/2)) $CK/model.ckpt; rec "truncated $CK/model.ckpt from $S to $((S/2)) bytes"; fi
done
rm -rf /tmp/b12-c05-shared; rec "end"
