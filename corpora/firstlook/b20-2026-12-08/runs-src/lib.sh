# shared launcher helpers for b20 run cases (launch mechanics adapted from b19's lib.sh)
SRC=/work/staging/b20/runs-src
TMPB=/tmp/b20run; mkdir -p $TMPB
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
# mkhosts FILE NAME1 NAME2 ... -> NAMEi = 127.0.20.i
mkhosts() { local f=$1 i=1 n; shift; printf '127.0.0.1\tlocalhost\n' > $f
  for n in "$@"; do printf '127.0.20.%d\t%s\n' $i $n >> $f; i=$((i+1)); done; }
# agent NAME HOSTSFILE OUTFILE PRE torchrun-args...
#   OUTMODE=plain (default): agent stdout+stderr appended to OUTFILE
#   OUTMODE=mpitag LABEL=1,N : stdout/stderr tagged "[1,N]<stdout>:" / "[1,N]<stderr>:" (mpirun --tag-output) into OUTFILE
#   OUTMODE=pdsh  LABEL=host : every line prefixed "host: " (pdsh) into OUTFILE
#   WRAP="timeout --signal=SIGKILL 80" : command put in front of torchrun
agent() {
  local name=$1 hosts=$2 out=$3 pre=$4; shift 4
  rm -f $TMPB/apid-$name
  local cmd="hostname $name; mount --bind $hosts /etc/hosts; echo \$\$ > $TMPB/apid-$name
$pre
exec ${WRAP:-} torchrun \"\$@\""
  case "${OUTMODE:-plain}" in
    plain) unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" >> $out 2>&1 & ;;
    mpitag) unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" \
              > >(python3 -u $SRC/prefix.py $out mpitag "$LABEL" stdout) 2> >(python3 -u $SRC/prefix.py $out mpitag "$LABEL" stderr) & ;;
    pdsh)  unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" 2>&1 | python3 -u $SRC/prefix.py $out pdsh "$LABEL" x & ;;
  esac
  local i; for i in $(seq 1 50); do [ -s $TMPB/apid-$name ] && break; sleep 0.1; done
}
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> $REC; }
apid() { cat $TMPB/apid-$1; }
desc() { local c; for c in $(pgrep -P $1); do echo $c; desc $c; done; }
# wpid NODE LOCAL_RANK -> pid of that rank (direct child of the agent / of timeout's child)
wpid() { local c p=$(apid $1); [ -n "${WRAP:-}" ] && p=$(pgrep -P $p | head -1)
  for c in $(pgrep -P $p); do grep -q train_b20.py /proc/$c/cmdline 2>/dev/null || continue
  if tr '\0' '\n' < /proc/$c/environ 2>/dev/null | grep -qx "LOCAL_RANK=$2"; then echo $c; return; fi; done; }
alive() { local n; for n in "$@"; do kill -0 $(apid $n) 2>/dev/null && return 0; done; return 1; }
waitagents() { local max=$1; shift; local i; for i in $(seq 1 $max); do alive "$@" || return 0; sleep 1; done; return 1; }
waitlog() { local i; for i in $(seq 1 $3); do grep -q -- "$2" $1 2>/dev/null && return 0; sleep 1; done; return 1; }
reap() { local n a; for n in "$@"; do a=$(apid $n 2>/dev/null); [ -n "$a" ] || continue
  kill -0 $a 2>/dev/null || continue; rec "reap: agent $n ($a) still alive, SIGTERM"; kill -TERM $a; done; sleep 5
  for n in "$@"; do a=$(apid $n 2>/dev/null); [ -n "$a" ] && kill -0 $a 2>/dev/null && { kill -KILL $a $(desc $a); rec "reap: SIGKILL $n"; }; done
  local left=$(pgrep -f "train_b20.py" | tr '\n' ' '); [ -n "$left" ] && { rec "reap: leftover ranks $left SIGKILL"; kill -KILL $left; }; sleep 1; true; }
# mkdata DIR [NSHARDS] [ROWS]
mkdata() { python3 $SRC/mkdata.py $1 ${2:-16} ${3:-256}; }
# setup NN -> C (case folder), T (scratch), REC (inject record)
setup() { C=/work/staging/b20/run-$1; T=$TMPB/c$1; REC=$SRC/inject-records/c$1.txt
  rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; [ -n "${SUBDIRS:-}" ] && mkdir -p $SUBDIRS; true; }
