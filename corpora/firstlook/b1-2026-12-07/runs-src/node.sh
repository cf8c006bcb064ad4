#!/bin/bash
# usage: node.sh HOSTNAME cmd...   -- runs cmd in private UTS+mount ns with hostname set and node-a/node-b resolvable
H=$1; shift
exec unshare --uts --mount --fork bash -c 'mount --bind /work/firstlook/scratch/hosts.ab /etc/hosts; hostname '"$H"'; exec "$@"' _ "$@"
