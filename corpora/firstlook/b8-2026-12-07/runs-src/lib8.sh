# lib8.sh -- helpers for the b8 run collection (sourced by caseNN.sh).
# A "node" is one torchrun agent started inside `unshare --uts --mount` with its own
# hostname; a per-case hosts file is bind-mounted over /etc/hosts in that namespace and
# maps node names to loopback addresses 127.0.3.x (rendezvous c10d over loopback).
B8=/work/staging/b8
SRC=$B8/runs-src
SCR=/work/staging/b8-work-runs          # scratch (data, checkpoints); not collected
export PYTHONUNBUFFERED=1

mkhosts() {          # mkhosts FILE name...
  local f=$1; shift; local n=11
  printf '127.0.0.1 localhost\n' > "$f"
  for h in "$@"; do printf '127.0.3.%d %s\n' $n "$h" >> "$f"; n=$((n+1)); done
}
ts() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
note() { echo "$(ts) $*" >> "$INJ"; }   # injection/timeline record

# node HOST HOSTS "COLLECTOR ARGS" PREP cmd...
#   runs cmd in a new uts+mount ns; its console (stdout+stderr) goes through collect.py.
#   The agent's pid is written to $W/pid.HOST (used by the journald-style collector).
node() {
  local host=$1 hosts=$2 cargs=$3 prep=$4; shift 4
  unshare --uts --mount bash -c "hostname $host; mount --bind $hosts /etc/hosts; $prep
echo \$\$ > $W/pid.$host
exec \"\$@\"" _ "$@" > >(python3 $SRC/collect.py --host $host --pidfile $W/pid.$host $cargs >/dev/null 2>&1) 2>&1 &
  echo $!
}
kids() { local c; for c in $(ps -o pid= --ppid "$1"); do echo $c; kids $c; done; }
# rank_pid ROOTPID RANK -> pid of trainer process with RANK=.. below ROOTPID
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
