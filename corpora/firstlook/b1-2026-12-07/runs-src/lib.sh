S=/work/firstlook/scratch
B=/work/firstlook/b1
T=$S/trainer.py
# prep CASE -> creates $B/run-CASE/logs and work dir /tmp/fl/CASE, cd into work dir
prep() { C=$B/run-$1; W=/tmp/fl/$1; rm -rf $C $W; mkdir -p $C/logs $W; cd $W; }
# agent NAME NODE_RANK PORT OUTFILE [torchrun opts...] -- [script args...]
agent() {
  local name=$1 nr=$2 port=$3 out=$4; shift 4
  local topts=()
  while [ "$1" != "--" ]; do topts+=("$1"); shift; done; shift
  setsid $S/node.sh $name torchrun --nnodes 2 --node_rank $nr --nproc_per_node 2 \
     --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:$port --rdzv_id $JOBID "${topts[@]}" $T "$@" >> $out 2>&1 &
  echo $! > $W/agent-$name.pid
}
# waitfor FILE REGEX TIMEOUT
waitfor() { local i=0; while ! grep -qE "$2" $1 2>/dev/null; do sleep 0.2; i=$((i+1)); [ $i -gt $(( $3 * 5 )) ] && return 1; done; }
waitfor() { local i=0; while ! grep -qE "$2" $1 2>/dev/null; do sleep 0.2; i=$((i+1)); if [ $i -gt $(( $3 * 5 )) ]; then return 1; fi; done; return 0; }
descendants() { local p; for p in $(ps -o pid= --ppid $1); do echo $p; descendants $p; done; }
