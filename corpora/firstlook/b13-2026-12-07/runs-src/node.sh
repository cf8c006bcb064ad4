#!/bin/bash
# node.sh NODE HOSTSFILE SETUP(-|file) CMD...
# Runs CMD as one "node": own UTS namespace (hostname NODE), own mount namespace with
# HOSTSFILE bind-mounted over /etc/hosts, optional SETUP script sourced first (extra mounts).
node=$1; hosts=$2; setup=$3; shift 3
exec unshare --uts --mount bash -c 'hostname "$0"; mount --bind "$1" /etc/hosts; if [ "$2" != - ]; then source "$2"; fi; shift 2; exec "$@"' "$node" "$hosts" "$setup" "$@"
