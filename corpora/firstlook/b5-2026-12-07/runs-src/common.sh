# Shared helpers for the b5 collection runs (sourced by caseNN.sh).
# Each "node" is a torchrun agent started in its own UTS + mount namespace
# with its own hostname; all nodes share the host network, so a small
# /etc/hosts (bind-mounted inside each namespace) maps node-a/b/c to their own
# loopback addresses 127.0.1.11/12/13, like cluster DNS would.
B5=/work/main/corpora/firstlook/b5-2026-12-07
SRC=$B5/runs-src
TORCHRUN="python3 -m torch.distributed.run"

mkhosts() {
    printf '127.0.0.1 localhost\n127.0.1.11 node-a\n127.0.1.12 node-b\n127.0.1.13 node-c\n' > "$1"
}

# all descendants of a pid (children first level, then theirs)
descendants() {
    local p c
    for c in $(ps -o pid= --ppid "$1"); do
        echo "$c"
        descendants "$c"
    done
}

# pid of the worker of agent $1 whose environment has LOCAL_RANK=$2
worker_pid() {
    local c
    for c in $(descendants "$1"); do
        if tr '\0' '\n' < /proc/$c/environ 2>/dev/null | grep -qx "LOCAL_RANK=$2"; then
            if tr '\0' '\n' < /proc/$c/cmdline 2>/dev/null | grep -q 'runs-src/.*\.py'; then
                echo "$c"; return 0
            fi
        fi
    done
    return 1
}
