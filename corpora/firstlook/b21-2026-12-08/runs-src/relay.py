# per-node output relay: copy stdin lines to OUTFILE (append), each prefixed "LABEL<TAB>" as `parallel --tag --line-buffer` does.
# usage: relay.py OUTFILE LABEL
import sys
out, label = sys.argv[1], sys.argv[2]
p = (label + "\t").encode()
with open(out, "ab", buffering=0) as f:
    for line in sys.stdin.buffer:
        f.write(p + line)
