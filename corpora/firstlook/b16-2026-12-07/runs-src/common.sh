# shared helpers for caseNN.sh
SRC=/work/staging/b16/runs-src
TMPB=/tmp/b16run
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> "$REC"; }
mkhosts() {  # mkhosts file
  printf '127.0.0.1 localhost\n127.0.16.1 node-a\n127.0.16.2 node-b\n127.0.16.3 node-c\n' > "$1"
}
# agent <node> <hostsfile> <stdout-file> <args...>   (background; pid in $!)
agent() {
  local n=$1 hf=$2 o=$3; shift 3
  $SRC/node.sh "$n" "$hf" $PRE python3 $SRC/trun.py "$@" >> "$o" 2>&1 &
}
# pids of trainer processes whose environ has GROUP_RANK / RANK
rank_pid() {  # rank_pid <run_id> <global rank>
  for p in $(pgrep -f "$SRC/trainer.py"); do
    if tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "TORCHELASTIC_RUN_ID=$1" && \
       tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "RANK=$2"; then
       # main process only (DataLoader workers share environ): the one whose parent is not a trainer
       pp=$(ps -o ppid= -p $p | tr -d ' '); if ps -o args= -p $pp | grep -q trun.py; then echo $p; fi
    fi
  done
}
