"""Measure the analyzer on generated bundles.

    python -m corpora.generator.evaluate --seeds 1000:1200

Seeds 0-999 are for development (look at them, tune on them); seeds 1000 and up are held
out: report them, never tune the engine or the generator on their misses.

Generates each bundle into a temporary folder, runs `analyze()` on its logs and prints
category, recovery and rank accuracy (rank: bundles whose label names a rank), accuracy
per category, and every miss with the verdict's evidence line.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from analyzer import analyze
from corpora.generator.bundles import generate


@dataclass(frozen=True)
class Outcome:
    seed: int
    want: str
    got: str
    recovery_ok: bool
    rank_want: int | None
    rank_got: int | None
    evidence: str

    @property
    def category_ok(self) -> bool:
        return self.want == self.got

    @property
    def rank_ok(self) -> bool:
        return self.rank_want == self.rank_got


def run_seed(seed: int, tmp: Path) -> Outcome:
    label = generate(seed, tmp / f"seed_{seed}")
    verdict = analyze(tmp / f"seed_{seed}" / "logs")
    rc = verdict.root_cause
    evidence = f"{rc.file}:{rc.line}: {rc.text.strip()[:160]}" if rc else "(no root cause)"
    want_rank = label["root_cause_rank"]
    return Outcome(
        seed=seed,
        want=str(label["category"]),
        got=verdict.category,
        recovery_ok=verdict.recovery == label["recovery"],
        rank_want=want_rank if isinstance(want_rank, int) else None,
        rank_got=rc.rank if rc else None,
        evidence=evidence,
    )


def evaluate(seeds: range) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="ha-gen-") as tmp:
        return [run_seed(seed, Path(tmp)) for seed in seeds]


def ratio(good: int, total: int) -> str:
    return f"{good}/{total} = {good / total:.3f}" if total else "n/a"


def report(outcomes: list[Outcome]) -> dict[str, float]:
    """Print the figures and misses; return the three accuracies."""
    n = len(outcomes)
    ranked = [o for o in outcomes if o.rank_want is not None]
    cat = sum(o.category_ok for o in outcomes)
    rec = sum(o.recovery_ok for o in outcomes)
    rank = sum(o.rank_ok for o in ranked)
    print(f"category accuracy: {ratio(cat, n)}")
    print(f"recovery accuracy: {ratio(rec, n)}")
    print(f"rank accuracy:     {ratio(rank, len(ranked))}")
    total, good = (
        Counter(o.want for o in outcomes),
        Counter(o.want for o in outcomes if o.category_ok),
    )
    print("per category:")
    for name in sorted(total):
        print(f"  {name:<20} {ratio(good[name], total[name])}")
    misses = [
        o for o in outcomes if not o.category_ok or (o.rank_want is not None and not o.rank_ok)
    ]
    print(f"misses ({len(misses)}):")
    for o in misses:
        print(
            f"  seed {o.seed}: want {o.want} got {o.got}; rank want {o.rank_want} got {o.rank_got}"
        )
        print(f"    evidence: {o.evidence}")
    return {
        "category": cat / n if n else 0.0,
        "recovery": rec / n if n else 0.0,
        "rank": rank / len(ranked) if ranked else 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1000:1200", help="START:STOP (STOP excluded)")
    args = parser.parse_args()
    start, stop = (int(x) for x in args.seeds.split(":"))
    report(evaluate(range(start, stop)))


if __name__ == "__main__":
    main()
