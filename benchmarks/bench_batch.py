"""Batch throughput: jobs per minute for the local engine at 1 and 2 workers and for
Spark local[2], on the same generated archive, in one run on this machine.

    python benchmarks/bench_batch.py [--jobs 200] [--no-spark]

The archive is `corpora.generator.demo` (seeded). Each engine starts from an empty
output, so every job is analysed. Also prints whether the tables agree and the share of
verdicts that match the generator's labels.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq

from analyzer.batch.run import run_batch, run_batch_spark
from corpora.generator.demo import build

OUT = Path(__file__).parent / "out" / "batch"


def _stable(path: Path) -> list[tuple[object, ...]]:
    return sorted(
        (r["job_id"], r["category"], r["root_file"], r["root_line"])
        for r in pq.read_table(path).to_pylist()
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--no-spark", action="store_true")
    args = ap.parse_args()
    archive = OUT / f"demo-{args.jobs}"
    if not (archive / "labels.jsonl").exists():
        build(archive, args.jobs)
    labels = {
        x["job_id"]: x["category"]
        for x in map(json.loads, (archive / "labels.jsonl").read_text().splitlines())
    }
    tables = []
    runs: list[tuple[str, dict[str, object]]] = [("local, 1 worker", {"workers": 1})]
    runs.append(("local, 2 workers", {"workers": 2}))
    if not args.no_spark:
        runs.append(("spark local[2]", {"master": "local[2]"}))
    for name, kw in runs:
        out = OUT / f"{name.replace(' ', '_').replace(',', '')}.parquet"
        shutil.rmtree(out, ignore_errors=True)
        out.unlink(missing_ok=True)
        out.with_name(out.name + ".journal").unlink(missing_ok=True)
        t = time.perf_counter()
        if "master" in kw:
            run_batch_spark([archive], out, master=str(kw["master"]))
        else:
            run_batch([archive], out, workers=int(str(kw["workers"])))
        took = time.perf_counter() - t
        rows = pq.read_table(out).to_pylist()
        right = sum(labels.get(r["job_id"]) == r["category"] for r in rows)
        print(
            f"{name:<18} {len(rows)} jobs in {took:7.1f} s = {len(rows) * 60 / took:6.0f} jobs/min"
            f"   verdicts matching labels {right}/{len(rows)}"
        )
        tables.append(_stable(out))
    print("tables agree:", all(t == tables[0] for t in tables))


if __name__ == "__main__":
    main()
