"""Scan throughput and peak memory of ha-analyze beside cat and grep on the same file.

Generates a realistic training log deterministically with benchmarks/genlogs.py
(Megatron-style iteration lines, NCCL INFO chatter, Python logging, tqdm redraws,
warnings, the odd caught traceback, a CUDA OOM at the end), then times, in one run on
this machine:
  cat FILE > /dev/null
  grep -c -E -f SIGNATURES FILE      (the built-in signature regexes converted to ERE, C locale)
  ha-analyze FILE --format json      (once per available automaton engine)
and prints MB/s and peak RSS. Ratios within one run are the figures to compare; absolute
numbers depend on the machine and its load.

    python benchmarks/bench_scan.py [--mib 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import genlogs  # benchmarks/genlogs.py: this script's folder is sys.path[0]

from analyzer.automaton import available_engines
from analyzer.export import to_ere
from analyzer.signatures import load_patterns

OUT = Path(__file__).parent / "out"


def grep_ere(rx: str) -> str | None:
    """The signature's ERE form (analyzer.export), if GNU grep also builds it quickly."""
    ere = to_ere(rx)
    if ere is None:
        return None
    try:  # GNU grep builds some large bounded repeats very slowly: leave those out
        ok = subprocess.run(
            ["grep", "-E", "-e", ere, "/dev/null"], capture_output=True, check=False, timeout=2
        )
    except subprocess.TimeoutExpired:
        return None
    return None if ok.returncode == 2 else ere  # 2: grep cannot parse it


def timed(cmd: list[str] | str, repeat: int, shell: bool = False) -> tuple[float, int]:
    """Best wall time over `repeat` runs and the peak RSS (KiB) of the child."""
    best, peak = float("inf"), 0
    for _ in range(repeat):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, shell=shell, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        best = min(best, time.perf_counter() - t)
        peak = max(peak, usage.ru_maxrss)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{cmd} failed with {status}")
    return best, peak


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    log = genlogs.single(OUT / f"train-{a.mib}MiB.log", a.mib)
    size_mb = log.stat().st_size / 1e6
    sigs = load_patterns().signatures
    eres = [e for s in sigs for rx in s.match if (e := grep_ere(rx))]
    with tempfile.NamedTemporaryFile("w", suffix=".ere", delete=False) as f:
        f.write("\n".join(eres) + "\n")
    exe = shutil.which("ha-analyze") or f"{sys.executable} -m analyzer"
    rows: list[tuple[str, float, int]] = []
    rows.append(("cat", *timed(f"cat {log} > /dev/null", a.repeat, shell=True)))
    rows.append(
        (
            f"grep -c -E -f ({len(eres)} regexes, LC_ALL=C)",
            # into a file: with stdout on /dev/null GNU grep stops at the first match
            *timed(f"LC_ALL=C grep -c -E -f {f.name} {log} > {f.name}.out", a.repeat, shell=True),
        )
    )
    for engine in available_engines():
        rows.append(
            (
                f"ha-analyze --engine {engine} ({len(sigs)} signatures)",
                *timed(f"{exe} {log} --format json --engine {engine}", a.repeat, shell=True),
            )
        )
    os.unlink(f.name)
    os.unlink(f"{f.name}.out")
    print(
        f"file: {log.name}, {size_mb:.0f} MB, {sum(1 for _ in log.open('rb')):,} lines; best of {a.repeat}"
    )
    print(f"{'command':<52} {'seconds':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    for name, secs, rss in rows:
        print(f"{name:<52} {secs:>8.2f} {size_mb / secs:>8.0f} {rss / 1024:>13.1f}")
    grep_s = rows[1][1]
    for name, secs, _ in rows[2:]:
        print(f"{name}: {grep_s / secs:.2f}x the speed of grep")


if __name__ == "__main__":
    main()
