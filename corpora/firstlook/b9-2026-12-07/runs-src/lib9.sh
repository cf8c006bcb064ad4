# lib9.sh -- helpers for the b9 run collection (sourced by caseNN.sh).
# A "node" = one torchrun agent inside `unshare --uts --mount` with its own hostname; a
# per-case hosts file is bind-mounted over /etc/hosts in that namespace, mapping node names
# to loopback addresses 127.0.9.x (c10d rendezvous over loopback).
B9=/work/staging/b9
SRC=$B9/runs-src
SCR=/work/staging/b9-work-runs          # scratch (data, checkpoints); not collected
export PYTHONUNBUFFERED=1
mkhosts() {          # mkhosts FILE name...
  local f=$1; shift; local n=11
  printf '127.0.0.1 localhost\n' > "$f"
  for h in "$@"; do printf '127.0.9.%d %s\n' $n "$h" >> "$f"; n=$((n+1)); done
}
ts() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
note() { echo "$(ts) $*" >> "$INJ"; }
# node HOST HOSTS "COLLECTOR ARGS" PREP cmd...   (background; agent pid -> $W/pid.HOST)
node() {
  local host=$1 hosts=$2 cargs=$3 prep=$4; shift 4
  unshare --uts --mount bash -c "hostname $host; mount --bind $hosts /etc/hosts; $prep
echo \$\$ > $W/pid.$host
exec \"\$@\"" _ "$@" > >(python3 $SRC/collect9.py --host $host --pidfile $W/pid.$host $cargs >/dev/null 2>&1) 2>&1 &
}
kids() { local c; for c in $(ps -o pid= --ppid "$1"); do echo $c; kids $c; done; }
# rank_pid AGENTPID RANK -> trainer process with RANK=.. below the agent
rank_pid() {
  local c
  for c in $(kids "$1"); do
    grep -qz "^RANK=$2\$" /proc/$c/environ 2>/dev/null || continue
    tr '\0' ' ' < /proc/$c/cmdline 2>/dev/null | grep -q "runs-src/.*\.py" && { echo $c; return 0; }
  done; return 1
}
wait_for_line() {    # wait_for_line FILE REGEX TIMEOUT_S
  local i=0; while ! grep -qaE "$2" $1 2>/dev/null; do sleep 0.5; i=$((i+1)); [ $i -gt $(( $3 * 2 )) ] && return 1; done; return 0
}
