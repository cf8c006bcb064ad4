#!/bin/bash
# runs the given case scripts one after another (each prints its own timing)
for n in "$@"; do echo "== case$n $(date -u +%T)"; timeout 400 bash $(dirname "$0")/case$n.sh; echo "== case$n rc=$? $(date -u +%T)"; sleep 2; done
