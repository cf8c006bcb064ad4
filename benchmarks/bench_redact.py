"""The redactor's cost: realistic lines per second, and time against line length for the
shapes that make regexes backtrack (linear means doubling the length doubles the time).

    python benchmarks/bench_redact.py [--lines N]

Lines come from the secret corpus (tests/hostile/secrets.yaml: forms and look-alikes)
and from ordinary training-log lines that hold no secret, the common case: those cost
one RE2 set pass each.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import yaml

from analyzer.read.redact import redact

ROOT = Path(__file__).resolve().parent.parent
ORDINARY = [
    "[rank0]: iteration 1200/50000 | lm loss: 2.3412 | lr 2.900e-04 | grad norm 0.871",
    "gpu-node-07:1234:5678 [0] NCCL INFO Channel 00/02 : 0[0] -> 1[1] via P2P/IPC",
    "2026-12-01 10:00:01,123 - INFO - saved checkpoint to /ckpt/global_step1200",
    "[WARNING] HCCL(12345,python):2026-12-01-10:00:01.123.456 [hccl_comm.cc:345] init",
]
SHAPES = {
    "spaces then a key": lambda n: " " * n + "password=x",
    "a run of key words": lambda n: "password=" * (n // 9),
    "base64 without end": lambda n: "A" * n,
    "quotes": lambda n: "'" * n,
    "url-like colons": lambda n: "https://" + "a:" * (n // 2),
    "brackets then base64": lambda n: "[a]" * (n // 6) + "Ab" * (n // 4),
}


def _rate(lines: list[str], repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        for line in lines:
            redact(line)
    return len(lines) * repeat / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--lines", type=int, default=20000, help="lines per measurement")
    args = ap.parse_args()
    corpus = yaml.safe_load((ROOT / "tests" / "hostile" / "secrets.yaml").read_text())
    secret = [ln for f in corpus["forms"] for ln in f["line"].split("\n")]
    harmless = [h["line"] for h in corpus["harmless"]]
    redact(ORDINARY[0])  # the RE2 set is built on first use
    for name, lines in (
        ("ordinary lines", ORDINARY),
        ("look-alikes", harmless),
        ("secret forms", secret),
    ):
        rate = _rate(lines, max(1, args.lines // len(lines)))
        print(f"{name:22s} {rate:12,.0f} lines/s")
    print("\nlength     " + "".join(f"{n:>10,d}" for n in (25_000, 50_000, 100_000, 200_000)))
    for name, make in SHAPES.items():
        times = []
        for n in (25_000, 50_000, 100_000, 200_000):
            line = make(n)
            started = time.perf_counter()
            redact(line)
            times.append(time.perf_counter() - started)
        growth = times[-1] / max(times[-2], 1e-9)
        cells = "".join(f"{t * 1000:9.1f}ms" for t in times)
        print(f"{name:22s}{cells}   x{growth:.1f} for x2 length")


if __name__ == "__main__":
    main()
