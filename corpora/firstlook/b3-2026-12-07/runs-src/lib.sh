# shared helpers for caseNN.sh (b3)
R=/work/firstlook-b3/runs-src
B=/work/firstlook-b3
T=$R/trainer.py
export PYTHONUNBUFFERED=1
prep() { C=$B/run-$1; W=/tmp/fl3/$1; rm -rf $C $W; mkdir -p $C/logs $W; cd $W; }
# agent HOST PORT OUT [torchrun opts...] -- [trainer args...]   (2 nodes x 2 procs, c10d rendezvous on 127.0.0.1)
agent() {
  local h=$1 port=$2 out=$3; shift 3
  local topts=()
  while [ "$1" != "--" ]; do topts+=("$1"); shift; done; shift
  ( setsid $R/node.sh $h $PRE torchrun --nnodes 2 --nproc_per_node 2 \
     --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:$port --rdzv_id $JOBID "${topts[@]}" $T "$@" >> $out 2>&1; echo "$h $?" >> $W/rc.txt ) &
}
