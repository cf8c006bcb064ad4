"""Console collector shim: reads a node's console on stdin, appends each line to --out
(O_APPEND, one write per line) with the prefix a platform's log collector adds.
  --style none      line as is
  --style pdsh      "<host>: line"
  --style bracket   "[<host>] line"
  --style label     "<tag>: line"                      (srun --label, --tag = node index)
  --style kubets    "<RFC3339Nano UTC ts> line"        (kubectl logs --timestamps)
  --style cri       "<RFC3339Nano ts> stdout F line"   (CRI file pods/<pod>/<ctr>/0.log)
  --style ray       "(<actor> pid=<agent pid>, ip=<node ip>) line"
"""
import argparse, datetime, os, sys, time, socket
ap = argparse.ArgumentParser()
ap.add_argument("--style", default="none"); ap.add_argument("--tag", default="")
ap.add_argument("--host", default=""); ap.add_argument("--pidfile", default="")
ap.add_argument("--ip", default=""); ap.add_argument("--actor", default="TorchTrainerWorker")
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
    if st == "pdsh": pre = ("%s: " % a.host).encode()
    elif st == "bracket": pre = ("[%s] " % a.host).encode()
    elif st == "label": pre = ("%s: " % a.tag).encode()
    elif st == "kubets": pre = (rfc3339nano() + " ").encode()
    elif st == "cri": pre = (rfc3339nano() + " stdout F ").encode()
    elif st == "ray":
        if pid is None:
            try: pid = open(a.pidfile).read().strip()
            except OSError: pid = "?"
        pre = ("(%s pid=%s, ip=%s) " % (a.actor, pid, a.ip)).encode()
    else: pre = b""
    os.write(fd, pre + line)
