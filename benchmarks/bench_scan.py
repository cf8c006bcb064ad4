"""Scan throughput and peak memory of ha-analyze beside cat and grep on the same file.

Generates a realistic training log deterministically (Megatron-style iteration lines,
NCCL INFO chatter, Python logging, tqdm redraws, warnings, a few tracebacks, rare real
errors), then times, in one run on this machine:
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
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from analyzer.automaton import available_engines
from analyzer.export import to_ere
from analyzer.signatures import load_patterns

OUT = Path(__file__).parent / "out"


def _lines(rng: random.Random) -> list[str]:
    """One 'minute' of a realistic log; errors are rare, as in real jobs."""
    out = []
    for i in range(400):
        kind = rng.random()
        ts = f"2026-11-29 10:{i % 60:02d}:{rng.randrange(60):02d},{rng.randrange(1000):03d}"
        if kind < 0.35:
            out.append(
                f" [{ts[:19]}] iteration {rng.randrange(1, 50000):>8}/   50000 | consumed samples: "
                f"{rng.randrange(10**7):>12} | elapsed time per iteration (ms): {rng.uniform(900, 1500):.1f} | "
                f"learning rate: {rng.uniform(1e-5, 3e-4):.3E} | global batch size:  1024 | lm loss: "
                f"{rng.uniform(1.5, 3.5):.6E} | loss scale: 1.0 | grad norm: {rng.uniform(0.2, 1.5):.3f} |"
            )
        elif kind < 0.55:
            out.append(
                f"gpu-node{rng.randrange(64)}:{rng.randrange(10**5)}:{rng.randrange(10**5)} [{rng.randrange(8)}] "
                f"NCCL INFO Channel {rng.randrange(32):02d}/0 : {rng.randrange(512)}[{rng.randrange(8)}] -> "
                f"{rng.randrange(512)}[{rng.randrange(8)}] [send] via NET/IB/{rng.randrange(8)}/GDRDMA"
            )
        elif kind < 0.75:
            out.append(
                f"[rank{rng.randrange(512)}]:{ts} - INFO - megatron.training - saving checkpoint shard "
                f"{rng.randrange(1000)} to /mnt/ckpt/iter_{rng.randrange(10**6):07d}/mp_rank_{rng.randrange(8):02d}"
            )
        elif kind < 0.85:
            bar = "".join(
                f"\r{p:3d}%|{'#' * (p // 10):<10}| {p}/100 [00:{p % 60:02d}<00:10, {rng.uniform(1, 9):.2f}it/s]"
                for p in range(0, 100, 25)
            )
            out.append(bar)
        elif kind < 0.95:
            out.append(
                f"{ts} - WARNING - torch.utils.data - worker {rng.randrange(16)} took {rng.uniform(0.1, 5):.2f}s "
                "to fetch a batch; consider increasing num_workers"
            )
        elif kind < 0.999:
            out.append(
                f'  File "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", line {rng.randrange(2000)}, '
                "in _call_impl"
            )
        else:
            out.append(
                f"[rank{rng.randrange(512)}]:[E1129 10:{rng.randrange(60):02d}:00.000000 1 ProcessGroupNCCL.cpp:632] "
                f"[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={rng.randrange(10**5)}, "
                "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds "
                "before timing out."
            )
    return out


def generate(path: Path, mib: int, seed: int = 20261129) -> None:
    if path.exists() and path.stat().st_size >= mib << 20:
        return
    rng = random.Random(seed)
    target = mib << 20
    with path.open("w", encoding="utf-8") as f:
        written = 0
        while written < target:
            chunk = "\n".join(_lines(rng)) + "\n"
            f.write(chunk)
            written += len(chunk.encode())


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
    log = OUT / f"train-{a.mib}MiB.log"
    generate(log, a.mib)
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
            *timed(f"LC_ALL=C grep -c -E -f {f.name} {log}", a.repeat, shell=True),
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
