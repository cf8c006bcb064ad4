"""Log-collector shim: reads a node's console from stdin and appends each line,
prefixed, to a shared file (O_APPEND, one write per line).
  --mode host   -> "[HOST] line"
  --mode kube   -> "[pod/NAME/CONTAINER] line"   (kubectl logs --prefix)
  --mode srun   -> "N: line"                     (srun --label)
  --mode ts     -> "2026-12-07T14:03:11.123456789Z line" (kubectl logs --timestamps)
"""
import argparse, datetime, os, sys, time
p = argparse.ArgumentParser()
p.add_argument("--mode", required=True); p.add_argument("--tag", default="")
p.add_argument("--out", required=True)
a = p.parse_args()
fd = os.open(a.out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
for raw in sys.stdin.buffer:
    if a.mode == "host":
        pre = f"[{a.tag}] ".encode()
    elif a.mode == "kube":
        pre = f"[{a.tag}] ".encode()
    elif a.mode == "srun":
        pre = f"{a.tag}: ".encode()
    else:
        ns = time.time_ns()
        now = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc)
        pre = (now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ns % 10**9:09d}Z ").encode()
    if not raw.endswith(b"\n"):
        raw += b"\n"
    os.write(fd, pre + raw)
