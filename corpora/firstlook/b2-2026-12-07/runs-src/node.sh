#!/bin/bash
# usage: node.sh HOSTNAME cmd...
# Runs cmd in a private UTS + mount namespace whose hostname is HOSTNAME and whose /etc/hosts
# resolves the batch's node names. $NODE_SETUP (shell code) runs inside the namespace first,
# e.g. to mount that node's own local disk.
H=$1; shift
exec unshare --uts --mount --fork bash -c '
  mount --bind /work/firstlook-b2/runs-src/hosts.b2 /etc/hosts
  hostname "$0"
  eval "$NODE_SETUP"
  exec "$@"' "$H" "$@"
