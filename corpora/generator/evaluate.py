"""Measure the analyzer on generated bundles.

    python -m corpora.generator.evaluate --seeds 1000:1200
    python -m corpora.generator.evaluate --seeds 3000:3200 [--layout kubectl]

Seeds 0-999 (classic layouts) and 2000-2999 (multi-node layouts) are for development
(look at them, tune on them); seeds 1000-1999 and 3000 and up are held out: report them,
never tune the engine or the generator on their misses.

Generates each bundle into a temporary folder, runs `analyze()` on its logs and prints
category, recovery, rank and host accuracy (rank, host: bundles whose label names one;
host: `root_cause.host == root_cause_host`), `act_on.hosts` accuracy (over every bundle,
and over those whose label names a host: it must hold the root cause's host and nothing
outside the label's `act_on_hosts`, where a network fault's peer may be, by name or
address; it must be empty where the label names no host), accuracy per category and per
layout, and every miss with the verdict's evidence line.
"""

from __future__ import annotations

import argparse
import shutil
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
    layout: str = ""
    host_want: str | None = None
    host_got: str | None = None
    act_want: tuple[str, ...] = ()
    act_got: tuple[str, ...] = ()

    @property
    def category_ok(self) -> bool:
        return self.want == self.got

    @property
    def rank_ok(self) -> bool:
        return self.rank_want == self.rank_got

    @property
    def host_ok(self) -> bool:
        return self.host_want == self.host_got

    @property
    def act_ok(self) -> bool:
        """act_on.hosts holds the root cause's host and only hosts the label allows (or
        nothing, where the label names no host)."""
        if self.host_want is None:
            return not self.act_got
        return self.host_want in self.act_got and set(self.act_got) <= set(self.act_want)

    @property
    def missed(self) -> bool:
        return (
            not self.category_ok
            or (self.rank_want is not None and not self.rank_ok)
            or (self.host_want is not None and not self.host_ok)
            or not self.act_ok
        )


def run_seed(seed: int, tmp: Path, layout: str | None = None) -> Outcome:
    label = generate(seed, tmp / f"seed_{seed}", layout)
    verdict = analyze(tmp / f"seed_{seed}" / "logs")
    shutil.rmtree(tmp / f"seed_{seed}", ignore_errors=True)
    rc = verdict.root_cause
    evidence = f"{rc.file}:{rc.line}: {rc.text.strip()[:160]}" if rc else "(no root cause)"
    want_rank = label["root_cause_rank"]
    want_host = label.get("root_cause_host")
    allowed = label.get("act_on_hosts")
    return Outcome(
        seed=seed,
        want=str(label["category"]),
        got=verdict.category,
        recovery_ok=verdict.recovery == label["recovery"],
        rank_want=want_rank if isinstance(want_rank, int) else None,
        rank_got=rc.rank if rc else None,
        evidence=evidence,
        layout=str(label["layout"]),
        host_want=want_host if isinstance(want_host, str) else None,
        host_got=rc.host if rc else None,
        act_want=tuple(map(str, allowed)) if isinstance(allowed, list) else (),
        act_got=tuple(verdict.act_on.hosts),
    )


def evaluate(seeds: range, layout: str | None = None) -> list[Outcome]:
    """One outcome per seed; `layout` forces one layout of the seeds' family."""
    with tempfile.TemporaryDirectory(prefix="ha-gen-") as tmp:
        return [run_seed(seed, Path(tmp), layout) for seed in seeds]


def ratio(good: int, total: int) -> str:
    return f"{good}/{total} = {good / total:.3f}" if total else "n/a"


def figures(outcomes: list[Outcome]) -> dict[str, float]:
    """Category, recovery, rank, host and act_on.hosts accuracy (rank and host over the
    bundles whose label names one, 1.0 when none does; act_on over every bundle, and
    `act_on_named` over those whose label names a host)."""
    n = len(outcomes)
    ranked = [o for o in outcomes if o.rank_want is not None]
    hosted = [o for o in outcomes if o.host_want is not None]
    return {
        "category": sum(o.category_ok for o in outcomes) / n if n else 0.0,
        "recovery": sum(o.recovery_ok for o in outcomes) / n if n else 0.0,
        "rank": sum(o.rank_ok for o in ranked) / len(ranked) if ranked else 1.0,
        "host": sum(o.host_ok for o in hosted) / len(hosted) if hosted else 1.0,
        "act_on": sum(o.act_ok for o in outcomes) / n if n else 0.0,
        "act_on_named": sum(o.act_ok for o in hosted) / len(hosted) if hosted else 1.0,
    }


def by_layout(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    """`figures` per layout, with `n` the number of bundles."""
    out: dict[str, dict[str, float]] = {}
    for layout in sorted({o.layout for o in outcomes}):
        mine = [o for o in outcomes if o.layout == layout]
        out[layout] = {"n": float(len(mine)), **figures(mine)}
    return out


def report(outcomes: list[Outcome]) -> dict[str, float]:
    """Print the figures and misses; return the accuracies (category, recovery, rank,
    host, act_on)."""
    n = len(outcomes)
    ranked = [o for o in outcomes if o.rank_want is not None]
    hosted = [o for o in outcomes if o.host_want is not None]
    cat = sum(o.category_ok for o in outcomes)
    rec = sum(o.recovery_ok for o in outcomes)
    rank = sum(o.rank_ok for o in ranked)
    host = sum(o.host_ok for o in hosted)
    act = sum(o.act_ok for o in outcomes)
    named = sum(o.act_ok for o in hosted)
    print(f"category accuracy: {ratio(cat, n)}")
    print(f"recovery accuracy: {ratio(rec, n)}")
    print(f"rank accuracy:     {ratio(rank, len(ranked))}")
    print(f"host accuracy:     {ratio(host, len(hosted))}")
    print(f"act_on.hosts:      {ratio(act, n)} (where the label names a host: "
          f"{ratio(named, len(hosted))})")  # fmt: skip
    total, good = (
        Counter(o.want for o in outcomes),
        Counter(o.want for o in outcomes if o.category_ok),
    )
    print("per category:")
    for name in sorted(total):
        print(f"  {name:<20} {ratio(good[name], total[name])}")
    print("per layout:         n  category recovery  rank    host  act_on  act_on(named)")
    for layout, f in by_layout(outcomes).items():
        print(
            f"  {layout:<14} {int(f['n']):>5}  {f['category']:8.3f} {f['recovery']:8.3f} "
            f"{f['rank']:5.3f} {f['host']:7.3f} {f['act_on']:7.3f} {f['act_on_named']:8.3f}"
        )
    misses = [o for o in outcomes if o.missed]
    print(f"misses ({len(misses)}):")
    for o in misses:
        print(
            f"  seed {o.seed} ({o.layout}): want {o.want} got {o.got}; rank want {o.rank_want} "
            f"got {o.rank_got}; host want {o.host_want} got {o.host_got}; act_on.hosts want "
            f"{list(o.act_want)} got {list(o.act_got)}"
        )
        print(f"    evidence: {o.evidence}")
    return {
        "category": cat / n if n else 0.0,
        "recovery": rec / n if n else 0.0,
        "rank": rank / len(ranked) if ranked else 1.0,
        "host": host / len(hosted) if hosted else 1.0,
        "act_on": act / n if n else 0.0,
        "act_on_named": named / len(hosted) if hosted else 1.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1000:1200", help="START:STOP (STOP excluded)")
    parser.add_argument(
        "--layout",
        help="force one layout of the seeds' family (per_rank, logdir, console below seed "
        "2000; node_dir, node_file, kubectl, slurm from 2000)",
    )
    args = parser.parse_args()
    start, stop = (int(x) for x in args.seeds.split(":"))
    report(evaluate(range(start, stop), args.layout))


if __name__ == "__main__":
    main()
