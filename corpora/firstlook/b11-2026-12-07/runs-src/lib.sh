# shared launcher helpers for b11 run cases
SRC=/work/staging/b11/runs-src
mkhosts() { # $1 file, then name:ip pairs
  local f=$1; shift; printf '127.0.0.1\tlocalhost\n' > $f
  for p in "$@"; do printf '%s\t%s\n' "${p#*:}" "${p%%:*}" >> $f; done
}
# node NAME HOSTSFILE PREMOUNT_CMDS -- torchrun args...
node() {
  local name=$1 hosts=$2 pre=$3; shift 3
  unshare --uts --mount --propagation private bash -c "hostname $name; mount --bind $hosts /etc/hosts; $pre
echo \$\$ > /tmp/b11-agentpid-$name
exec torchrun \"\$@\"" torchrun "$@"
}
rec() { echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >> $REC; }
# worker pid (trainer.py) for launcher pid pid $1 and LOCAL_RANK $2
desc() { local c; for c in $(pgrep -P $1); do echo $c; desc $c; done; }
wpid() { for c in $(desc $1); do [ "$(cat /proc/$c/comm)" = python3 ] || [ "$(cat /proc/$c/comm)" = python ] || continue; grep -q trainer.py /proc/$c/cmdline || continue; if tr '\0' '\n' < /proc/$c/environ | grep -qx "LOCAL_RANK=$2"; then echo $c; return; fi; done; }
# agent (torchrun) pid under launcher pid $1
apid() { for c in $(desc $1); do if grep -q torch.distributed.run /proc/$c/cmdline 2>/dev/null || grep -q bin/torchrun /proc/$c/cmdline 2>/dev/null; then echo $c; return; fi; done; }
