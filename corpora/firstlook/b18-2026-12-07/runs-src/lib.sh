# shared launcher helpers for b18 run cases
SRC=/work/staging/b18/runs-src
TMPB=/tmp/b18run; mkdir -p $TMPB
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
# mkhosts FILE NAME1 NAME2 ... -> NAMEi = 127.0.18.i
mkhosts() { local f=$1 i=1 n; shift; printf '127.0.0.1\tlocalhost\n' > $f
  for n in "$@"; do printf '127.0.18.%d\t%s\n' $i $n >> $f; i=$((i+1)); done; }
# agent NAME HOSTSFILE OUTFILE PRE torchrun-args...
#   starts a torchrun agent in the background inside its own UTS+mount namespace (hostname NAME, HOSTSFILE over /etc/hosts),
#   PRE = shell lines run inside the namespace before exec torchrun (mounts, ulimit, env).
#   OUTMODE=plain (default): stdout+stderr appended to OUTFILE
#   OUTMODE=prefix: every line prefixed with $PREFIX (collector pipe), appended to OUTFILE
#   OUTMODE=mpitag: stdout lines prefixed "[1,$TAG]<stdout>:", stderr lines "[1,$TAG]<stderr>:" (mpirun --tag-output style)
agent() {
  local name=$1 hosts=$2 out=$3 pre=$4; shift 4
  rm -f $TMPB/apid-$name
  local cmd="hostname $name; mount --bind $hosts /etc/hosts; $pre
echo \$\$ > $TMPB/apid-$name
exec torchrun \"\$@\""
  case "${OUTMODE:-plain}" in
    plain)  unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" >> $out 2>&1 & ;;
    prefix) unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" 2>&1 | sed -u "s|^|$PREFIX|" >> $out & ;;
    mpitag) unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" \
              > >(sed -u "s/^/[1,$TAG]<stdout>:/" >> $out) 2> >(sed -u "s/^/[1,$TAG]<stderr>:/" >> $out) & ;;
  esac
  local i; for i in $(seq 1 50); do [ -s $TMPB/apid-$name ] && break; sleep 0.1; done
}
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> $REC; }
apid() { cat $TMPB/apid-$1; }
desc() { local c; for c in $(pgrep -P $1); do echo $c; desc $c; done; }
# wpid NODE LOCAL_RANK -> pid of that worker
wpid() { local c; for c in $(desc $(apid $1)); do grep -q trainer.py /proc/$c/cmdline 2>/dev/null || continue
  if tr '\0' '\n' < /proc/$c/environ 2>/dev/null | grep -qx "LOCAL_RANK=$2"; then echo $c; return; fi; done; }
alive() { local n; for n in "$@"; do kill -0 $(apid $n) 2>/dev/null && return 0; done; return 1; }
waitagents() { local max=$1; shift; local i; for i in $(seq 1 $max); do alive "$@" || return 0; sleep 1; done; return 1; }
# waitlog FILE PATTERN MAXSEC : wait until PATTERN appears in FILE
waitlog() { local i; for i in $(seq 1 $3); do grep -q -- "$2" $1 2>/dev/null && return 0; sleep 1; done; return 1; }
# kill any still-running agent trees of this case (end of case safety net)
reap() { local n a; for n in "$@"; do a=$(apid $n 2>/dev/null); [ -n "$a" ] || continue
  kill -0 $a 2>/dev/null || continue; rec "reap: agent $n ($a) still alive, SIGTERM"; kill -TERM $a; done; sleep 5
  for n in "$@"; do a=$(apid $n 2>/dev/null); [ -n "$a" ] && kill -0 $a 2>/dev/null && { kill -KILL $a $(desc $a); rec "reap: SIGKILL $n"; }; done; true; }
# common data: 8 train shards + 1 val shard
mkdata() { python3 $SRC/mkshards.py $1 tok_train 8 60000 ${2:-0} && python3 $SRC/mkshards.py $1 tok_val 1 30000 99; }
