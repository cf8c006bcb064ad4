"""A demo archive: many generated jobs, one folder each, for `batch` and `report`.

    python -m corpora.generator.demo OUT [--jobs 1000]

Job N is the generator's bundle of seed N (see bundles.py), its clock moved to a day in
a 30-day window and its nodes renamed to hosts of one 64-host cluster, so the report
has something to show over time and per host; two hosts are made flaky (the culprit
node of most device faults). `OUT/labels.jsonl` holds the labels, outside the jobs.
Deterministic: the same arguments give the same files.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from . import bundles

_NODE = re.compile(r"\bnode(\d+)\b")
_LEMONS = ("gpu-17", "gpu-42")


def _hosts(seed: int, category: str) -> dict[str, str]:
    base = [f"gpu-{(seed * 13 + k * 7) % 64:02d}" for k in range(8)]
    if category == "device_fault" and seed % 3:
        base[0] = _LEMONS[seed % 2]
    return {str(k): h for k, h in enumerate(base)}


def _renamer(hosts: dict[str, str]) -> Callable[[str], str]:
    return lambda text: _NODE.sub(lambda m: hosts.get(m.group(1), m.group(0)), text)


def build(out: Path, jobs: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    start = bundles.START
    labels = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(jobs):
            bundles.START = start - timedelta(days=29 - seed % 30, hours=seed % 7)
            label = bundles.generate(seed, Path(tmp) / str(seed))
            rename = _renamer(_hosts(seed, str(label["category"])))
            job = out / f"job-{seed:04d}"
            shutil.rmtree(job, ignore_errors=True)
            src = Path(tmp) / str(seed) / "logs"
            for f in sorted(p for p in src.rglob("*") if p.is_file()):
                dest = job / rename(f.relative_to(src).as_posix())
                dest.parent.mkdir(parents=True, exist_ok=True)
                text = f.read_text(encoding="utf-8")
                dest.write_text(rename(text), encoding="utf-8")
            for key in ("root_cause_host", "root_cause_file"):
                if isinstance(label.get(key), str):
                    label[key] = rename(str(label[key]))
            labels.append({"job_id": job.name, **label})
    bundles.START = start
    (out / "labels.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--jobs", type=int, default=1000)
    args = ap.parse_args()
    build(args.out, args.jobs)
    print(f"{args.jobs} jobs in {args.out}")


if __name__ == "__main__":
    main()
