# shared launcher helpers for b22 run cases (launch mechanics adapted from b21's lib.sh)
SRC=/work/staging/b22/runs-src
TMPB=/tmp/b22run; mkdir -p $TMPB
export OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1 DIST_BACKEND=gloo
# mkhosts FILE NAME1 NAME2 ... -> NAMEi = 127.0.22.i
mkhosts() { local f=$1 i=1 n; shift; printf '127.0.0.1\tlocalhost\n' > $f
  for n in "$@"; do printf '127.0.22.%d\t%s\n' $i $n >> $f; i=$((i+1)); done; }
# agent NAME HOSTSFILE OUTFILE PRE torchrun-args...
#   OUTMODE=plain (default): agent stdout+stderr appended to OUTFILE
#   OUTMODE=prefix : stdout+stderr go through a FIFO to a per-node relay (relay.py) that appends "$PREFIX<line>" to OUTFILE
#   PRE: shell lines run inside the node namespace before torchrun is exec'ed
agent() {
  local name=$1 hosts=$2 out=$3 pre=$4; shift 4
  rm -f $TMPB/apid-$name $TMPB/rpid-$name
  local cmd="hostname $name; mount --bind $hosts /etc/hosts; echo \$\$ > $TMPB/apid-$name
$pre
exec torchrun \"\$@\""
  case "${OUTMODE:-plain}" in
    plain) unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" >> $out 2>&1 & ;;
    prefix) rm -f $TMPB/fifo-$name; mkfifo $TMPB/fifo-$name
          python3 -u $SRC/relay.py $out "$PREFIX" < $TMPB/fifo-$name & echo $! > $TMPB/rpid-$name
          unshare --uts --mount --propagation private bash -c "$cmd" torchrun "$@" > $TMPB/fifo-$name 2>&1 & ;;
  esac
  local i; for i in $(seq 1 50); do [ -s $TMPB/apid-$name ] && break; sleep 0.1; done
}
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> $REC; }
apid() { cat $TMPB/apid-$1; }
rpid() { cat $TMPB/rpid-$1; }
desc() { local c; for c in $(pgrep -P $1); do echo $c; desc $c; done; }
# wpid NODE LOCAL_RANK -> pid of that rank (direct child of the agent)
wpid() { local c p=$(apid $1)
  for c in $(pgrep -P $p); do grep -q train_b22.py /proc/$c/cmdline 2>/dev/null || continue
  if tr '\0' '\n' < /proc/$c/environ 2>/dev/null | grep -qx "LOCAL_RANK=$2"; then echo $c; return; fi; done; }
alive() { local n; for n in "$@"; do kill -0 $(apid $n) 2>/dev/null && return 0; done; return 1; }
waitagents() { local max=$1; shift; local i; for i in $(seq 1 $max); do alive "$@" || return 0; sleep 1; done; return 1; }
waitlog() { local i; for i in $(seq 1 $3); do grep -q -- "$2" $1 2>/dev/null && return 0; sleep 1; done; return 1; }
reap() { local n a; for n in "$@"; do a=$(apid $n 2>/dev/null); [ -n "$a" ] || continue
  kill -0 $a 2>/dev/null || continue; rec "reap: agent $n ($a) still alive, SIGTERM"; kill -TERM $a; done; sleep 5
  for n in "$@"; do a=$(apid $n 2>/dev/null); [ -n "$a" ] && kill -0 $a 2>/dev/null && { kill -KILL $a $(desc $a); rec "reap: SIGKILL $n"; }; done
  local left=$(pgrep -f "runs-src/train_b22.py" | tr '\n' ' '); [ -n "$left" ] && { rec "reap: leftover ranks $left SIGKILL"; kill -KILL $left; }
  for n in "$@"; do a=$(rpid $n 2>/dev/null); [ -n "$a" ] && kill -0 $a 2>/dev/null && { sleep 2; kill -0 $a 2>/dev/null && kill -TERM $a; }; done
  sleep 1; true; }
mkdata() { python3 $SRC/mkdata_b22.py "$@"; }
# setup NN -> C (case folder), T (scratch), REC (inject record)
setup() { C=/work/staging/b22/run-$1; T=$TMPB/c$1; REC=$SRC/inject-records/c$1.txt
  rm -rf $C $T; mkdir -p $C/logs $T; : > $REC; true; }
