"""Verdict latency for a large job: full reading against a deadline (tail-first).

Builds a 256-rank job of 100 MiB per rank (by default) in which one rank runs out of
device memory at the very end of its log, then times, in one run on this machine:
  analyze(job)                   full reading: every byte of every rank
  analyze(job, deadline=S)       tail-first: the last 4 MiB of each file, then the rest
and prints the latency, the bytes read, whether the reading was complete and whether
the verdict found the culprit. The job comes from benchmarks/genlogs.py (the other
ranks end in the NCCL watchdog timeout ten minutes after the OOM). Only `--distinct`
healthy ranks are generated and the rest are hard links of them, so the job costs
about 900 MiB of disk, not 25 GiB; the page cache holds them, as it would hold logs
written moments before a controller reads them. Ratios are the figures to compare;
absolute numbers depend on this machine.

    python benchmarks/bench_deadline.py [--ranks 256] [--mib 100] [--deadline 10] [--no-full]
                                        [--distinct 8]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import genlogs  # benchmarks/genlogs.py: this script's folder is sys.path[0]

from analyzer import analyze

OUT = Path(__file__).parent / "out" / "deadline-job"


def build(ranks: int, mib: int, distinct: int) -> tuple[Path, dict[str, Any]]:
    """The job folder (reused when already complete) and its planted root cause."""
    job = genlogs.job(OUT, ranks, mib, distinct=distinct)
    return job, json.loads(genlogs.record_of(job).read_text())


def _run(logs: list[Path], expected: dict[str, Any], deadline: float | None) -> None:
    t = time.perf_counter()
    v = analyze(logs, deadline=deadline)
    took = time.perf_counter() - t
    rc = v.root_cause
    found = (
        v.category == expected["category"]
        and rc is not None
        and Path(rc.file).name == expected["file"]
    )
    label = "full" if deadline is None else f"deadline {deadline:g} s"
    print(
        f"{label:<16} {took:8.2f} s  read {v.stats.bytes / 2**20:10,.0f} MiB  "
        f"complete={v.stats.complete!s:<5}  verdict={v.category:<12} culprit found={found}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=256)
    ap.add_argument("--mib", type=int, default=100)
    ap.add_argument("--deadline", type=float, default=10.0)
    ap.add_argument("--no-full", action="store_true", help="skip the full reading")
    ap.add_argument(
        "--distinct",
        type=int,
        default=8,
        help="healthy ranks generated; the others are hard links to them (default 8)",
    )
    args = ap.parse_args()
    job, expected = build(args.ranks, args.mib, args.distinct)
    logs = sorted(job.glob("rank_*.log"))
    total = args.ranks * args.mib
    print(
        f"job: {args.ranks} ranks x {args.mib} MiB = {total / 1024:.1f} GiB, culprit rank {expected['rank']}"
    )
    analyze(logs[0], deadline=1.0)  # warm the pattern cache, as a resident controller would be
    _run(logs, expected, args.deadline)
    if not args.no_full:
        _run(logs, expected, None)


if __name__ == "__main__":
    main()
