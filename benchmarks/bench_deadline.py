"""Verdict latency for a large job: full reading against a deadline (tail-first).

Builds a 256-rank job of 100 MiB per rank (by default) in which one rank runs out of
device memory at the very end of its log, then times, in one run on this machine:
  analyze(job)                   full reading: every byte of every rank
  analyze(job, deadline=S)       tail-first: the last 4 MiB of each file, then the rest
and prints the latency, the bytes read, whether the reading was complete and whether
the verdict found the culprit. The ranks' files are hard links of one generated log
(plus the culprit's own copy), so the job costs 200 MiB of disk, not 25 GiB; the page
cache holds them, as it would hold logs written moments before a controller reads
them. Ratios are the figures to compare; absolute numbers depend on this machine.

    python benchmarks/bench_deadline.py [--ranks 256] [--mib 100] [--deadline 10] [--no-full]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import time
from pathlib import Path

from analyzer import analyze

OUT = Path(__file__).parent / "out" / "deadline-job"
CULPRIT = 137
OOM = (
    "Traceback (most recent call last):\n"
    '  File "pretrain_gpt.py", line 310, in train_step\n'
    "    loss.backward()\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 1 has a "
    "total capacity of 79.15 GiB of which 1.20 GiB is free.\n"
)


def _rank_log(path: Path, mib: int, seed: int = 7) -> None:
    """A healthy rank's log: Megatron iterations, NCCL INFO chatter, warnings."""
    rng = random.Random(seed)
    target, written, it, t = mib << 20, 0, 1, 1_764_410_400.0
    with path.open("w", encoding="utf-8") as f:
        while written < target:
            lines = []
            for _ in range(200):
                stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))
                r = rng.random()
                if r < 0.5:
                    lines.append(
                        f" [{stamp}] iteration {it:>8}/  500000 | consumed samples: {it * 1024:>12} |"
                        f" elapsed time per iteration (ms): {rng.uniform(900, 1100):.1f} | lm loss: "
                        f"{rng.uniform(1.5, 3.0):.6E} | loss scale: 1.0 | grad norm: {rng.uniform(0.2, 1.2):.3f} |"
                    )
                    it += 1
                    t += 1.0
                elif r < 0.85:
                    lines.append(
                        f"gpu-node{rng.randrange(32)}:{rng.randrange(10**5)}:{rng.randrange(10**5)} "
                        f"[{rng.randrange(8)}] NCCL INFO Channel {rng.randrange(32):02d}/0 : "
                        f"{rng.randrange(256)}[{rng.randrange(8)}] -> {rng.randrange(256)}[{rng.randrange(8)}]"
                        " [send] via NET/IB/0/GDRDMA"
                    )
                else:
                    lines.append(
                        f"{stamp},{rng.randrange(1000):03d} - WARNING - torch.distributed - "
                        "TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment "
                        "variable is thus deprecated."
                    )
            chunk = "\n".join(lines) + "\n"
            f.write(chunk)
            written += len(chunk)


def build(ranks: int, mib: int) -> Path:
    base = OUT.parent / f"rank-base-{mib}MiB.log"
    if not base.exists() or base.stat().st_size < mib << 20:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        _rank_log(base, mib)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    for r in range(ranks):
        dest = OUT / f"rank_{r}.log"
        if r == CULPRIT % ranks:
            shutil.copyfile(base, dest)
            with dest.open("a", encoding="utf-8") as f:
                f.write(OOM)
        else:
            os.link(base, dest)
    return OUT


def _run(job: Path, deadline: float | None) -> None:
    t = time.perf_counter()
    v = analyze(job, deadline=deadline)
    took = time.perf_counter() - t
    rc = v.root_cause
    found = v.category == "device_oom" and rc is not None and rc.file == f"rank_{CULPRIT}.log"
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
    args = ap.parse_args()
    job = build(args.ranks, args.mib)
    total = args.ranks * args.mib
    print(
        f"job: {args.ranks} ranks x {args.mib} MiB = {total / 1024:.1f} GiB, culprit rank {CULPRIT % args.ranks}"
    )
    analyze(
        job / "rank_0.log", deadline=1.0
    )  # warm the pattern cache, as a resident controller would be
    _run(job, args.deadline)
    if not args.no_full:
        _run(job, None)


if __name__ == "__main__":
    main()
