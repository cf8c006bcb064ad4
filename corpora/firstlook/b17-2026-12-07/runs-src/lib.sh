# shared launcher helpers for b17 run cases
SRC=/work/staging/b17/runs-src
TMPB=/tmp/b17run; mkdir -p $TMPB
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
mkhosts() { # $1 file: node-a..node-d -> 127.0.17.1..4
  printf '127.0.0.1\tlocalhost\n127.0.17.1\tnode-a\n127.0.17.2\tnode-b\n127.0.17.3\tnode-c\n127.0.17.4\tnode-d\n' > $1
}
# agent NAME HOSTSFILE OUTFILE PRE -- torchrun args ; env PREFIX (merged console line prefix), CAPDROP (capabilities removed from the bounding set)
# runs the agent in background inside its own UTS+mount namespace; agent pid -> $TMPB/agentpid-$NAME
agent() {
  local name=$1 hosts=$2 out=$3 pre=$4; shift 4
  local ex="exec torchrun"
  [ -n "$CAPDROP" ] && ex="exec setpriv --bounding-set=$CAPDROP torchrun"
  rm -f $TMPB/agentpid-$name
  if [ -n "$PREFIX" ]; then
    unshare --uts --mount --propagation private bash -c "hostname $name; mount --bind $hosts /etc/hosts; $pre
echo \$\$ > $TMPB/agentpid-$name
$ex \"\$@\"" torchrun "$@" 2>&1 | sed -u "s/^/$PREFIX/" >> $out &
  else
    unshare --uts --mount --propagation private bash -c "hostname $name; mount --bind $hosts /etc/hosts; $pre
echo \$\$ > $TMPB/agentpid-$name
$ex \"\$@\"" torchrun "$@" >> $out 2>&1 &
  fi
}
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> $REC; }
apid() { cat $TMPB/agentpid-$1; }
desc() { local c; for c in $(pgrep -P $1); do echo $c; desc $c; done; }
# worker pid for agent of node $1 with LOCAL_RANK $2
wpid() { local c; for c in $(desc $(apid $1)); do grep -q trainer.py /proc/$c/cmdline 2>/dev/null || continue
  if tr '\0' '\n' < /proc/$c/environ | grep -qx "LOCAL_RANK=$2"; then echo $c; return; fi; done; }
alive() { local n; for n in "$@"; do kill -0 $(apid $n) 2>/dev/null && return 0; done; return 1; }
# wait until all named agents exit, at most $1 seconds
waitagents() { local max=$1; shift; local i; for i in $(seq 1 $max); do alive "$@" || return 0; sleep 1; done; return 1; }
