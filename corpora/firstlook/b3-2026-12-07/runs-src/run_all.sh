for n in "$@"; do echo "=== case$n $(date +%T)"; timeout 240 bash /work/firstlook-b3/runs-src/case$n.sh > /tmp/fl3/case$n.out 2>&1; echo "case$n rc=$? $(date +%T)"; done
