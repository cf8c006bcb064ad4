"""Console collector shim: reads a node's console on stdin and appends every line to --out
(O_APPEND, one write per line), optionally prefixed the way a platform's collector does.
  --style none      line as is
  --style pdsh      "<host>: line"                          (pdsh / clush merged console)
  --style bracket   "[<host>] line"
  --style label     "<tag>: line"                           (srun --label; --tag = node index)
  --style kubets    "<RFC3339Nano UTC ts> line"             (kubectl logs --timestamps)
  --style cri       "<RFC3339Nano ts> stdout F line"        (CRI log file, pods/<pod>/<ctr>/0.log)
  --style journal   "Mon DD HH:MM:SS host python3[pid]: line" (journalctl -o short export)
"""
import argparse, datetime, os, sys, time
ap = argparse.ArgumentParser()
ap.add_argument("--style", default="none"); ap.add_argument("--tag", default="")
ap.add_argument("--host", default=""); ap.add_argument("--pidfile", default="")
ap.add_argument("--out", required=True)
a = ap.parse_args()
fd = os.open(a.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
pid = None
def rfc3339nano():
    t = time.time_ns(); s = datetime.datetime.fromtimestamp(t // 10**9, datetime.timezone.utc)
    return s.strftime("%Y-%m-%dT%H:%M:%S.") + "%09dZ" % (t % 10**9)
for line in sys.stdin.buffer:
    if not line.endswith(b"\n"):
        line += b"\n"
    st = a.style
    if st == "pdsh":
        pre = ("%s: " % a.host).encode()
    elif st == "bracket":
        pre = ("[%s] " % a.host).encode()
    elif st == "label":
        pre = ("%s: " % a.tag).encode()
    elif st == "kubets":
        pre = (rfc3339nano() + " ").encode()
    elif st == "cri":
        pre = (rfc3339nano() + " stdout F ").encode()
    elif st == "journal":
        if pid is None:
            try: pid = open(a.pidfile).read().strip()
            except OSError: pid = "?"
        pre = ("%s %s python3[%s]: " % (datetime.datetime.now().strftime("%b %d %H:%M:%S"), a.host, pid)).encode()
    else:
        pre = b""
    os.write(fd, pre + line)
