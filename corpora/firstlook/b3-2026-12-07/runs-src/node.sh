#!/bin/bash
# usage: node.sh HOSTNAME cmd...
# Runs cmd in a private UTS + mount namespace whose hostname is HOSTNAME and whose /etc/hosts resolves the
# batch's node names (hosts.b3). $NODE_SETUP (shell code) runs inside the namespace first (per-node mounts, ulimits).
H=$1; shift
exec unshare --uts --mount --fork bash -c '
  mount --bind /work/firstlook-b3/runs-src/hosts.b3 /etc/hosts
  hostname "$0"
  eval "$NODE_SETUP"
  exec "$@"' "$H" "$@"
