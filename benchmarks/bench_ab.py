"""Two versions of the engine on the same profiles, alternating, in one run.

    python benchmarks/bench_ab.py --base d82a6d2 [--profile all] [--mib 32] [--repeat 3]

Checks the `--base` revision out into a temporary git worktree and runs
`python -m analyzer FILE --format json --workers 1` with it and with this checkout,
turn about, on each profile of benchmarks/profiles.py (the files bench_scan.py measures),
and prints the CPU seconds (user + system of the whole process, start-up included) of
each, their ratio (this checkout / base: below 1 is faster), and whether the two JSON
verdicts agree. CPU time, not wall time: the machines here are shared and noisy, and
alternating puts both versions under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import profiles  # benchmarks/profiles.py: this script's folder is sys.path[0]

REPO = Path(__file__).resolve().parent.parent
OUT = Path(__file__).parent / "out"


def _run(code: Path, target: Path) -> tuple[float, dict[str, object]]:
    """CPU seconds of one analysis by the engine at `code`, and its verdict (no timings)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "analyzer", str(target), "--format", "json", "--workers", "1"],
        capture_output=True,
        env=env,
        cwd=code,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    verdict = json.loads(done.stdout or b"{}")
    verdict.get("stats", {}).pop("seconds", None)
    verdict.pop("culprit_rule", None)  # a key the older schema lacks
    return cpu, verdict


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--base", required=True, help="the revision to compare against")
    ap.add_argument(
        "--profile", default="all", help=f"one of {', '.join(profiles.PROFILES)}, or all"
    )
    ap.add_argument("--mib", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    kinds = profiles.PROFILES if a.profile == "all" else (a.profile,)
    with tempfile.TemporaryDirectory(prefix="ha-ab-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(base), a.base],
            check=True,
        )
        try:
            print(f"{'profile':10} {'base s':>8} {'this s':>8} {'this/base':>9}  verdicts")
            for kind in kinds:
                target = profiles.make(kind, profiles.default_path(OUT, kind, a.mib), a.mib)
                times: dict[str, list[float]] = {"base": [], "this": []}
                verdicts: dict[str, dict[str, object]] = {}
                for _ in range(a.repeat):
                    for name, code in (("base", base), ("this", REPO)):
                        cpu, verdicts[name] = _run(code, target)
                        times[name].append(cpu)
                b, t = statistics.median(times["base"]), statistics.median(times["this"])
                same = "same" if verdicts["base"] == verdicts["this"] else "DIFFER"
                print(f"{kind:10} {b:8.2f} {t:8.2f} {t / b:9.2f}  {same}")
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], check=False
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
