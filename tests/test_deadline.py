"""analyze(deadline=...): a verdict in bounded time whatever the logs hold."""

from __future__ import annotations

import os
import tarfile
import time
from pathlib import Path

import pytest

from analyzer import AnalyzerError, analyze

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"


def _hostile(root: Path) -> None:
    (root / "junk.bin").write_bytes(os.urandom(1 << 20))
    with open(root / "sparse.log", "wb") as f:  # 1 GB of zeros, no disk
        f.truncate(1 << 30)
    os.mkfifo(root / "pipe.log")
    locked = root / "locked.log"
    locked.write_text(OOM)
    locked.chmod(0)
    good = root / "ok.tar.gz"
    with tarfile.open(good, "w:gz") as tf:
        src = root / "rank_0.log"
        src.write_text("step 1 loss 2.0\n" * 200_000 + OOM)
        tf.add(src, arcname="rank_0.log")
    src.unlink()
    (root / "cut.tar.gz").write_bytes(good.read_bytes()[: good.stat().st_size // 2])


def test_hostile_inputs_under_a_2s_deadline_give_a_verdict_in_about_3s(tmp_path: Path) -> None:
    _hostile(tmp_path)
    for _ in range(3):
        t = time.monotonic()
        v = analyze(tmp_path, deadline=2.0)
        took = time.monotonic() - t
        assert took < 4.0, took  # "about 3 s": a hang guard with margin for a loaded machine
        assert v.category in ("device_oom", "none", "unknown")
        assert v.stats.notes


def test_a_large_log_is_read_tail_first(tmp_path: Path) -> None:
    """The failure at the end of a large file is found even when there is no time to read
    the file: the tail comes first, offsets stay absolute, and the verdict says it is
    incomplete."""
    big = tmp_path / "rank_3.log"
    with open(big, "w") as f:
        for i in range(1_500_000):
            f.write(f"[2026-11-29 10:00:00,000] iteration {i} | lm loss: 2.0 | grad norm: 0.5 |\n")
        f.write(OOM)
    v = analyze(tmp_path, deadline=0.3)
    assert v.category == "device_oom"
    assert v.root_cause is not None
    with open(big, "rb") as f:
        f.seek(v.root_cause.offset)
        assert f.readline().decode() == OOM
    if not v.stats.complete:
        assert any("only its last" in n for n in v.stats.notes)
    full = analyze(tmp_path, deadline=120.0)
    assert full.stats.complete and full.root_cause is not None
    assert full.root_cause.line == 1_500_001 and full.root_cause.offset == v.root_cause.offset


def test_no_deadline_reads_everything(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(OOM)
    v = analyze(tmp_path)
    assert v.stats.complete and v.to_dict()["stats"]["complete"] is True


@pytest.mark.parametrize("bad", [0, -1.0, float("nan")])
def test_a_bad_deadline_is_a_usage_error(tmp_path: Path, bad: float) -> None:
    with pytest.raises(AnalyzerError):
        analyze(tmp_path, deadline=bad)


def test_concurrent_calls_from_threads_agree_with_sequential_ones(tmp_path: Path) -> None:
    """A restart controller may analyse several jobs at once from one process."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = []
    for i, line in enumerate(
        [
            OOM,
            "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n",
            "step 1 loss 2.0\n",
        ]
        * 3
    ):
        d = tmp_path / f"job{i}"
        d.mkdir()
        (d / "rank_0.log").write_text("step 1 loss 2.0\n" * 1000 + line)
        jobs.append(d)
    sequential = [analyze(d).to_dict() for d in jobs]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda d: analyze(d, deadline=60).to_dict(), jobs))
    for a, b in zip(sequential, threaded, strict=True):
        a["stats"].pop("seconds"), b["stats"].pop("seconds")
        assert a == b


OOM_TEXT = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.32 GiB of which 1.0 GiB is free."
)


def _tail_first(path: Path) -> tuple[str, int]:
    from analyzer.analysis import TAIL_FIRST, Analyzer, Settings

    job = Analyzer(Settings(model=False))
    job.read_paths([str(path)], time.monotonic() + 600, TAIL_FIRST)
    v = job.verdict()
    return v.category, v.stats.lines


def test_a_last_line_longer_than_the_tail_is_read_from_its_last_redraws(tmp_path: Path) -> None:
    """Issue 18, point 6: a tqdm bar redrawn for hours is one line of megabytes whose last
    segment is the OOM. Read tail-first (a deadline), the tail lies inside that line: it
    is read from its first redraw on, not skipped whole as the rest of an earlier line."""
    bar = "Epoch 1:  45%|####5     | 4512/10000 [1:02:03<1:15:30,  1.21it/s, loss=2.31]"
    log = tmp_path / "train.log"
    log.write_text(
        "2026-11-29 10:00:00,000 INFO start\n" + "\r".join([bar] * 40_000) + "\r" + OOM_TEXT + "\n"
    )
    assert log.stat().st_size > 2 << 20  # longer than the tail, and than a line's cap
    assert _tail_first(log)[0] == "device_oom"


@pytest.mark.parametrize("at_line_start", [True, False])
def test_the_tail_keeps_a_line_that_starts_where_it_starts(
    tmp_path: Path, at_line_start: bool
) -> None:
    """The first line of the tail is whole when the tail begins at its first byte, and is
    skipped (it began earlier) when the tail begins inside it."""
    from analyzer.analysis import TAIL_FIRST

    body = b"2026-11-29 10:00:00,000 INFO step 1 loss 2.0\n" * 20_000
    line = OOM_TEXT.encode() + b"\n"
    inside = 0 if at_line_start else 5
    rest = b"a" * (TAIL_FIRST + inside - len(line) - 1) + b"\n"
    log = tmp_path / "train.log"
    log.write_bytes(body + line + rest)
    assert log.stat().st_size - TAIL_FIRST == len(body) + inside  # where the tail begins
    # a tail-only reading that finds nothing says so: unknown, never none
    assert _tail_first(log)[0] == ("device_oom" if at_line_start else "unknown")


@pytest.mark.slow
def test_a_deadline_that_leaves_nothing_read_is_unknown_not_healthy(tmp_path: Path) -> None:
    """A deadline that ends before a single line was read (a loaded machine, a huge
    bundle) says nothing of the job: `unknown`, cut short, never `none` (it was `none`,
    "No log lines could be read", when the suite ran beside other jobs)."""
    for i in range(300):
        (tmp_path / f"rank_{i}.log").write_text(
            "2026-12-07 10:00:01,000 - train - INFO - step 1/9 loss 1.1\n"
        )
    v = analyze(tmp_path, deadline=1e-6)
    assert not v.stats.complete and v.stats.lines == 0, v.stats
    assert (v.category, v.reasons) == ("unknown", ("cut-short",)), v.summary


def test_a_reading_cut_short_never_answers_healthy(tmp_path: Path) -> None:
    """20,001 small files and a 1 s deadline: what was not read may hold the cause, so the
    answer is the cause found or `unknown` saying how much was read, never `none`."""
    step = "2026-12-07 10:00:0{s},000 - train - INFO - step {s}/9 loss 1.{s}\n"
    body = "".join(step.format(s=s) for s in range(1, 9))
    for i in range(20_000):
        (tmp_path / f"rank_{i}.log").write_text(body)
    oom = "[rank20000]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    (tmp_path / "rank_20000.log").write_text(body + oom)
    v = analyze(tmp_path, deadline=1.0)
    assert v.category != "none", v.summary
    if v.category != "device_oom":
        assert not v.stats.complete and "deadline" in v.summary, v.summary
