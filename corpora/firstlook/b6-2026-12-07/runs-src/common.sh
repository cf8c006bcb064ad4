# Shared helpers for the b6 collection runs; sourced by caseNN.sh.
# A "node" = one torchrun agent started inside `unshare --uts --mount` with its
# own hostname. A per-case hosts file (bind-mounted on /etc/hosts inside the
# namespace) maps the node names to loopback addresses 127.0.1.x.
B6=/work/staging/b6
SRC=$B6/runs-src
WORK=/work/staging/b6-work        # scratch: data copies, checkpoints (not collected)
TORCHRUN="torchrun"

# write_hosts FILE host1 host2 ...
write_hosts() {
    local f=$1; shift; local i=21
    echo "127.0.0.1 localhost" > "$f"
    for h in "$@"; do echo "127.0.1.$i $h" >> "$f"; i=$((i+1)); done
}

# start_node HOST HOSTSFILE LOGFILE PREP -- cmd...
#   PREP: shell snippet run inside the namespace before exec (mounts etc.)
start_node() {
    local host=$1 hosts=$2 log=$3 prep=$4; shift 5
    unshare --uts --mount bash -c "hostname $host; mount --bind $hosts /etc/hosts; $prep
exec \"\$@\"" _ "$@" > "$log" 2>&1 &
    echo $!
}

descendants() {
    local p c
    for c in $(ps -o pid= --ppid "$1"); do echo "$c"; descendants "$c"; done
}

# pid of the worker process (python trainer) below agent-root $1 with env RANK=$2
worker_pid_by_rank() {
    local c
    for c in $(descendants "$1"); do
        if tr '\0' '\n' < /proc/$c/environ 2>/dev/null | grep -qx "RANK=$2"; then
            if tr '\0' '\n' < /proc/$c/cmdline 2>/dev/null | grep -q 'runs-src/.*\.py'; then
                echo "$c"; return 0
            fi
        fi
    done
    return 1
}

# pid of the torchrun agent under namespace-root pid $1
agent_pid() {
    local c
    for c in $(descendants "$1"); do
        if tr '\0' '\n' < /proc/$c/cmdline 2>/dev/null | grep -q 'torchrun'; then echo $c; return 0; fi
    done
    return 1
}
stamp() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }

# start_node_pipe HOST HOSTSFILE MODE TAG OUTFILE PREP -- cmd...
#   like start_node, but the node's console (stdout+stderr) goes through
#   prefix.py which appends prefixed lines to a shared OUTFILE
start_node_pipe() {
    local host=$1 hosts=$2 mode=$3 tag=$4 out=$5 prep=$6; shift 7
    unshare --uts --mount bash -c "hostname $host; mount --bind $hosts /etc/hosts; $prep
exec \"\$@\"" _ "$@" > >(python3 $SRC/prefix.py --mode $mode --tag "$tag" --out "$out") 2>&1 &
    echo $!
}
