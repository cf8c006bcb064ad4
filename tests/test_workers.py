"""Several worker processes give the verdict one process gives (analyzer.read.workers)."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from analyzer import analyze
from analyzer.read import reading, scan, workers
from analyzer.read.sources import Unit
from corpora.generator.bundles import generate

ROOT = Path(__file__).resolve().parent.parent


def _reading(paths: list[str], n: int) -> dict[str, Any]:
    out: dict[str, Any] = analyze(paths, workers=n).to_dict()
    out["stats"].pop("seconds")
    return out


@pytest.fixture(autouse=True)
def fork_small_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "FORK_MIN_BYTES", 0)


def _job(tmp_path: Path) -> Path:
    """Files of every kind: year-less kernel lines after a 2024 training log (a worker
    reading the kernel log alone would give them this year), gzip, a tar archive, a
    file with a thousand hits, an unreadable binary."""
    job = tmp_path / "job"
    job.mkdir()
    steps = [
        f"[2024-03-0{1 + s // 3600} {s // 60 % 24:02d}:{s % 60:02d}:00] iteration {s:>8}/  500000 |"
        f" consumed samples: {s * 64:>12} | elapsed time per iteration (ms): 1000.0 | lm loss: 2.0 |"
        for s in range(1, 400)
    ]
    (job / "a_rank_0.log").write_text("\n".join(steps) + "\n")
    (job / "b_kern.log").write_text(
        "Mar  1 00:07:10 node3 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, "
        "GPU has fallen off the bus.\n"
    )
    with gzip.open(job / "c_rank_1.log.gz", "wt") as f:
        f.write("\n".join(steps[:300]) + "\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, text in (("d/rank_2.log", "\n".join(steps[:350])), ("d/dmesg.txt", "x\n")):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    (job / "d_bundle.tar.gz").write_bytes(buf.getvalue())
    warn = "2024-03-01 00:05:00,000 - WARNING - NCCL WARN Call to ibv_modify_qp failed with error"
    (job / "e_noisy.log").write_text("\n".join([warn] * 1000) + "\n")
    (job / "f_core.bin").write_bytes(bytes(range(256)) * 64)
    return job


@pytest.mark.parametrize("batch", [1, 2, 64])
def test_workers_give_the_same_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """Whatever the batches of small files (one task each, pairs, the whole job)."""
    monkeypatch.setattr(workers, "_BATCH_FILES", batch)
    job = _job(tmp_path)
    one = _reading([str(job)], 1)
    assert one["category"] == "device_fault"
    assert one["root_cause"]["time"].startswith("2024-03-01")  # the job's year, not today's
    assert _reading([str(job)], 2) == one
    assert _reading([str(job)], 3) == one


def test_small_files_are_read_in_batches_in_input_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker's fresh Analyzer and shipment cost ~2 ms a task: 256 one-MiB rank files
    are 32 tasks, not 256. Batches keep input order, a large file stays its own task."""
    monkeypatch.setattr(workers, "_BATCH_BYTES", 1000)
    monkeypatch.setattr(workers, "_BATCH_FILES", 3)
    sizes = [100, 100, 100, 100, 900, 200, 5000, 10]
    units = []
    for i, n in enumerate(sizes):
        f = tmp_path / f"r{i}.log"
        f.write_bytes(b"x" * (n - 1) + b"\n")
        units.append(Unit(f.name, str(f)))
    got = [[u.name for u in t.units] for t in workers.plan(units)]
    assert got == [
        ["r0.log", "r1.log", "r2.log"],  # three files at most
        ["r3.log", "r4.log"],  # 1000 bytes at most
        ["r5.log"],
        ["r6.log"],  # too large to batch
        ["r7.log"],
    ]


def test_a_file_with_too_many_hits_is_read_by_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = _job(tmp_path)
    one = _reading([str(job)], 1)
    monkeypatch.setattr(workers, "_MAX_SHIPPED", 10)
    assert _reading([str(job)], 2) == one


@pytest.mark.parametrize("seed", [1000, 1003, 1005, 1011])
def test_generated_jobs(tmp_path: Path, seed: int) -> None:
    generate(seed, tmp_path)
    logs = [str(p) for p in sorted(tmp_path.iterdir())]
    assert json.dumps(_reading(logs, 2)) == json.dumps(_reading(logs, 1))


def test_clean_runs() -> None:
    for run in sorted((ROOT / "corpora" / "clean").iterdir()):
        if run.is_dir():
            assert _reading([str(run)], 2) == _reading([str(run)], 1), run.name


def test_parts_of_one_large_file_give_the_same_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 2 MiB parts (a multiple of the 1 MiB block) so that a 12 MB file has several
    part = 2 << 20
    monkeypatch.setattr(scan, "SEGMENT", part)
    monkeypatch.setattr(workers, "SEGMENT", part)
    width = 160  # every line this long, so that a part begins at a known line
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    lines = ["I1129 09:59:59.000000  1 launcher.cc:12] year-less glog line before any date"]
    for i in range(60_000):
        rank, step = i % 4, i // 4 + 1
        stamp = f"2024-03-01 10:{step // 60 % 60:02d}:{step % 60:02d}"
        lines.append(
            f"[rank{rank}]: [{stamp}] iteration {step:>8}/  500000 | consumed samples: "
            f"{step * 64:>10} | elapsed time per iteration (ms): 1000.0 |"
        )
        if i % 100 == 0:  # retried and trained past, 800 times: beyond a part's detail budget
            lines.append(f"[rank0]: {oom}")
        if i % 9_000 == 0:
            lines.append(f"E0301 10:00:{i % 60:02d}.000000  7 worker.cc:3] glog error {i}")
    # the failure: rank 2's OOM, the first line of a part, after a traceback in the part
    # before, and after hundreds of rank 0's retried OOMs (beyond a part's detail budget)
    at = 4 * part // width - 3
    lines[at : at + 4] = [
        "[rank2]: Traceback (most recent call last):",
        '[rank2]:   File "train.py", line 7, in step',
        "[rank2]:     loss.backward()",
        f"[rank2]: {oom}",
    ]
    del lines[at + 4 :]
    lines.append("x" * (1 << 20) + " a line longer than a block")
    log = tmp_path / "console.log"
    log.write_text("".join(x.ljust(width - 1)[: max(width - 1, len(x))] + "\n" for x in lines))
    tasks = workers.plan([Unit(log.name, str(log))])
    assert any(t.start == (at + 3) * width for t in tasks) and tasks[-1].last
    one = _reading([str(log)], 1)
    assert (one["root_cause"]["rank"], one["root_cause"]["line"]) == (2, at + 4)
    assert one["root_cause"]["context"][0].rstrip() == "[rank2]: Traceback (most recent call last):"
    assert _reading([str(log)], 2) == one
    monkeypatch.setattr(workers, "_MAX_SHIPPED", 50)  # parts read again by the parent
    assert _reading([str(log)], 2) == one


def test_workers_keep_a_run_across_new_year_in_order(tmp_path: Path) -> None:
    """A run from 31 December into January, its only full date in a gzip file (which the
    parent's anchor does not open: a worker finds it and ships its year and date in its
    Account), reads the same in one process and in two."""
    from datetime import datetime, timedelta

    job = tmp_path / "job"
    job.mkdir()
    # gzip: the parent's anchor reads plain heads only, so a worker finds the full date
    with gzip.open(job / "a_start.log.gz", "wt") as f:
        f.write("2025-12-31 23:58:00,000 - INFO - job start\n")
    t = datetime(2025, 12, 31, 23, 58, 10)
    lines = []
    for s in range(1, 40):
        lines.append(f"I{t:%m%d %H:%M:%S}.000000 4242 train.py:10] step {s}/100 loss 0.5\n")
        t += timedelta(seconds=10)
    (job / "b_train.log").write_text("".join(lines))
    one, two = _reading([str(job)], 1), _reading([str(job)], 2)
    assert one == two and one["category"] == "none", one["summary"]
