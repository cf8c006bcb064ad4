# prefixes each stdin line with an RFC3339Nano UTC timestamp, like `kubectl logs --timestamps`
import sys, time
for line in sys.stdin:
    ns = time.time_ns(); s = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9))
    sys.stdout.write("%s.%09dZ %s" % (s, ns % 10**9, line)); sys.stdout.flush()
