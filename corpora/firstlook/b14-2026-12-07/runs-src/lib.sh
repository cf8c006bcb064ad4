# shared helpers for b14 run cases (sourced by caseNN.sh)
B14=/work/staging/b14
SRC=$B14/runs-src
WORK=/tmp/b14run
export PYTHONPATH=$SRC${PYTHONPATH:+:$PYTHONPATH}
export OMP_NUM_THREADS=1

rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> "$SRC/inject-records/$CASE.txt"; }

mk_hosts() {   # per-case /etc/hosts replacement mapping node names to 127.0.14.x
  mkdir -p "$WORK/$CASE"
  cat > "$WORK/$CASE/hosts" <<H
127.0.0.1 localhost
127.0.14.1 node-a
127.0.14.2 node-b
127.0.14.3 node-c
127.0.14.4 node-d
H
}

# in_node NAME cmd... : run cmd in own UTS+mount namespace with hostname NAME and the case hosts file
in_node() {
  local n=$1; shift
  unshare --uts --mount bash -c 'hostname "$0"; mount --bind "'"$WORK/$CASE/hosts"'" /etc/hosts; exec "$@"' "$n" "$@"
}

# pid of the torchrun agent (python -m torch.distributed.run) whose cmdline contains a marker
agent_pid() { pgrep -f -- "torch.distributed.run .*--rdzv-id=$1" | head -n "${2:-1}"; }
# worker pids with env marker NODE_TAG=... : found by scanning /proc environ
worker_pids() {  # $1 = value of B14_NODE env var, prints worker python pids (not agent)
  for p in $(pgrep -f "$2"); do
    if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "B14_NODE=$1"; then
      if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -q '^LOCAL_RANK='; then echo $p; fi
    fi
  done
}
