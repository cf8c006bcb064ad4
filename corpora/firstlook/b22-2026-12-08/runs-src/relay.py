# per-node output relay: copy stdin lines to OUTFILE (append), each prefixed with PREFIX, the way a log collector
# that tails several pods/containers into one stream writes them (e.g. `kubectl logs --prefix`, `stern`).
# usage: relay.py OUTFILE PREFIX
import sys
out, pre = sys.argv[1], sys.argv[2].encode()
with open(out, "ab", buffering=0) as f:
    for line in sys.stdin.buffer:
        f.write(pre + line)
