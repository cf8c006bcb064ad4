# shared helpers for caseNN.sh
SRC=/work/staging/b12/runs-src
T=$SRC/trainer.py
ts(){ date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
rec(){ echo "$(ts) $*" >> $REC; }
# start a node: node NAME HOSTSFILE OUTDIR torchrun-args...  (runs in background, echo pid)
node(){ local name=$1 hosts=$2 out=$3; shift 3; mkdir -p $out
  unshare --uts --mount bash -c "mount --bind $hosts /etc/hosts; hostname $name; ${PRE:-true}; cd /tmp; exec \"\$@\"" _ "$@" > $out/console.log 2>&1 &
  echo $!; }
# find worker pid by run id and global rank
rankpid(){ for p in /proc/[0-9]*; do e=$( { tr '\0' '\n' < $p/environ; } 2>/dev/null) || continue
  echo "$e" | grep -qx "TORCHELASTIC_RUN_ID=$1" && echo "$e" | grep -qx "RANK=$2" && echo "$e" | grep -q '^LOCAL_RANK=' && basename $p; done | head -1; }
alive(){ kill -0 $1 2>/dev/null && echo y || echo n; }
kids(){ pgrep -P $1; }
