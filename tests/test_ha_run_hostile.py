"""ha-run when things go wrong around the job (issue 37): a full disk, a closed stdout, a
stop asked at any moment, an analysis that crashes, arguments that make no sense. The
job here is a small Python script, not torchrun: these are the supervisor's promises."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analyzer.ops import torchrun
from analyzer.ops.watch import Watcher

HA_RUN = [sys.executable, "-m", "analyzer.ops.torchrun"]
# 10 MB of output, then a clean exit
LOUD = "import sys\nfor i in range(100_000):\n    print(f'step {i} ' + 'x' * 90)\nsys.exit(0)\n"


def _limit_files(size: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_a_full_disk_drops_output_but_never_blocks_the_job(tmp_path: Path) -> None:
    """launcher.log cannot grow past 1 MB (EFBIG, as ENOSPC): the copying thread died
    there, nobody drained the job's pipe, and the job blocked in write() forever. Now it
    runs to its end, and the attempt's record counts the bytes the log lost."""
    logs = tmp_path / "logs"
    r = subprocess.run(
        [*HA_RUN, "--log-dir", str(logs), "--poll", "0.2", "--", sys.executable, "-c", LOUD],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: _limit_files(1 << 20),
    )
    assert r.returncode == 0, r.stderr[-800:]
    record = json.loads((logs / "attempt_0" / "supervisor.json").read_text())
    assert record["exit_code"] == 0
    assert record["output_dropped"]["bytes"] > 5_000_000, record


def test_a_full_stdout_does_not_stop_the_copy_to_the_log(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with open("/dev/full", "wb") as full:
        r = subprocess.run(
            [*HA_RUN, "--log-dir", str(logs), "--poll", "0.2", "--", sys.executable, "-c", LOUD],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert r.returncode == 0, r.stderr[-800:]
    log = (logs / "attempt_0" / "launcher.log").read_bytes()
    assert log.count(b"\n") >= 100_000


@pytest.mark.parametrize(
    "args",
    [
        ["--poll", "-1"],
        ["--poll", "0"],
        ["--poll", "inf"],
        ["--poll", "nan"],
        ["--grace", "-5"],
        ["--deadline", "0"],
        ["--max-attempts", "0"],
        ["--hang-factor", "-1"],
    ],
)
def test_arguments_that_make_no_sense_are_refused_before_the_job_starts(
    args: list[str], tmp_path: Path
) -> None:
    """`--poll -1` raised after the job started and left it running, orphaned."""
    marker = tmp_path / "started"
    job = f"open({str(marker)!r}, 'w').close()"
    r = subprocess.run(
        [*HA_RUN, "--log-dir", str(tmp_path / "logs"), *args, "--", sys.executable, "-c", job],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert not marker.exists()


def _attempt(tmp_path: Path, script: str, **kw: object) -> tuple[int, dict[str, object]]:
    adir = tmp_path / "attempt_0"
    signals = kw.pop("signals", None)
    rc, _ = torchrun.run_attempt(
        [sys.executable, "-c", script],
        adir,
        {"PATH": "/usr/bin:/bin"},
        poll=0.1,
        hang_factor=3.0,
        hang_min_gap=60.0,
        grace=2.0,
        signals=signals,  # type: ignore[arg-type]
    )
    return rc, json.loads((adir / "supervisor.json").read_text())


def test_a_crash_in_analysis_is_a_note_and_the_job_is_still_supervised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Watcher) -> list[object]:
        raise RuntimeError("a bug in the analysis")

    monkeypatch.setattr(Watcher, "poll", broken)
    rc, record = _attempt(tmp_path, "import time\ntime.sleep(1)\nprint('done')\n")
    assert rc == 0 and record["exit_code"] == 0
    assert "RuntimeError: a bug in the analysis" in str(record["analysis_error"])
    assert "hang detection stopped" in (tmp_path / "attempt_0" / "launcher.log").read_text()


def test_a_signal_reaches_the_job_the_moment_it_arrives(tmp_path: Path) -> None:
    """Passed on in the handler, not at the next poll: whatever ha-run is doing then (a
    stack dump of a hung job takes up to 30 s per rank)."""
    signals = torchrun._Signals()
    try:
        job = subprocess.Popen(["sleep", "30"], start_new_session=True)
        signals.job = job
        started = time.monotonic()
        signals._on(signal.SIGTERM, None)
        assert job.wait(10) == -signal.SIGTERM
        assert time.monotonic() - started < 10
        assert signals.received is signal.SIGTERM
    finally:
        signals.restore()


def test_a_stop_asked_while_analysing_starts_no_new_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The job failed in a way that earns a restart, and the scheduler's SIGTERM came
    while ha-run analysed it: no attempt_1, exit 128 + 15."""
    signals = torchrun._Signals()
    real = torchrun.analyze

    def analysing(*args: object, **kw: object) -> object:
        signals._on(signal.SIGTERM, None)  # arrives now
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(torchrun, "analyze", analysing)
    failing = (
        "import sys\nprint('[rank1]: torch.distributed.DistBackendError: NCCL error in: x, "
        "remote process exited or there was a network error, NCCL version 2.21.5')\nsys.exit(1)\n"
    )
    args = torchrun.argparse.Namespace(
        log_dir=tmp_path,
        max_attempts=3,
        poll=0.1,
        hang_factor=3.0,
        hang_min_gap=60.0,
        grace=2.0,
        deadline=10.0,
    )
    try:
        code = torchrun._attempts(args, [sys.executable, "-c", failing], None, [], signals)
    finally:
        signals.restore()
    assert code == 128 + signal.SIGTERM
    assert sorted(p.name for p in tmp_path.glob("attempt_*")) == ["attempt_0"]
