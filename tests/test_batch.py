"""Batch analysis: many jobs to one table, resumable, safe to kill."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from analyzer.batch import run as batch
from analyzer.batch.run import COLUMNS, SCHEMA, discover, run_batch
from analyzer.cli import main

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"
XID = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"


def _jobs(root: Path, n: int = 6) -> None:
    for i in range(n):
        d = root / f"job-{i:03d}"
        d.mkdir(parents=True)
        (d / "rank_0.log").write_text("step 1 loss 2.0\n" + (OOM if i % 2 else XID))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        data = ("step 1 loss 2.0\n" + OOM).encode()
        info = tarfile.TarInfo("logs/rank_1.log")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    (root / "job-archived.tar.gz").write_bytes(buf.getvalue())


def test_one_row_per_job_with_the_documented_schema(tmp_path: Path) -> None:
    _jobs(tmp_path / "root")
    out = tmp_path / "v.parquet"
    res = run_batch([tmp_path / "root"], out, findings_out=tmp_path / "f.parquet", workers=2)
    assert (res.jobs, res.analysed, res.errors) == (7, 7, 0)
    t = pq.read_table(out)
    assert t.column_names == [c for c, _ in COLUMNS]
    assert t.schema.metadata[b"schema"] == SCHEMA.encode()
    rows = {r["job_id"]: r for r in t.to_pylist()}
    assert (
        rows["job-001"]["category"] == "device_oom"
        and rows["job-000"]["category"] == "device_fault"
    )
    assert rows["job-archived.tar.gz"]["root_file"].endswith("rank_1.log")
    assert rows["job-000"]["root_signature"] and rows["job-000"]["fingerprint"]
    findings = pq.read_table(tmp_path / "f.parquet").to_pylist()
    assert {f["job_id"] for f in findings} == set(rows)


def test_a_rerun_skips_unchanged_jobs_and_redoes_changed_ones(tmp_path: Path) -> None:
    _jobs(tmp_path / "root")
    out = tmp_path / "v.jsonl"
    run_batch([tmp_path / "root"], out, workers=1)
    again = run_batch([tmp_path / "root"], out, workers=1)
    assert (again.analysed, again.skipped) == (0, 7)
    (tmp_path / "root" / "job-002" / "rank_0.log").write_text("step 1 loss 2.0\n" + OOM)
    third = run_batch([tmp_path / "root"], out, workers=1)
    assert third.analysed == 1
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 7 and len({r["job_id"] for r in rows}) == 7
    assert {r["job_id"]: r["category"] for r in rows}["job-002"] == "device_oom"


def test_a_broken_job_is_a_row_with_its_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _jobs(tmp_path / "root", 2)
    real = batch.read_job

    def flaky(path, *args, **kw):  # type: ignore[no-untyped-def]
        if Path(path).name == "job-001":
            raise RuntimeError("simulated bug")
        return real(path, *args, **kw)

    monkeypatch.setattr(batch, "read_job", flaky)
    out = tmp_path / "v.csv"
    res = run_batch([tmp_path / "root"], out, workers=1)
    assert res.errors == 1 and res.jobs == 3
    text = out.read_text()
    assert "RuntimeError: simulated bug" in text and "device_fault" in text


def test_a_job_with_nothing_readable_is_an_error_row_never_none(tmp_path: Path) -> None:
    """A missing job folder, an empty one and one holding only a binary file are errors
    (issue 17, point 1): a platform reading the table must not see a clean `none`."""
    root = tmp_path / "root"
    _jobs(root, 1)
    (root / "empty-job").mkdir()
    (root / "binary-job").mkdir()
    (root / "binary-job" / "core.bin").write_bytes(bytes(range(256)) * 64)
    out = tmp_path / "v.jsonl"
    res = run_batch([root, tmp_path / "missing-job"], out, workers=1)
    rows = {r["job_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    for job in ("empty-job", "binary-job", "missing-job"):
        assert rows[job]["category"] is None, job
        assert rows[job]["error"].startswith("no log line could be read"), job
    assert rows["job-000"]["category"] == "device_fault" and rows["job-000"]["error"] is None
    assert res.errors == 3


def test_a_killed_run_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _jobs(root, 100)
    out = tmp_path / "v.parquet"
    cmd = [
        sys.executable,
        "-m",
        "analyzer",
        "batch",
        str(root),
        "--out",
        str(out),
        "--workers",
        "1",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = out.with_name(out.name + ".journal")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) >= 5:
            break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    journaled = len(journal.read_text().splitlines())
    assert journaled >= 5  # killed after some rows were written (usually long before the end)
    r = CliRunner().invoke(main, ["batch", str(root), "--out", str(out), "--workers", "2"])
    assert r.exit_code == 0, r.output
    rows = pq.read_table(out).to_pylist()
    assert len(rows) == 101 and len({r["job_id"] for r in rows}) == 101
    # no temp files left (the lock file stays: removing it would race a waiting run)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".") and p.suffix != ".lock"]
    fresh = tmp_path / "fresh.parquet"
    run_batch([root], fresh, workers=2)
    key = lambda r: (r["job_id"], r["category"], r["root_file"], r["root_line"], r["fingerprint"])  # noqa: E731
    assert sorted(map(key, rows)) == sorted(map(key, pq.read_table(fresh).to_pylist()))


def test_discover_layouts(tmp_path: Path) -> None:
    (tmp_path / "c1" / "2026-11-01" / "job-a").mkdir(parents=True)
    (tmp_path / "c1" / "2026-11-01" / "job-b.zip").write_bytes(b"PK\x03\x04")
    (tmp_path / "c1" / "2026-11-01" / "notes.txt").write_text("x")
    got = [j.id for j in discover([tmp_path], depth=3)]
    assert got == ["c1/2026-11-01/job-a", "c1/2026-11-01/job-b.zip"]


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".csv"])
def test_no_secret_reaches_a_batch_table(tmp_path: Path, suffix: str) -> None:
    import shutil

    from conftest import FIXTURES
    from test_redact import SECRETS

    shutil.copytree(FIXTURES / "secrets", tmp_path / "root" / "job-with-secrets")
    out = tmp_path / f"v{suffix}"
    run_batch([tmp_path / "root"], out, findings_out=tmp_path / f"f{suffix}", workers=1)
    for table in (out, tmp_path / f"f{suffix}"):
        raw = table.read_bytes()
        text = str(pq.read_table(table).to_pylist()) if suffix == ".parquet" else raw.decode()
        assert "[REDACTED]" in text  # the secret-bearing lines are in the table, masked
        for secret in SECRETS:
            assert secret not in text and secret.encode() not in raw, secret


@pytest.mark.slow
def test_local_and_spark_engines_agree_row_for_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyspark_sql = pytest.importorskip("pyspark.sql")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    root = tmp_path / "root"
    _jobs(root, 8)
    local, spark = tmp_path / "local.parquet", tmp_path / "spark.parquet"
    run_batch([root], local, findings_out=tmp_path / "lf.parquet", workers=2)
    r = CliRunner().invoke(
        main,
        ["batch", str(root), "--out", str(spark), "--engine", "spark", "--master", "local[2]",
         "--findings", str(tmp_path / "sf.parquet")],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert spark.is_dir()  # Spark's own part files

    def stable(path: Path) -> list[tuple]:  # type: ignore[type-arg]
        skip = {"analysis_seconds", "analyzed_at"}
        rows = pq.read_table(path).to_pylist()
        return sorted(tuple(v for k, v in sorted(r.items()) if k not in skip) for r in rows)

    assert stable(local) == stable(spark)
    assert stable(tmp_path / "lf.parquet") == stable(tmp_path / "sf.parquet")
    # nothing changed: no cluster is started (a start would fail here), nothing rewritten
    written = {p: p.stat().st_mtime_ns for p in spark.rglob("*")}
    monkeypatch.setattr(pyspark_sql.SparkSession, "builder", None)
    again = CliRunner().invoke(
        main, ["batch", str(root), "--out", str(spark), "--engine", "spark", "--master", "local[2]"]
    )
    assert "0 analysed, 9 unchanged" in again.output
    assert {p: p.stat().st_mtime_ns for p in spark.rglob("*")} == written
    assert stable(local) == stable(spark)


def test_analyze_many_and_read_table_give_the_batch_schema_in_every_format(
    tmp_path: Path,
) -> None:
    """Issue 17, point 10: for a notebook, `analyze_many` returns the batch table as a
    DataFrame (columns in order, nullable types), and `read_table` reads a Parquet, CSV or
    JSON-lines table back as the same frame (a CSV's text typed again)."""
    import pandas as pd

    from analyzer.batch.run import analyze_many, read_table

    _jobs(tmp_path / "root")
    frame = analyze_many([tmp_path / "root"], workers=1)
    assert list(frame.columns) == [c for c, _ in COLUMNS] and len(frame) == 7
    assert str(frame["root_rank"].dtype) == "Int64" and str(frame["retryable"].dtype) == "boolean"
    assert frame.set_index("job_id").loc["job-001", "category"] == "device_oom"
    stable = [c for c, _ in COLUMNS if c not in ("analysis_seconds", "analyzed_at")]
    for suffix in (".parquet", ".csv", ".jsonl"):
        out = tmp_path / f"v{suffix}"
        run_batch([tmp_path / "root"], out, workers=1)
        back = read_table(out)
        assert list(back.columns) == list(frame.columns), suffix
        assert [str(t) for t in back.dtypes] == [str(t) for t in frame.dtypes], suffix
        pd.testing.assert_frame_equal(back[stable], frame[stable], check_exact=False)


def test_one_run_per_table_and_no_write_through_a_planted_link(tmp_path: Path) -> None:
    """A second run on the same --out stops at once; the journal is never written
    through a link (one planted there would overwrite another file)."""
    root = tmp_path / "root"
    _jobs(root, 3)
    out = tmp_path / "v.csv"
    with batch._locked(out):
        r = CliRunner().invoke(main, ["batch", str(root), "--out", str(out), "--workers", "1"])
        assert r.exit_code == 2 and "another batch run is writing" in r.output
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out.with_name(out.name + ".journal").symlink_to(victim)
    r = CliRunner().invoke(main, ["batch", str(root), "--out", str(out), "--workers", "1"])
    assert r.exit_code == 7 and "Traceback" not in r.output
    assert victim.read_text() == "precious\n"


def test_a_torn_journal_line_keeps_the_next_record(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _jobs(root, 4)
    out = tmp_path / "v.jsonl"
    run_batch([root], out, workers=1)
    journal = out.with_name(out.name + ".journal")
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:2]) + "\n" + lines[2][: len(lines[2]) // 2])  # cut
    res = run_batch([root], out, workers=1)
    assert res.analysed == res.jobs - 2  # the two whole records stand; the rest redone
    assert len(batch._Journal(journal).read()) == res.jobs  # none swallowed by the cut line


def test_csv_cells_are_not_formulas_and_odd_names_are_labels(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for name in ("=cmd|' /C calc'!A0", "+SUM(1)", "@x", "ok"):
        (root / name).mkdir(parents=True)
        (root / name / "rank_0.log").write_text("step 1 loss 2.0\n")
    bad = os.fsencode(root) + b"/bad\xff\nname"
    os.mkdir(bad)
    with open(bad + b"/rank_0.log", "wb") as f:
        f.write(b"step 1 loss 2.0\n")
    out = tmp_path / "v.csv"
    r = CliRunner().invoke(main, ["batch", str(root), "--out", str(out), "--workers", "1"])
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    cells = [line.split(",", 1)[0] for line in text.splitlines()[1:]]
    assert not any(c[:1] in "=+@-" for c in cells), cells
    assert "bad\\xff\\x0aname" in text  # escaped, on one line
    parquet = tmp_path / "v.parquet"
    assert run_batch([root], parquet, workers=1).jobs == 5  # a writer that refuses surrogates


def test_a_job_nested_1200_deep_or_with_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    """Fingerprints list files as analyze does: iteratively, names as bytes."""
    root = tmp_path / "root"
    job = root / "deep"
    job.mkdir(parents=True)
    fd = os.open(job, os.O_RDONLY)
    try:
        for _ in range(1200):  # deeper than the interpreter's recursion limit
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        with open(os.open("rank_0.log", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("step 1 loss 2.0\n" + OOM)
    finally:
        os.close(fd)
    odd = root / "odd"
    odd.mkdir()
    with open(os.fsencode(odd) + b"/rank_\xff.log", "wb") as f:
        f.write(b"step 1 loss 2.0\n")
    out = tmp_path / "v.jsonl"
    res = run_batch([root], out, workers=1)
    assert res.jobs == 2 and res.errors == 0
    rows = {json.loads(line)["job_id"]: json.loads(line) for line in out.read_text().splitlines()}
    assert rows["deep"]["category"] == "device_oom"
    subprocess.run(["rm", "-rf", str(job)], check=True)  # pytest's cleanup recurses per level
