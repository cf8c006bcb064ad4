# shared helpers for the caseNN.sh scripts of batch b4-2026-12-07
B4=/work/main/corpora/firstlook/b4-2026-12-07
SRC=$B4/runs-src
SCRATCH_ROOT=/tmp/b4-runs
PY=python3
export PYTHONUNBUFFERED=1

# fresh scratch dir for one case
scratch() {
  WORK=$SCRATCH_ROOT/$1
  rm -rf "$WORK"; mkdir -p "$WORK"
  HOSTS=$WORK/hosts
  # each node name gets its own loopback address (127.0.0.11, .12, ...) so that
  # hostname -> address -> name lookups give the node's own name back
  local i=11 h
  { echo "127.0.0.1 localhost"; for h in "${@:2}"; do echo "127.0.0.$i $h"; i=$((i+1)); done; } > "$HOSTS"
}

# run_node HOSTNAME PIDFILE CMD... : run CMD as its own "node": new UTS+mount namespace,
# hostname set, /etc/hosts that resolves all node names to loopback. The pid of the
# torchrun agent (exec'd by the inner bash) is written to PIDFILE. If NODE_PRE is set,
# it is run in the node's shell first (e.g. NODE_PRE="ulimit -v 1800000").
run_node() {
  local host=$1 pidfile=$2; shift 2
  unshare --uts --mount --fork bash -c "hostname $host; mount --bind $HOSTS /etc/hosts; ${NODE_PRE:+$NODE_PRE;} echo \$\$ > $pidfile; exec $*"
}

# children (workers) of an agent pid, optionally only the one with LOCAL_RANK=$2
workers_of() {
  local agent=$1 lr=$2 p
  for p in $(pgrep -P "$agent"); do
    if [ -z "$lr" ] || tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "LOCAL_RANK=$lr"; then echo "$p"; fi
  done
}

wait_for_line() { # FILE REGEX TIMEOUT_S
  local deadline=$(( $(date +%s) + $3 ))
  until grep -q -E -- "$2" "$1" 2>/dev/null; do
    sleep 0.5
    if [ "$(date +%s)" -ge "$deadline" ]; then echo "wait_for_line: '$2' not seen in $1 after $3 s" >&2; return 1; fi
  done
}
