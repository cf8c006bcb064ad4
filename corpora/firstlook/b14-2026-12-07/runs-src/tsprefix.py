"""Prefix each stdin line with an RFC3339Nano UTC timestamp, like `kubectl logs --timestamps`."""
import sys, time
for line in sys.stdin:
    t = time.time_ns()
    sys.stdout.write(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t // 10**9)) + ".%09dZ " % (t % 10**9) + line)
    sys.stdout.flush()
