# collection pipe: prefix every stdin line and append it to OUTFILE. usage: prefix.py OUTFILE MODE LABEL STREAM
#   mpitag: "[LABEL]<STREAM>:" (as mpirun --tag-output)   pdsh: "LABEL: " (as pdsh)
import sys
out, mode, label, stream = sys.argv[1:5]
p = ("[%s]<%s>:" % (label, stream) if mode == "mpitag" else "%s: " % label).encode()
with open(out, "ab", buffering=0) as f:
    for line in sys.stdin.buffer:
        f.write(p + line)
