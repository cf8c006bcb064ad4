"""`watch` on live, growing logs: a writer thread plays the training job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from analyzer.ops.watch import Watcher


def step_line(step: int) -> str:
    return f"{datetime.now():%Y-%m-%d %H:%M:%S},{datetime.now().microsecond // 1000:03d} - INFO - step {step} loss 0.5\n"


def write_steps(path: Path, steps: range, pause: float) -> None:
    with path.open("a") as f:
        for s in steps:
            f.write(step_line(s))
            f.flush()
            time.sleep(pause)


def poll_until(watcher: Watcher, kind: str, seconds: float) -> dict:  # type: ignore[type-arg]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for e in watcher.poll():
            if e.kind == kind:
                return e.to_dict()
        time.sleep(0.1)
    raise AssertionError(f"no {kind} event within {seconds}s")


def test_watch_sees_a_hang_then_a_failure_in_a_growing_log(tmp_path: Path) -> None:
    log = tmp_path / "rank_3.log"
    log.write_text("")
    watcher = Watcher([tmp_path], hang_factor=3, hang_min_gap=1.0)
    writer = threading.Thread(target=write_steps, args=(log, range(1, 20), 0.05))
    writer.start()
    while writer.is_alive():
        assert [e.kind for e in watcher.poll()] == []  # progressing: nothing to report
        time.sleep(0.1)
    writer.join()
    suspected = poll_until(watcher, "hang_suspected", 10)
    confirmed = poll_until(watcher, "hang_confirmed", 10)
    assert suspected["rank"] == confirmed["rank"] == 3
    assert confirmed["line"] == 19 and confirmed["stalled_seconds"] >= 1.0
    v = watcher.verdict()
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 3
    with log.open("a") as f:  # the line arrives in two writes: read once, whole
        f.write("[rank3]: torch.OutOfMemoryError: CUDA out of memory. ")
        f.flush()
        watcher.poll()
        f.write(
            "Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.32 GiB of which 1.0 GiB is free.\n"
        )
    failure = poll_until(watcher, "failure", 5)
    assert failure["signature"] == "cuda-out-of-memory" and failure["line"] == 20
    assert watcher.verdict().category == "device_oom"


def test_rotation_and_new_files_are_followed(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(step_line(1))
    watcher = Watcher([tmp_path])
    watcher.poll()
    log.rename(tmp_path / "train.log.1")
    log.write_text("Loss is nan, stopping training\n")  # a new file under the old name
    (tmp_path / "later.log").write_text("[after training is done] datetime: 2026-11-29 10:00:00\n")
    kinds = {e.kind for e in watcher.poll()}
    assert {"failure", "finished"} <= kinds


def test_cli_watch_exits_with_the_failure_code(tmp_path: Path) -> None:
    log = tmp_path / "rank_0.log"
    log.write_text(
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.32 GiB of which 1.0 GiB is free.\n"
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "analyzer",
            "watch",
            str(tmp_path),
            "--interval",
            "0.1",
            "--exit-on",
            "failure",
            "--timeout",
            "20",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert r.returncode == 4, r.stderr
    event = json.loads(r.stdout.splitlines()[0])
    assert event["event"] == "failure" and event["category"] == "device_oom"


def test_watch_does_not_follow_a_link_out_of_the_folder(tmp_path: Path) -> None:
    """The same listing as analyze (sources.iter_units): a link inside a watched folder
    to a file outside it is not read, so a report cannot quote ~/.ssh/id_rsa."""
    outside = tmp_path / "outside.log"
    outside.write_text(
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.32 GiB of which 1.0 GiB is free.\n"
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank_0.log").write_text(step_line(1))
    (logs / "linked.log").symlink_to(outside)
    watcher = Watcher([logs])
    assert [e.kind for e in watcher.poll()] == []
    assert watcher.verdict().category == "none"


OOM_LINE = (
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
    "GPU 0 has a total capacity of 79.32 GiB of which 1.0 GiB is free.\n"
)


def test_a_name_swapped_for_a_link_after_listing_is_not_opened(tmp_path: Path) -> None:
    """Files are checked as opened (O_NOFOLLOW, fstat), not by their name at listing
    time: a link swapped in between is refused, a FIFO never blocks the open."""
    from analyzer.read.sources import NotRegular, open_regular

    outside = tmp_path / "outside.log"
    outside.write_text(OOM_LINE)
    link = tmp_path / "rank_0.log"
    link.symlink_to(outside)
    with pytest.raises(NotRegular):
        open_regular(str(link), named=False)
    f, st = open_regular(str(link), named=True)  # named on the command line: followed
    with f:
        assert f.read() == OOM_LINE.encode() and st.st_size == len(OOM_LINE)
    os.mkfifo(tmp_path / "pipe.log")
    with pytest.raises(NotRegular):
        open_regular(str(tmp_path / "pipe.log"), named=True)


def test_copytruncate_that_regrows_past_the_offset_is_read_from_its_start(tmp_path: Path) -> None:
    """logrotate's copytruncate empties the file in place (same inode); a job that then
    writes more than was read before the next poll must not be read from the old offset."""
    log = tmp_path / "train.log"
    log.write_text("".join(step_line(s) for s in range(3)))
    watcher = Watcher([tmp_path])
    watcher.poll()
    inode = log.stat().st_ino
    with log.open("r+") as f:  # truncate in place, then regrow past the old size
        f.truncate(0)
        f.write(OOM_LINE + "shutting down\n" * 30)  # the OOM lies before the old offset
    assert log.stat().st_ino == inode
    kinds = [e.kind for e in watcher.poll()]
    assert "failure" in kinds and watcher.verdict().category == "device_oom"


def test_deleted_files_are_forgotten(tmp_path: Path) -> None:
    """A watch over days of rotated logs holds only the files that are still there."""
    for i in range(50):
        (tmp_path / f"rank_{i}.log").write_text(step_line(1) + "partial line without end")
    watcher = Watcher([tmp_path])
    watcher.poll()
    assert len(watcher._files) == 50 and len(watcher.job._feeds) == 50
    for i in range(45):
        (tmp_path / f"rank_{i}.log").unlink()
    watcher.poll()
    assert len(watcher._files) == 5 and len(watcher.job._feeds) == 5
    assert watcher.verdict().stats.files == 50  # what they held still counts


_ZONES = ["UTC", "Asia/Shanghai", "America/New_York"]


@pytest.fixture(params=_ZONES)
def local_zone(request: pytest.FixtureRequest) -> Iterator[str]:
    """The process's local time zone for one test (watch and ha-run read local time),
    restored (and re-read: tzset) after it, so no later test runs in it."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = str(request.param)
    time.tzset()
    try:
        yield str(request.param)
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


def _zoned_steps(path: Path, last_ago: float, zone: str) -> None:
    """Step lines one second apart, stamped with a zone (`Z` or `+08:00`), the last one
    `last_ago` seconds before now (an instant: the zone says which)."""
    from datetime import timedelta, timezone

    tz = timezone.utc if zone == "Z" else timezone(timedelta(hours=8))
    end = datetime.now(tz) - timedelta(seconds=last_ago)
    lines = []
    for s in range(1, 21):
        t = end - timedelta(seconds=20 - s)
        stamp = t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        lines.append(f"{stamp} INFO [rank 1] step {s}/100 loss 0.5\n")
    path.write_text("".join(lines))


@pytest.mark.parametrize("zone", ["Z", "+08:00"])
def test_zone_stated_stamps_are_instants_whatever_the_local_zone(
    tmp_path: Path, local_zone: str, zone: str
) -> None:
    """A healthy job 30 s after its last step is no hang, and one stopped two hours ago is,
    under any local TZ: a zone-stated stamp is compared with the clock as an instant (read
    as local wall time it made Shanghai's healthy jobs hang and New York's hangs vanish)."""
    log = tmp_path / "rank_1.log"
    _zoned_steps(log, 30, zone)
    watcher = Watcher([tmp_path], hang_min_gap=300)
    assert [e.kind for e in watcher.poll()] == [], local_zone
    assert watcher.verdict().category == "none"
    _zoned_steps(log, 7200, zone)
    hung = Watcher([tmp_path], hang_min_gap=300)
    kinds = [e.kind for e in hung.poll()]
    assert "hang_confirmed" in kinds, (local_zone, kinds)
    v = hung.verdict()
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 1
    assert v.progress[0].stalled_seconds is not None
    assert 7000 < v.progress[0].stalled_seconds < 7400, v.progress


def test_a_confirmed_hang_names_the_rank_the_others_waited_for(tmp_path: Path) -> None:
    """Four ranks stop at step 50 together; ranks 0, 2 and 3 then report the collective
    timeout and rank 1 says nothing: rank 1 is the one they waited for. `watch` confirms
    the hang the verdict reads (one definition of a hang) and names rank 1, not the first
    waiting rank (it named rank 0, the first stalled file)."""
    from datetime import timedelta

    start = datetime.now() - timedelta(hours=2)
    for rank in (0, 1, 2, 3):
        lines = [
            f"{start + timedelta(seconds=s):%Y-%m-%d %H:%M:%S},000 - INFO - [rank {rank}] "
            f"step {s}/100 loss 0.5\n"
            for s in range(1, 51)
        ]
        if rank != 1:
            lines.append(
                f"[rank{rank}]:[E{start:%m%d} {start + timedelta(seconds=650):%H:%M:%S}.000000 "
                f"4242 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=51, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                "Timeout(ms)=600000) ran for 600009 milliseconds before timing out.\n"
            )
        (tmp_path / f"rank_{rank}.log").write_text("".join(lines))
    watcher = Watcher([tmp_path], hang_min_gap=300)
    confirmed = [e.to_dict() for e in watcher.poll() if e.kind == "hang_confirmed"]
    assert [c["rank"] for c in confirmed] == [1], confirmed
    assert watcher.verdict().root_cause.rank == 1  # type: ignore[union-attr]
