# shared helpers for b15 run-NN cases
# node_run NAME IP HOSTSFILE LOGDIR -- torchrun args...
# starts one "node": new UTS+mount namespace, own hostname, per-case /etc/hosts bind-mounted
B15=/work/staging/b15
SRC=$B15/runs-src
export TORCHELASTIC_EXIT_BARRIER_TIMEOUT=20
export OMP_NUM_THREADS=1
mk_hosts() { # file then pairs name ip
  local f=$1; shift
  { echo "127.0.0.1 localhost"; while [ $# -gt 0 ]; do echo "$2 $1"; shift 2; done; } > "$f"
}
node_cmd() { # NAME HOSTSFILE CMD...  (runs CMD in its own uts+mount ns)
  local name=$1 hosts=$2; shift 2
  unshare --uts --mount --propagation private bash -c 'hostname "$0"; mount --bind "$1" /etc/hosts; shift; exec "$@"' "$name" "$hosts" "$@"
}
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> "$REC"; }
# node_cmd2 NAME HOSTSFILE BINDS CMD... ; BINDS = "src:dst,src2:dst2" or "-"
node_cmd2() {
  local name=$1 hosts=$2 binds=$3; shift 3
  unshare --uts --mount --propagation private bash -c '
    hostname "$0"; mount --bind "$1" /etc/hosts
    if [ "$2" != "-" ]; then IFS=, read -ra bs <<< "$2"; for b in "${bs[@]}"; do mkdir -p "${b#*:}"; mount --bind "${b%%:*}" "${b#*:}"; done; fi
    shift 2; exec "$@"' "$name" "$hosts" "$binds" "$@"
}
TR="python3 -m torch.distributed.run"
wait_pids() { for p in "$@"; do wait $p; echo "pid $p rc=$?" >> "$REC"; done; }
# descendants of a pid (recursive), used to find ranks/workers of an agent we started
desc() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo $c; desc $c; done; }
# kill leftovers: the given pids we started and their descendants
kill_tree() { local p; for p in "$@"; do for d in $(desc $p) $p; do kill -9 $d 2>/dev/null; done; done; true; }
# pid of the worker with LOCAL_RANK=$2 under agent pid $1
worker_pid() { local d; for d in $(desc $1); do if tr '\0' '\n' < /proc/$d/environ 2>/dev/null | grep -qx "LOCAL_RANK=$2" && grep -q "torch.distributed.run\|python" /proc/$d/cmdline && [ "$(tr '\0' '\n' < /proc/$(ps -o ppid= -p $d | tr -d ' ')/environ 2>/dev/null | grep -c '^LOCAL_RANK=')" = 0 ]; then echo $d; return; fi; done; }
