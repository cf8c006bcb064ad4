"""Every input of the hostile corpus (tests/hostile/inputs.py) under a 2 s deadline:
wall time and peak RSS per input, by the library and by the CLI, each in a fresh
process killed at 60 s.

    python benchmarks/bench_hostile.py [--mode lib|cli|both] [--only ID ...] [--json OUT]

The promise (SECURITY.md): within 2.5 s and 200 MB each, whatever the input, a verdict
and never a traceback. Inputs of the pattern-file, batch and watch classes run through
their own commands in tests/test_hostile.py; this measures the inputs `analyze` reads
(stdin ones through a pipe). Peak RSS is the child's VmHWM, which exec resets (the
parent's memory is not counted).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "hostile"))
import inputs  # noqa: E402

DEADLINE = 2.0
TARGET_SECONDS, TARGET_MB = 2.5, 200
KILL_AFTER = 60
OWN = {"patterns", "batch", "watch"}  # measured by their own commands (tests)

# The child prints one JSON line on stderr at exit: its peak RSS and the outcome.
_CHILD = r"""
import json, sys, time
def peak():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) // 1024 for l in f if l.startswith("VmHWM"))
mode, path, deadline = sys.argv[1], sys.argv[2], sys.argv[3]
started = time.monotonic()
out = {"category": None, "traceback": False}
try:
    if mode == "lib":
        from analyzer import analyze
        out["category"] = analyze(path, deadline=float(deadline)).category
    else:
        import runpy
        sys.argv = ["ha-analyze", path, "--deadline", deadline, "--format", "json"]
        try:
            runpy.run_module("analyzer", run_name="__main__")
        except SystemExit as e:
            out["exit"] = e.code
except BaseException as e:
    out["traceback"] = True
    out["category"] = type(e).__name__
finally:
    out["seconds"] = time.monotonic() - started
    out["mb"] = peak()
    sys.stderr.write("\n@@" + json.dumps(out) + "\n")
"""


def run(hostile: inputs.Hostile, path: Path, mode: str) -> dict[str, Any]:
    target = "-" if hostile.stdin else str(path)
    cmd = [sys.executable, "-c", _CHILD, mode, target, str(DEADLINE)]
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict", PYTHONPATH=str(ROOT))
    started = time.monotonic()
    stdin: Any = subprocess.DEVNULL
    if hostile.stdin:
        stdin = subprocess.PIPE
    proc = subprocess.Popen(
        cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    if hostile.stdin:
        assert proc.stdin is not None
        try:
            with path.open("rb") as f:  # fed in pieces; the pipe stays open until the end
                while chunk := f.read(1 << 20):
                    proc.stdin.write(chunk)
                    if time.monotonic() - started > DEADLINE + 1:
                        break
        except BrokenPipeError:
            pass
    try:
        stdout, stderr = proc.communicate(timeout=KILL_AFTER)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"seconds": KILL_AFTER, "mb": None, "category": "killed", "traceback": False}
    marks = [line for line in stderr.decode(errors="replace").splitlines() if line.startswith("@@")]
    row: dict[str, Any] = json.loads(marks[-1][2:]) if marks else {"category": "no report"}
    row["wall"] = time.monotonic() - started
    row["traceback"] = row.get("traceback") or b"Traceback" in stderr
    if mode == "cli":
        try:
            row["category"] = json.loads(stdout)["category"]
        except ValueError:
            row["category"] = "no JSON on stdout"
            row["traceback"] = True
        row["escapes"] = b"\x1b" in stdout
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mode", choices=("lib", "cli", "both"), default="both")
    ap.add_argument("--only", action="append", default=[], metavar="ID")
    ap.add_argument("--json", type=Path, help="write the rows here")
    args = ap.parse_args()
    chosen = [h for h in inputs.INPUTS if h.klass not in OWN]
    if args.only:
        chosen = [h for h in chosen if h.id in set(args.only)]
    modes = ("lib", "cli") if args.mode == "both" else (args.mode,)
    rows = []
    print(f"{'input':44s} {'class':9s} {'mode':4s} {'seconds':>8s} {'MB':>5s}  verdict")
    for h in chosen:
        folder = Path(tempfile.mkdtemp(prefix="hostile-"))
        try:
            path = h.build(folder)
            for mode in modes:
                row = {"id": h.id, "class": h.klass, "mode": mode, **run(h, path, mode)}
                rows.append(row)
                over = row["seconds"] > TARGET_SECONDS or (row["mb"] or 1 << 30) > TARGET_MB
                bad = over or row["traceback"] or row.get("escapes")
                print(
                    f"{h.id:44s} {h.klass:9s} {mode:4s} {row['seconds']:8.2f} "
                    f"{row['mb'] or -1:5d}  {row['category']}{'  <<<' if bad else ''}",
                    flush=True,
                )
        finally:
            inputs.stop_background()
            subprocess.run(["rm", "-rf", str(folder)], check=False)  # deep trees too
            shutil.rmtree(folder, ignore_errors=True)
    over = [r for r in rows if r["seconds"] > TARGET_SECONDS or (r["mb"] or 1 << 30) > TARGET_MB]
    broken = [r for r in rows if r["traceback"] or r.get("escapes")]
    worst_s = max(rows, key=lambda r: r["seconds"])
    worst_mb = max(rows, key=lambda r: r["mb"] or 0)
    print(
        f"\n{len(rows)} runs of {len(chosen)} inputs: {len(over)} over {TARGET_SECONDS} s or "
        f"{TARGET_MB} MB, {len(broken)} with a traceback or an escape; worst "
        f"{worst_s['seconds']:.2f} s ({worst_s['id']}, {worst_s['mode']}), "
        f"{worst_mb['mb']} MB ({worst_mb['id']}, {worst_mb['mode']})"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 1 if over or broken else 0


if __name__ == "__main__":
    sys.exit(main())
