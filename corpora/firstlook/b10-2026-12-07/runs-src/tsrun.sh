#!/bin/bash
# run a command and prefix every output line with an RFC3339Nano UTC arrival timestamp (as a container runtime / kubectl logs --timestamps would)
"$@" 2>&1 | python3 -u -c '
import sys, time
for l in sys.stdin:
    t = time.time_ns(); s = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t // 10**9))
    sys.stdout.write(f"{s}.{t % 10**9:09d}Z {l}"); sys.stdout.flush()'
