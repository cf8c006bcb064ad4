# collection pipe: prefix every stdin line, append to file. usage: prefix.py OUTFILE MODE LABEL
import sys, datetime
out, mode, label = sys.argv[1], sys.argv[2], sys.argv[3]
with open(out, "ab", buffering=0) as f:
    for line in sys.stdin.buffer:
        if mode == "compose":
            p = ("%-18s| " % label).encode()
        else:  # cloud: RFC3339 UTC timestamp + replica label
            p = (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") + " " + label + " ").encode()
        f.write(p + line)
