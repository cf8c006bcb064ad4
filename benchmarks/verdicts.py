"""Every verdict on every corpus job, as one file, to compare two versions of the engine.

    python3 benchmarks/verdicts.py --out before.jsonl            # on the old checkout
    python3 benchmarks/verdicts.py --out after.jsonl             # on the new one
    python3 benchmarks/verdicts.py --compare before.jsonl after.jsonl

A refactor must leave every verdict byte-identical (issue 34); a fix that changes some
says which in its commit. The jobs are every labelled case of the repository's corpora
(a case folder or excerpt file), every bundle of the generated corpora, and the public
dev set when it is there (`../shared/eval/dev`). Each verdict is the JSON the CLI prints
(`--format json`), in English and in Chinese, with `failed` as the label says.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEV = REPO.parent / "shared" / "eval" / "dev"


def jobs() -> Iterator[tuple[str, Path, bool]]:
    """(name, path, failed) of every job the corpora hold, in a fixed order."""
    corpora = REPO / "corpora"
    seen: set[Path] = set()
    for label in sorted(corpora.rglob("label.json")):
        case = label.parent
        logs = case / "logs" if (case / "logs").is_dir() else case
        failed = bool(json.loads(label.read_text(encoding="utf-8")).get("failed"))
        seen.add(case)
        yield str(case.relative_to(REPO)), logs, failed
    for excerpt in sorted((corpora / "failures").rglob("*.log")):
        yield str(excerpt.relative_to(REPO)), excerpt, False
    for top in (
        "ascend/bundles",
        "clean",
        "examples",
        "flight/runs",
        "torchrun/runs",
        "torchrun/multinode",
        "readiness/runs",
        "readiness/generated",
    ):
        root = corpora / top
        if not root.is_dir():
            continue
        for case in sorted(p for p in root.iterdir() if p.is_dir()):
            if case in seen or any(s in case.parents for s in seen):
                continue
            logs = case / "logs" if (case / "logs").is_dir() else case
            yield str(case.relative_to(REPO)), logs, False
    if DEV.is_dir():
        for label in sorted(DEV.glob("*/label.json")):
            failed = bool(json.loads(label.read_text(encoding="utf-8")).get("failed"))
            yield f"dev/{label.parent.name}", label.parent / "logs", failed


def snapshot(out: Path) -> int:
    from analyzer import Settings, analyze
    from analyzer.sinks.json import render

    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for name, path, failed in jobs():
            for lang in ("en", "zh"):
                verdict = analyze(path, Settings(lang=lang, failed=failed))
                body = json.loads(render(verdict))
                body.get("stats", {}).pop("seconds", None)
                fh.write(
                    json.dumps(
                        {"job": name, "lang": lang, "verdict": body},
                        ensure_ascii=False,
                        sort_keys=True,
                    )
                    + "\n"
                )
                n += 1
    print(f"{n} verdicts -> {out}")
    return 0


def compare(a: Path, b: Path) -> int:
    def load(p: Path) -> dict[tuple[str, str], str]:
        rows = (json.loads(line) for line in p.read_text(encoding="utf-8").splitlines())
        return {(r["job"], r["lang"]): json.dumps(r["verdict"], sort_keys=True) for r in rows}

    old, new = load(a), load(b)
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    gone, added = sorted(old.keys() - new.keys()), sorted(new.keys() - old.keys())
    for job, lang in changed:
        o, n = json.loads(old[job, lang]), json.loads(new[job, lang])
        keys = sorted(k for k in o.keys() | n.keys() if o.get(k) != n.get(k))
        print(f"changed  {job} [{lang}]: {', '.join(keys)}")
    for job, lang in gone:
        print(f"missing  {job} [{lang}]")
    for job, lang in added:
        print(f"new      {job} [{lang}]")
    same = len(old.keys() & new.keys()) - len(changed)
    print(f"{same} identical, {len(changed)} changed, {len(gone)} missing, {len(added)} new")
    return 1 if changed or gone else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, help="write every verdict to this JSON-lines file")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    a = ap.parse_args(argv)
    if a.compare:
        return compare(*a.compare)
    if a.out:
        return snapshot(a.out)
    ap.error("give --out FILE or --compare BEFORE AFTER")
    return 2


if __name__ == "__main__":
    sys.exit(main())
