"""Console collector shim: reads a node's console on stdin and appends every line
to --out (O_APPEND, one write per line) with an optional prefix.
  --style none      line as is (several nodes merged into one file, no prefix)
  --style kube      "[pod/<tag>] line"            (kubectl logs --prefix)
  --style label     "<tag>: line"                 (srun --label)
  --style iso       "<ISO-8601 UTC ts> line"      (platform adds timestamps)
"""
import argparse, datetime, os, sys
ap = argparse.ArgumentParser()
ap.add_argument("--style", default="none"); ap.add_argument("--tag", default="")
ap.add_argument("--out", required=True)
a = ap.parse_args()
fd = os.open(a.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
for line in sys.stdin.buffer:
    if not line.endswith(b"\n"):
        line += b"\n"
    if a.style == "kube":
        pre = ("[pod/%s] " % a.tag).encode()
    elif a.style == "label":
        pre = ("%s: " % a.tag).encode()
    elif a.style == "iso":
        pre = (datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z") + " ").encode()
    else:
        pre = b""
    os.write(fd, pre + line)
