#!/bin/bash
# shared helpers for b10 run-NN cases
B10=/work/staging/b10
SRC=$B10/runs-src
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> "$REC"; }
# make_hosts FILE name ip [name ip ...]
make_hosts() { local f=$1; shift; { echo "127.0.0.1 localhost"; while [ $# -gt 0 ]; do echo "$2 $1"; shift 2; done; } > "$f"; }
# start_node NAME HOSTSFILE OUTFILE PRECMD cmd...   -> prints agent pid
start_node() {
  local name=$1 hosts=$2 out=$3 pre=$4; shift 4
  mkdir -p "$(dirname "$out")"
  setsid unshare --uts --mount bash -c "hostname $name; mount --bind $hosts /etc/hosts; $pre
exec \"\$@\"" _ "$@" > "$out" 2>&1 < /dev/null &
  echo $!
}
children() { pgrep -P "$1"; }
