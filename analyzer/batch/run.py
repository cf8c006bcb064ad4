"""Many archived jobs -> one table (Parquet, CSV or JSON lines), resumable.

A job is a folder or an archive under a root (by default each entry directly under it;
`depth` for layouts such as cluster/date/job). Each job is analysed on its own, in a
process pool, and becomes one row; a job that cannot be analysed becomes a row with its
error, never the end of the batch. Rows are appended to a journal as they finish (one
JSON line each, flushed), and the table is rewritten atomically from the journal: a run
killed with -9 loses nothing already journaled, and a re-run skips every job whose
content fingerprint is unchanged, so nothing is analysed or written twice.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analysis import Analyzer, Settings, read_job
from ..decide.readiness import FEATURES, Readiness
from ..read.redact import label
from ..read.sources import SourceNotes, iter_units
from ..types import AnalyzerError, Verdict

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = "ha-analyze/batch/1"
_ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar.zst", ".zip")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_SAMPLE = 64 << 10  # bytes of each file's head and tail that enter the fingerprint

# (column, type) in table order; the types are pyarrow's names.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("job_id", "string"),
    ("job_path", "string"),
    ("fingerprint", "string"),
    ("category", "string"),
    ("recovery", "string"),
    ("retryable", "bool"),
    ("confidence", "float64"),
    ("decided_by", "string"),
    ("summary", "string"),
    ("root_file", "string"),
    ("root_line", "int64"),
    ("root_rank", "int64"),
    ("root_host", "string"),
    ("act_on_host", "string"),  # the host the verdict points at (the lemon table's)
    ("root_time", "string"),
    ("root_signature", "string"),
    ("root_text", "string"),
    ("model_category", "string"),
    ("model_probability", "float64"),
    ("findings", "int64"),
    ("matched_lines", "int64"),
    ("ranks", "int64"),
    ("last_step", "int64"),
    ("step_seconds", "float64"),
    ("gpu_hours", "float64"),
    ("checkpoint_step", "int64"),
    ("steps_lost", "int64"),
    ("files", "int64"),
    ("lines", "int64"),
    ("bytes", "int64"),
    ("complete", "bool"),
    # HA readiness (analyzer.decide.readiness): the scenario and each row's state
    ("scenario", "string"),
    *((f"ready_{feature}", "string") for feature in FEATURES),
    ("analysis_seconds", "float64"),
    ("analyzed_at", "string"),
    ("error", "string"),
    ("schema", "string"),
)
FINDING_COLUMNS: tuple[tuple[str, str], ...] = (
    ("job_id", "string"),
    ("signature", "string"),
    ("category", "string"),
    ("role", "string"),
    ("severity", "string"),
    ("count", "int64"),
    ("ranks", "int64"),
    ("file", "string"),
    ("line", "int64"),
    ("text", "string"),
)


@dataclass(frozen=True)
class Job:
    id: str
    path: Path
    fingerprint: str = ""  # computed once, for the skip check, and reused in the row


def _fingerprinted(jobs: Iterable[Job]) -> list[Job]:
    return [Job(j.id, j.path, fingerprint(j.path)) for j in jobs]


def _empty_row(job: Job) -> dict[str, Any]:
    row: dict[str, Any] = {c: None for c, _ in COLUMNS}
    row.update(job_id=job.id, job_path=label(str(job.path)), schema=SCHEMA)
    return row


def discover(roots: Sequence[str | Path], depth: int = 1) -> list[Job]:
    """The jobs under each root: its entries `depth` levels down that are folders or
    archives. A root that is itself an archive or file is one job."""
    jobs: list[Job] = []
    for root in map(Path, roots):
        if not root.is_dir():
            jobs.append(Job(label(root.name), root))
            continue
        level = [root]
        for _ in range(depth):
            # a link is not a job: as in analyze, a link inside a root is not followed
            # (one could point anywhere the user can read)
            level = [
                c
                for d in level
                for c in sorted(d.iterdir())
                if not c.is_symlink() and (c.is_dir() or _archive(c))
            ]
        # ids are labels: a folder name that is not UTF-8 or holds a newline would make
        # a table no writer accepts, or forge a row
        jobs += [Job(label(p.relative_to(root).as_posix()), p) for p in level]
    return jobs


def _archive(p: Path) -> bool:
    return p.is_file() and p.name.lower().endswith(_ARCHIVES)


def fingerprint(path: Path) -> str:
    """Names, sizes and the head and tail bytes of every file: changes when the logs do,
    not when a copy resets modification times. Files are listed as analyze lists them
    (iteratively, links skipped), names hashed as bytes."""
    h = hashlib.sha256()
    for unit in iter_units([str(path)], SourceNotes()):
        assert unit.path is not None
        try:
            with open(unit.path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                head = fh.read(_SAMPLE)
                fh.seek(max(size - _SAMPLE, 0))
                tail = fh.read(_SAMPLE)
        except OSError as e:
            h.update(os.fsencode(unit.path) + str(e.errno).encode())
            continue
        name = unit.name if unit.path != str(path) else path.name  # an archive: its own name
        h.update(os.fsencode(name) + b"\0" + str(size).encode() + b"\0")
        h.update(head + tail)
    return h.hexdigest()[:32]


def analyse_job(
    job: Job, settings: Settings | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One row and its findings; any exception becomes the row's error."""
    row = _empty_row(job)
    row["analyzed_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    started = time.perf_counter()
    try:
        row["fingerprint"] = job.fingerprint or fingerprint(job.path)
        v, ready = read_job(job.path, settings or Settings(), _both)
    except Exception as e:  # one broken job must not end the batch
        row["error"] = label(f"{type(e).__name__}: {e}")  # a path in it is a name
        row["analysis_seconds"] = time.perf_counter() - started
        return row, []
    if not v.stats.lines:  # nothing readable: an error row, never a clean `none`
        why = list(v.stats.notes[:3] or v.stats.unreadable[:3])
        row["error"] = "no log line could be read" + (f": {'; '.join(why)}" if why else "")
        row.update(files=v.stats.files, bytes=v.stats.bytes, complete=v.stats.complete)
        row["analysis_seconds"] = time.perf_counter() - started
        return row, []
    rc = v.root_cause
    row.update(
        category=v.category,
        recovery=v.recovery,
        retryable=v.retryable,
        confidence=v.confidence,
        decided_by=v.decided_by,
        summary=v.summary,
        root_file=rc.file if rc else None,
        root_line=rc.line if rc else None,
        root_rank=rc.rank if rc else None,
        root_host=rc.host if rc else None,
        act_on_host=v.act_on.hosts[0] if v.act_on.hosts else None,
        root_time=rc.time if rc else None,
        root_signature=rc.signature if rc else None,
        root_text=rc.text if rc else None,
        model_category=v.model.category if v.model else None,
        model_probability=v.model.probability if v.model else None,
        findings=len(v.findings),
        matched_lines=sum(f.count for f in v.findings),
        **_cost(v),
        files=v.stats.files,
        lines=v.stats.lines,
        bytes=v.stats.bytes,
        complete=v.stats.complete,
        scenario=ready.scenario,
        **{f"ready_{r.feature}": r.state for r in ready.rows},
        analysis_seconds=time.perf_counter() - started,
    )
    findings = [
        {
            "job_id": job.id,
            "signature": f.signature.id,
            "category": f.signature.category,
            "role": f.signature.role,
            "severity": f.signature.severity,
            "count": f.count,
            "ranks": len(f.ranks),
            "file": f.first.file,
            "line": f.first.line,
            "text": f.first.text,
        }
        for f in v.findings
    ]
    return row, findings


def _both(job: Analyzer) -> tuple[Verdict, Readiness]:
    """A job's verdict and its readiness table, from one reading."""
    return job.verdict(), job.readiness()


def _cost(v: Verdict) -> dict[str, Any]:
    """What the attempt consumed: ranks x steps reached x median step time, in accelerator
    hours (one rank, one device), where the logs show steps and their times; and the
    steps past the newest complete checkpoint, which a restart repeats."""
    ranks = {p.rank for p in v.progress if p.rank is not None}
    steps = [p.last_step for p in v.progress if p.last_step is not None]
    times = sorted(p.step_seconds for p in v.progress if p.step_seconds)
    n = len(ranks) or (1 if v.progress else None)
    last = max(steps) if steps else None
    step_s = times[len(times) // 2] if times else None
    hours = n * last * step_s / 3600 if n and last is not None and step_s else None
    ck = v.checkpoint
    return {
        "ranks": n,
        "last_step": last,
        "step_seconds": step_s,
        "gpu_hours": hours,
        "checkpoint_step": ck.step if ck else None,
        "steps_lost": ck.steps_lost if ck else None,
    }


class _Journal:
    """Rows as JSON lines, flushed one by one: the record that survives a kill."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> list[dict[str, Any]]:
        rows = []
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError:
            return []
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # the last line of a killed run may be cut
            if _well_formed(rec):  # anything else is not ours: the job is analysed again
                rows.append(rec)
        return rows

    def append(self, record: dict[str, Any]) -> None:
        """One record, on a line of its own even after a torn last line (a run killed
        mid-write), through no link (a planted one would redirect the write)."""
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o644)
        with os.fdopen(fd, "ab") as f:
            line = json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"
            end = os.fstat(fd).st_size
            if end and os.pread(fd, 1, end - 1) != b"\n":
                line = b"\n" + line
            f.write(line)
            f.flush()
            os.fsync(fd)


def _well_formed(rec: Any) -> bool:
    """A journal record as append() writes it: a row with a string job id and
    fingerprint, and a list of finding rows."""
    if not isinstance(rec, dict) or not isinstance(rec.get("row"), dict):
        return False
    row, findings = rec["row"], rec.get("findings")
    return (
        isinstance(row.get("job_id"), str)
        and isinstance(row.get("fingerprint"), str)
        and isinstance(findings, list)
        and all(isinstance(f, dict) for f in findings)
    )


def _journal_of(out: Path) -> _Journal:
    return _Journal(out.with_name(out.name + ".journal"))


# the formats a table is written in, by its file's suffix
TABLE_SUFFIXES = (".parquet", ".csv", ".jsonl")


def write_table(
    rows: Iterable[dict[str, Any]], columns: Sequence[tuple[str, str]], out: Path
) -> None:
    """Rows to Parquet, CSV or JSON lines by `out`'s suffix, atomically (a temporary
    file beside it, then rename): a reader never sees half a table."""
    rows = list(rows)
    # a fresh name of our own (O_EXCL): never a planted link, never another run's file
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        _write(rows, columns, tmp, out.suffix.lower())
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def _safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text that starts like a formula (=, +,
    -, @, tab, CR) is prefixed with a quote, as OWASP recommends."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _write(
    rows: list[dict[str, Any]], columns: Sequence[tuple[str, str]], tmp: Path, suffix: str
) -> None:
    if suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema(
            [(c, getattr(pa, "bool_" if t == "bool" else t)()) for c, t in columns],
            metadata={"schema": SCHEMA},
        )
        table = pa.Table.from_pylist(
            [{c: r.get(c) for c, _ in columns} for r in rows], schema=schema
        )
        pq.write_table(table, tmp)
    elif suffix == ".csv":
        import csv

        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=[c for c, _ in columns], extrasaction="ignore")
            w.writeheader()
            w.writerows({k: _safe_cell(v) for k, v in r.items()} for r in rows)
    else:
        with open(tmp, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({c: r.get(c) for c, _ in columns}, ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class BatchResult:
    jobs: int
    analysed: int
    skipped: int  # unchanged since an earlier run
    errors: int
    seconds: float


def run_batch(
    roots: Sequence[str | Path],
    out: Path,
    *,
    findings_out: Path | None = None,
    workers: int | None = None,
    depth: int = 1,
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BatchResult:
    """Analyse every job under `roots` not already in `out` with the same fingerprint."""
    started = time.perf_counter()
    with _locked(out):
        return _run_batch(roots, out, findings_out, workers, depth, settings, progress, started)


class BatchLocked(AnalyzerError):
    """Another run is writing the same table."""


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """One run per table: a second run on the same --out stops at once with a message
    (both would analyse everything and race on the journal)."""
    lock = out.with_name(f".{out.name}.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchLocked(f"another batch run is writing {out} (lock {lock})") from None
        yield
    finally:
        os.close(fd)


def _run_batch(
    roots: Sequence[str | Path],
    out: Path,
    findings_out: Path | None,
    workers: int | None,
    depth: int,
    settings: Settings | None,
    progress: Callable[[int, int], None] | None,
    started: float,
) -> BatchResult:
    journal = _journal_of(out)
    done: dict[str, dict[str, Any]] = {}
    for rec in journal.read():
        done[rec["row"]["job_id"]] = rec
    jobs = _fingerprinted(discover(roots, depth))
    todo = [
        j for j in jobs if j.id not in done or done[j.id]["row"]["fingerprint"] != j.fingerprint
    ]
    workers = workers or os.cpu_count() or 1
    for n, (row, findings) in enumerate(_analyse_all(todo, workers, settings), 1):
        rec = {"row": row, "findings": findings}
        journal.append(rec)
        done[row["job_id"]] = rec
        if progress:
            progress(n, len(todo))
    wanted = {j.id for j in jobs} | set(done)
    records = [done[k] for k in sorted(wanted) if k in done]
    write_table((r["row"] for r in records), COLUMNS, out)
    if findings_out is not None:
        write_table((f for r in records for f in r["findings"]), FINDING_COLUMNS, findings_out)
    errors = sum(1 for r in records if r["row"].get("error"))
    return BatchResult(
        len(jobs), len(todo), len(jobs) - len(todo), errors, time.perf_counter() - started
    )


def _analyse_all(
    jobs: Sequence[Job], workers: int, settings: Settings | None
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    if workers <= 1 or len(jobs) <= 1:
        for j in jobs:
            yield analyse_job(j, settings)
        return
    with ProcessPoolExecutor(workers) as pool:
        futures = {pool.submit(analyse_job, j, settings): j for j in jobs}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as e:  # a worker died (killed, out of memory)
                row = _empty_row(futures[fut])
                row["error"] = label(f"worker failed: {type(e).__name__}: {e}")
                yield row, []


def analyze_many(
    roots: Sequence[str | Path],
    *,
    depth: int = 1,
    workers: int | None = None,
    settings: Settings | None = None,
) -> pd.DataFrame:
    """Every job under `roots` (as `batch` finds them), one row each in the batch table's
    schema, as a pandas DataFrame sorted by `job_id`: for a notebook, nothing written.
    Needs the `batch` extra (pandas)."""
    jobs = _fingerprinted(discover(roots, depth))
    rows = [row for row, _ in _analyse_all(jobs, workers or os.cpu_count() or 1, settings)]
    return _frame(sorted(rows, key=lambda r: str(r["job_id"])), COLUMNS)


def read_table(path: str | Path) -> pd.DataFrame:
    """A batch table (Parquet, CSV or JSON lines) as the DataFrame `analyze_many` returns:
    the same columns in the same order with the same types, whatever the format
    (a CSV's cells are text until typed here). Raises report.TableError for a file that
    is no batch table."""
    from .report import load_rows

    return _frame(load_rows(Path(path)), COLUMNS)


# pandas' nullable dtype for each of the table's pyarrow types (a missing root rank is
# <NA>, not a float NaN that turns the column into floats)
_DTYPES = {"string": "string", "int64": "Int64", "float64": "Float64", "bool": "boolean"}


def _frame(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> pd.DataFrame:
    import pandas as pd

    data: dict[str, Any] = {}
    for name, kind in columns:
        values = [_cell(r.get(name), kind) for r in rows]
        data[name] = pd.array(values, dtype=_DTYPES[kind])
    return pd.DataFrame(data, columns=[c for c, _ in columns])


def _cell(value: Any, kind: str) -> Any:
    """One cell as its column's type: CSV gives text, an empty cell is missing."""
    if value is None or value == "":
        return None
    if kind == "bool" and isinstance(value, str):
        return {"true": True, "false": False}.get(value.lower())
    if kind == "int64":
        return int(float(value))
    if kind == "float64":
        return float(value)
    return value if kind != "string" else str(value)


def print_progress(n: int, total: int) -> None:
    sys.stderr.write(f"\r[{n}/{total}] jobs analysed")
    if n == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run_batch_spark(
    roots: Sequence[str | Path],
    out: Path,
    *,
    findings_out: Path | None = None,
    master: str = "local[*]",
    depth: int = 1,
    settings: Settings | None = None,
) -> BatchResult:
    """The same table computed on Apache Spark: the job list is distributed, each task
    analyses whole jobs, Spark writes the Parquet (a folder of part files, `out`).

    Jobs already in `out` with the same fingerprint are kept, not analysed again; Spark
    commits the output only when every task succeeded, so a killed run leaves the
    previous table intact.
    """
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    started = time.perf_counter()
    jobs = _fingerprinted(discover(roots, depth))
    previous: dict[str, dict[str, Any]] = {}
    if out.exists():
        previous = {r["job_id"]: r for r in pq.read_table(out).to_pylist()}
    todo = [j for j in jobs if previous.get(j.id, {}).get("fingerprint") != j.fingerprint]
    if not todo and findings_out is None and set(previous) == {j.id for j in jobs}:
        # every job as the table has it: no cluster is started, the table stays as it is
        errors = sum(1 for r in previous.values() if r.get("error"))
        return BatchResult(len(jobs), 0, len(jobs), errors, time.perf_counter() - started)
    redo = {j.id for j in todo}
    keep = [r for k, r in previous.items() if k not in redo]
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers need this package
    spark = (
        SparkSession.builder.master(master)
        .appName("ha-analyze batch")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    try:
        sc = spark.sparkContext
        slices = max(1, min(len(todo), sc.defaultParallelism * 4))
        results = sc.parallelize([(j.id, str(j.path), j.fingerprint) for j in todo], slices).map(
            lambda j: analyse_job(Job(j[0], Path(j[1]), j[2]), settings)
        )
        results.cache()
        rows = results.map(lambda rf: rf[0]).collect() + keep
        tmp = out.with_name(f".{out.name}.spark")
        _spark_frame(spark, rows, COLUMNS).orderBy("job_id").write.mode("overwrite").parquet(
            str(tmp)
        )
        if findings_out is not None:
            found = results.flatMap(lambda rf: rf[1]).collect()
            _spark_frame(spark, found, FINDING_COLUMNS).orderBy("job_id", "signature").write.mode(
                "overwrite"
            ).parquet(str(findings_out))
        results.unpersist()
    finally:
        spark.stop()
    if out.exists():
        _remove_tree(out)
    os.replace(tmp, out)
    errors = sum(1 for r in rows if r.get("error"))
    return BatchResult(
        len(jobs), len(todo), len(jobs) - len(todo), errors, time.perf_counter() - started
    )


def _spark_frame(
    spark: Any, rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]
) -> Any:
    from pyspark.sql import types as st

    kinds = {
        "string": st.StringType(),
        "bool": st.BooleanType(),
        "float64": st.DoubleType(),
        "int64": st.LongType(),
    }
    schema = st.StructType([st.StructField(c, kinds[t], True) for c, t in columns])
    data = [tuple(r.get(c) for c, _ in columns) for r in rows]
    return spark.createDataFrame(data, schema=schema)


def _remove_tree(path: Path) -> None:
    import shutil

    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
