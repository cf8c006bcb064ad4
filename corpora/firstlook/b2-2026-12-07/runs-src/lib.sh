# shared helpers for caseNN.sh
R=/work/firstlook-b2/runs-src
B=/work/firstlook-b2
T=$R/trainer.py
export PYTHONPATH=$R/pkgs
export PYTHONUNBUFFERED=1
# prep NN -> fresh $C=$B/run-NN/logs-less case dir, work dir $W=/tmp/fl2/NN, cd $W
prep() { C=$B/run-$1; W=/tmp/fl2/$1; rm -rf $C $W; mkdir -p $C/logs $W; cd $W; }
# agent HOST PORT OUT [torchrun opts...] -- [trainer args...]   (2 nodes x 2 procs, c10d rendezvous on 127.0.0.1)
agent() {
  local h=$1 port=$2 out=$3; shift 3
  local topts=()
  while [ "$1" != "--" ]; do topts+=("$1"); shift; done; shift
  setsid $R/node.sh $h torchrun --nnodes 2 --nproc_per_node 2 \
     --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:$port --rdzv_id $JOBID "${topts[@]}" $T "$@" >> $out 2>&1 &
  echo $! > $W/agent-$h.pid
}
waitfor() { local i=0; while ! grep -qE "$2" $1 2>/dev/null; do sleep 0.2; i=$((i+1)); if [ $i -gt $(( $3 * 5 )) ]; then return 1; fi; done; return 0; }
descendants() { local p; for p in $(ps -o pid= --ppid $1); do echo $p; descendants $p; done; }
