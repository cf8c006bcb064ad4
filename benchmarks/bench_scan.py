"""Scan throughput and peak memory of ha-analyze beside cat and grep on the same file.

Generates a realistic training log deterministically with benchmarks/genlogs.py
(Megatron-style iteration lines, NCCL INFO chatter, Python logging, tqdm redraws,
warnings, the odd caught traceback, a CUDA OOM at the end), then times, in one run on
this machine:
  cat FILE > /dev/null
  grep -c -E -f SIGNATURES FILE      (the built-in signature regexes converted to ERE, C locale)
  ha-analyze FILE --format json      (per automaton engine on one core, then on all cores)
and prints MB/s and peak RSS; with --compress the same for a gzip or zstd copy (the
decompressor alone is then the floor), with --job a multi-file job read by 1, 2 and all
cores. Ratios within one run are the figures to compare; absolute numbers depend on the
machine and its load.

    python benchmarks/bench_scan.py [--mib 100 --mib 1024] [--compress gzip] [--job 16x64] [--repeat 3]
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


def timed(cmd: str, repeat: int) -> tuple[float, int]:
    """Best wall time over `repeat` runs and the peak RSS (KiB) of the command.

    The RSS comes from GNU time around `sh -c`: a child forked from this process would
    start with this process's own RSS as its peak.
    """
    best, peak = float("inf"), 0
    with tempfile.NamedTemporaryFile() as rss:
        for _ in range(repeat):
            t = time.perf_counter()
            status = subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", rss.name, "sh", "-c", cmd],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            ).returncode
            best = min(best, time.perf_counter() - t)
            peak = max(peak, int(Path(rss.name).read_text().split()[-1]))
            if status not in (0, 1):
                raise SystemExit(f"{cmd} failed with {status}")
    return best, peak


def _table(title: str, size_mb: float, rows: list[tuple[str, float, int]], base: int) -> None:
    print(title)
    print(f"{'command':<60} {'seconds':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    for name, secs, rss in rows:
        print(f"{name:<60} {secs:>8.2f} {size_mb / secs:>8.0f} {rss / 1024:>13.1f}")
    for name, secs, _ in rows[base + 1 :]:
        print(f"  {name}: {rows[base][1] / secs:.2f}x the speed of `{rows[base][0]}`")
    print()


def _decompress(path: Path) -> str:
    return {".gz": "gzip -dc", ".zst": "zstd -dc"}.get(path.suffix, "cat")


def bench_file(log: Path, ere: str, exe: str, repeat: int) -> None:
    """One file: its reading floor (cat, or the decompressor), grep on the plain bytes,
    ha-analyze on each engine."""
    plain = log.with_suffix("") if log.suffix in (".gz", ".zst") else log
    size_mb = plain.stat().st_size / 1e6
    floor = _decompress(log)
    rows = [(f"{floor} > /dev/null", *timed(f"{floor} {log} > /dev/null", repeat))]
    grep = f"LC_ALL=C grep -c -E -f {ere}"
    # into a file: with stdout on /dev/null GNU grep stops at the first match
    cmd = f"{grep} {plain} > {ere}.out" if floor == "cat" else f"{floor} {log} | {grep} > {ere}.out"
    rows.append((f"{'' if floor == 'cat' else floor + ' | '}grep -c -E -f", *timed(cmd, repeat)))
    for engine in available_engines():
        rows.append(
            (
                f"ha-analyze --engine {engine} --workers 1",
                *timed(f"{exe} {log} --format json --engine {engine} --workers 1", repeat),
            )
        )
    cores = os.cpu_count() or 1
    if cores > 1:  # 64 MiB parts of the file on every core
        rows.append((f"ha-analyze --workers {cores}", *timed(f"{exe} {log} --format json", repeat)))
    _table(f"{log.name}: {size_mb:,.0f} MB of log; best of {repeat}", size_mb, rows, 1)


def bench_job(job: Path, ere: str, exe: str, repeat: int, grep: bool) -> None:
    """A multi-file job: grep over every file, ha-analyze with one worker and with all."""
    files = sorted(str(p) for p in job.glob("rank_*"))
    size_mb = sum(os.stat(f).st_size for f in files) / 1e6
    cores = os.cpu_count() or 1
    rows = [("cat", *timed(f"cat {job}/rank_* > /dev/null", repeat))]
    if grep:
        rows.append(
            (
                "grep -c -E -f",
                *timed(f"LC_ALL=C grep -c -E -f {ere} {job}/rank_* > {ere}.out", repeat),
            )
        )
    for n in sorted({1, 2, cores}):
        rows.append(
            (
                f"ha-analyze --workers {n}",
                *timed(f"{exe} {job} --format json --workers {n}", repeat),
            )
        )
    base = 1 if grep else 0
    _table(
        f"{job.name}: {len(files)} files, {size_mb:,.0f} MB; best of {repeat}", size_mb, rows, base
    )
    one = rows[base + 1][1]
    for name, secs, _ in rows[base + 2 :]:
        print(f"  {name}: {one / secs:.2f}x one worker")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--mib", type=int, action="append", help="single-file sizes (default 100)")
    ap.add_argument("--compress", choices=["none", "gzip", "zstd"], action="append")
    ap.add_argument("--job", help="RANKSxMIB: also a multi-file job, e.g. 16x64 or 256x100")
    ap.add_argument(
        "--distinct",
        type=int,
        default=None,
        help="distinct healthy ranks in --job, the rest hard links (default: all distinct)",
    )
    ap.add_argument("--no-grep", action="store_true", help="leave grep out of --job")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    OUT.mkdir(exist_ok=True)
    sigs = load_patterns().signatures
    eres = [e for s in sigs for rx in s.match if (e := grep_ere(rx))]
    print(f"{len(sigs)} signatures; grep gets {len(eres)} regexes (analyzer.export), LC_ALL=C\n")
    exe = shutil.which("ha-analyze") or f"{sys.executable} -m analyzer"
    with tempfile.TemporaryDirectory() as tmp:
        ere = str(Path(tmp) / "signatures.ere")
        Path(ere).write_text("\n".join(eres) + "\n")
        for mib in a.mib or [100]:
            for compress in a.compress or ["none"]:
                log = genlogs.single(OUT / f"train-{mib}MiB.log", mib, compress)
                if compress != "none":
                    genlogs.single(OUT / f"train-{mib}MiB.log", mib)  # grep reads the plain file
                bench_file(log, ere, exe, a.repeat)
        if a.job:
            ranks, mib = (int(x) for x in a.job.split("x"))
            job = genlogs.job(OUT / f"job-{ranks}x{mib}MiB", ranks, mib, distinct=a.distinct)
            bench_job(job, ere, exe, a.repeat, not a.no_grep)


if __name__ == "__main__":
    main()
