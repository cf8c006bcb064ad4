"""Prefix each line as `kubectl logs --prefix --timestamps` does: [pod/NAME/CONTAINER] RFC3339Nano-UTC line."""
import datetime, sys, time
pfx = sys.argv[1]
out = open(sys.argv[2], "a", buffering=1)
for raw in sys.stdin.buffer:
    ns = time.time_ns()
    ts = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    out.write(f"{pfx} {ts}.{ns % 10**9:09d}Z " + raw.decode("utf-8", "replace"))
