# shared helpers for caseNN.sh
SRC=/work/staging/b13/runs-src
B13=/work/staging/b13
export PYTHONUNBUFFERED=1
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> "$REC"; }
mkhosts() { # file  name=ip ...
  local f=$1; shift
  { echo "127.0.0.1 localhost"; for kv in "$@"; do echo "${kv#*=} ${kv%%=*}"; done; } > "$f"
}
# torchrun_cmd PORT RDZVID NNODES NPROC LOGDIR(-) TRAINER_ARGS...
TR() {
  local port=$1 id=$2 nn=$3 np=$4 ld=$5; shift 5
  local logargs=()
  [ "$ld" != - ] && logargs=(--log-dir "$ld" --tee 3)
  echo python3 -m torch.distributed.run --nnodes "$nn" --nproc-per-node "$np" --rdzv-backend c10d \
    --rdzv-endpoint "${RDZV_HOST:-node-a}:$port" --rdzv-id "$id" --rdzv-conf join_timeout=90 --max-restarts 0 \
    "${logargs[@]}" "$SRC/trainer.py" "$@"
}
# pid of the worker process with global RANK=r of rdzv run id
rank_pid() {
  local r=$1 id=$2 p pp
  for p in $(pgrep -f "$SRC/trainer.py"); do
    [ -r /proc/$p/environ ] || continue
    tr '\0' '\n' < /proc/$p/environ | grep -qx "RANK=$r" || continue
    tr '\0' '\n' < /proc/$p/environ | grep -qx "TORCHELASTIC_RUN_ID=$id" || continue
    pp=$(ps -o ppid= -p $p | tr -d ' ')
    grep -q "torch.distributed.run" /proc/$pp/cmdline 2>/dev/null || continue
    echo $p; return 0
  done
  return 1
}
wait_for() { # file pattern timeout
  local i=0
  while ! grep -q -- "$2" "$1" 2>/dev/null; do sleep 0.5; i=$((i+1)); [ $i -gt $(( $3 * 2 )) ] && return 1; done
  return 0
}
tree_pids() { # pid and all descendants
  local p=$1 c; echo $p
  for c in $(ps -o pid= --ppid $p); do tree_pids $c; done
}
pid_host() { nsenter -t $1 -u hostname 2>/dev/null; }
