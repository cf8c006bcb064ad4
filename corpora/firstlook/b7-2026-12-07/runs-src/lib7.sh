# lib7.sh -- helpers for the b7 run collection (sourced by caseNN.sh).
# A "node" is one torchrun agent started inside `unshare --uts --mount` with its own
# hostname; a per-case hosts file is bind-mounted over /etc/hosts in that namespace and
# maps node names to loopback addresses 127.0.2.x (rendezvous c10d over loopback).
B7=/work/staging/b7
SRC=$B7/runs-src
SCR=/work/staging/b7-work-runs          # scratch (data, checkpoints); not collected

mkhosts() {          # mkhosts FILE name...
  local f=$1; shift; local n=11
  printf '127.0.0.1 localhost\n' > "$f"
  for h in "$@"; do printf '127.0.2.%d %s\n' $n "$h" >> "$f"; n=$((n+1)); done
}
ts() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
note() { echo "$(ts) $*" >> "$INJ"; }   # injection/timeline record

# node HOST HOSTS OUT PREP cmd...   -> runs cmd in a new uts+mount ns; console to OUT
#   OUT may be a file or "|tagger-args" to pipe through tagger.py
node() {
  local host=$1 hosts=$2 out=$3 prep=$4; shift 4
  if [[ $out == \|* ]]; then
    unshare --uts --mount bash -c "hostname $host; mount --bind $hosts /etc/hosts; $prep
exec \"\$@\"" _ "$@" > >(python3 $SRC/tagger.py ${out#|}) 2>&1 &
  else
    unshare --uts --mount bash -c "hostname $host; mount --bind $hosts /etc/hosts; $prep
exec \"\$@\"" _ "$@" > "$out" 2>&1 &
  fi
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
wait_for_line() {    # wait_for_line FILE REGEX TIMEOUT
  local i=0; while ! grep -qE "$2" "$1" 2>/dev/null; do sleep 0.5; i=$((i+1)); [ $i -gt $(( $3 * 2 )) ] && return 1; done; return 0
}
# wait_rdzv ID : poll until no process of ours carries "--rdzv-id ID" (the agents of that job)
wait_rdzv() { while pgrep -f -- "--rdzv-id $1 " >/dev/null; do sleep 1; done; }
