#!/bin/bash
# usage: node.sh <hostname> <hostsfile> <cmd...>   -- runs cmd in own UTS+mount namespace
H=$1; HF=$2; shift 2
exec unshare --uts --mount bash -c 'mount --bind "$0" /etc/hosts && hostname "$1" && shift 1 && exec "$@"' "$HF" "$H" "$@"
