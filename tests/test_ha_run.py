"""ha-run end to end: real torchrun jobs (gloo, CPU) with injected faults.

Each test starts `ha-run -- torchrun --nproc-per-node 2 corpora/torchrun/train.py` with a
fault from the script's environment switches and checks what the supervisor did:
restarted with resume, stopped, and with which exit code. About 10 s per attempt here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from analyzer import analyze
from analyzer.ops.policy import EXIT_NONE, EXIT_PERMANENT
from analyzer.ops.torchrun import _with_logs, flight_env

# real torchrun jobs: slow, scheduled first (conftest), and one at a time on one worker
# (the "real-jobs" group): two at once on two cores starve each other's timeouts
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("real-jobs")]

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT / "corpora" / "torchrun" / "train.py"
TORCHRUN = [sys.executable, "-m", "torch.distributed.run"]


def _ha_run(tmp: Path, fault: dict[str, str], *extra: str) -> tuple[int, list[dict], str]:  # type: ignore[type-arg]
    env = dict(
        os.environ,
        STEPS="250",
        CKPT_DIR=str(tmp / "ckpt"),
        PG_TIMEOUT="300",
        OMP_NUM_THREADS="1",
        **fault,
    )
    cmd = [
        sys.executable,
        "-m",
        "analyzer.ops.torchrun",
        "--log-dir",
        str(tmp / "logs"),
        "--poll",
        "0.5",
    ]
    cmd += [*extra, "--", *TORCHRUN, "--nproc-per-node", "2", str(TRAIN)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=tmp)
    decisions = [
        json.loads(p.read_text()) for p in sorted((tmp / "logs").glob("attempt_*/decision.json"))
    ]
    return done.returncode, decisions, done.stderr


def _resumed_and_finished(tmp: Path) -> bool:
    """A later attempt resumed from the checkpoint written before the fault and finished.

    gloo's teardown at exit aborts a rank now and then after training finished; the
    policy then restarts once more, which is why any later attempt may be the one.
    """
    for attempt in sorted((tmp / "logs").glob("attempt_*"))[1:]:
        text = "".join(p.read_text(errors="replace") for p in attempt.rglob("*.log"))
        if "resumed from checkpoint checkpoint-" in text and "training finished" in text:
            return True
    return False


def test_a_user_code_error_stops_without_a_restart(tmp_path: Path) -> None:
    code, decisions, err = _ha_run(tmp_path, {"FAULT": "raise"})
    assert code == EXIT_PERMANENT < 128, err
    assert [d["category"] for d in decisions] == ["user_code_error"]
    assert decisions[0]["action"] == "stop"
    assert not (tmp_path / "logs" / "attempt_1").exists()
    verdict = json.loads((tmp_path / "logs" / "attempt_0" / "verdict.json").read_text())
    assert "KeyError" in verdict["root_cause"]["text"]


def test_a_killed_worker_is_restarted_and_resumes_to_completion(tmp_path: Path) -> None:
    """A bare SIGKILL (no OOM-killer line) reads as host_oom; the platform's policy gives
    that signature one restart, and the sticky check would stop a second one."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "rules:\n  - {signature: pytorch-elastic-sigkill, recovery: auto_restart, retries: 2}\n"
    )
    code, decisions, err = _ha_run(
        tmp_path, {"FAULT": "kill", "FAULT_ATTEMPTS": "0"}, "--policy", str(policy)
    )
    assert code == EXIT_NONE, err
    assert (decisions[0]["category"], decisions[0]["recovery"]) == ("host_oom", "auto_restart")
    assert _resumed_and_finished(tmp_path)


def test_a_hang_is_detected_while_running_and_restarted(tmp_path: Path) -> None:
    code, decisions, err = _ha_run(
        tmp_path,
        {"FAULT": "hang", "FAULT_ATTEMPTS": "0", "FAULT_STEP": "150"},
        "--hang-min-gap",
        "5",
    )
    assert code == EXIT_NONE, err
    assert (decisions[0]["category"], decisions[0]["recovery"]) == ("hang", "hang_restart")
    assert "attempt 0 hung" in err  # found by the watcher, long before the 300 s gloo timeout
    assert _resumed_and_finished(tmp_path)


def test_a_sticky_failure_stops_after_one_restart(tmp_path: Path) -> None:
    """A NaN at step 120 of every attempt: resuming from step 100 reaches it again with
    no progress, so the second failure escalates to fix-and-resubmit."""
    code, decisions, err = _ha_run(tmp_path, {"FAULT": "nan"})
    assert code == EXIT_PERMANENT, err
    assert [d["action"] for d in decisions] == ["restart", "stop"]
    assert "sticky" in decisions[1]["reason"]


def test_torchrun_commands_get_per_rank_logs(tmp_path: Path) -> None:
    got = _with_logs(["torchrun", "--nproc-per-node", "2", "t.py"], tmp_path)
    assert got[:5] == ["torchrun", "--log-dir", str(tmp_path / "ranks"), "--tee", "3"]
    assert _with_logs(["torchrun", "--log-dir", "x", "t.py"], tmp_path)[1:3] == ["--log-dir", "x"]
    assert _with_logs(["python", "t.py"], tmp_path) == ["python", "t.py"]
    assert _with_logs([*TORCHRUN, "t.py"], tmp_path)[3:5] == ["--log-dir", str(tmp_path / "ranks")]


def _job_env(tmp: Path, **extra: str) -> dict[str, str]:
    base = {"STEPS": "250", "CKPT_DIR": str(tmp / "ckpt"), "PG_TIMEOUT": "300"}
    return {**os.environ, **base, "OMP_NUM_THREADS": "1", **extra}


def _processes_with(marker: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if marker.encode() in (proc / "environ").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def test_sigterm_to_ha_run_reaches_the_job_and_leaves_no_process_behind(tmp_path: Path) -> None:
    """Issue 17, point 5: a scheduler's SIGTERM to ha-run is passed on to torchrun's
    process group; whatever is left after the grace period is killed; ha-run records
    it and exits 128 + 15."""
    marker = f"HA_RUN_TEST_MARK={uuid.uuid4().hex}"
    key, value = marker.split("=")
    env = _job_env(tmp_path, STEPS="100000", **{key: value})
    cmd = [sys.executable, "-m", "analyzer.ops.torchrun", "--log-dir", str(tmp_path / "logs")]
    cmd += ["--poll", "0.2", "--grace", "5", "--", *TORCHRUN, "--nproc-per-node", "2", str(TRAIN)]
    proc = subprocess.Popen(
        cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    launcher = tmp_path / "logs" / "attempt_0" / "launcher.log"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if launcher.is_file() and "step 20/" in launcher.read_text(errors="replace"):
            break
        time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("the job never trained")
    assert len(_processes_with(marker)) >= 3  # ha-run, torchrun, 2 workers
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "got SIGTERM; passed it to the job" in err
    time.sleep(1.0)
    assert _processes_with(marker) == []
    record = json.loads((tmp_path / "logs" / "attempt_0" / "supervisor.json").read_text())
    assert record["signal"] == "SIGTERM"
    assert "ha-run: got SIGTERM; passing it to the job" in launcher.read_text()
    # the attempt stopped from outside still has its verdict on record: preempted
    verdict = json.loads((tmp_path / "logs" / "attempt_0" / "verdict.json").read_text())
    assert verdict["category"] == "preempted", verdict["summary"]
    assert (tmp_path / "logs" / "verdicts.jsonl").read_text().count("\n") == 1


# three shapes of step line (a bracketed counter, a progress bar's N/M, a bare epoch
# print), the stacks taken with py-spy or with SIGUSR1 to the script's faulthandler;
# MMEngine's, fairseq's and detectron2's step lines are read by the same signature, whose
# examples hold them (a live torchrun job costs ten seconds of the suite's two cores)
@pytest.mark.parametrize(("style", "how"), [("timm", "py-spy"), ("keras", "faulthandler")])
def test_a_hang_in_a_step_format_nobody_wrote_a_signature_for_is_found_live(
    tmp_path: Path, style: str, how: str
) -> None:
    """Issue 17, points 2, 3 and 5: the script prints its step lines as timm or Keras do
    (no rank, mostly no time of their own; a bare epoch print's lines are the same
    signature's examples, its live run left out for the suite's time); rank 1 sleeps before a
    collective while rank 0 waits in DDP's backward, both stop at step 140. ha-run's watch
    times the lines as they arrive, confirms the hang, takes every rank's stacks before
    the kill (py-spy dump, or SIGUSR1 to the faulthandler the script registered) and names
    rank 1 and its frame."""
    if how == "py-spy" and shutil.which("py-spy") is None:
        pytest.skip("py-spy is not installed (pip install -e '.[dev]' installs it)")
    env = _job_env(
        tmp_path, FAULT="hang", FAULT_ATTEMPTS="0", FAULT_STEP="150", LOG_STYLE=style,
        STEP_SLEEP="0.03",
    )  # fmt: skip
    if how == "faulthandler":  # no py-spy on PATH
        env["PATH"] = os.pathsep.join(
            d for d in env["PATH"].split(os.pathsep) if not (Path(d) / "py-spy").exists()
        )
    cmd = [sys.executable, "-m", "analyzer.ops.torchrun", "--log-dir", str(tmp_path / "logs")]
    cmd += ["--poll", "0.5", "--hang-min-gap", "5", "--max-attempts", "1", "--"]
    cmd += [*TORCHRUN, "--nproc-per-node", "2", str(TRAIN)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "attempt 0 hung" in done.stderr, done.stderr[-2000:]
    attempt = tmp_path / "logs" / "attempt_0"
    supervisor = json.loads((attempt / "supervisor.json").read_text())
    assert len(supervisor["stacks"]) == 2, done.stderr[-2000:]
    if how == "py-spy":
        assert sorted(supervisor["stacks"]) == ["stacks/rank_0.txt", "stacks/rank_1.txt"]
    else:
        assert all(s.startswith("SIGUSR1 to rank") for s in supervisor["stacks"])
    verdict = json.loads((attempt / "verdict.json").read_text())
    assert verdict["category"] == "hang" and verdict["root_cause"]["rank"] == 1
    assert "train.py" in verdict["root_cause"]["text"] and verdict["confidence"] >= 0.75
    assert max(p["last_step"] or 0 for p in verdict["progress"]) == 140
    # the attempt analysed afterwards: the kill was ha-run's, after a hang on rank 1
    after = analyze(attempt)
    assert after.category == "hang" and after.root_cause and after.root_cause.rank == 1


def test_stacks_are_waited_for_until_the_logs_stop_growing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A faulthandler dump reaches the log through torchrun's tee and ha-run's copy; on a
    loaded machine that took longer than a fixed wait, and the verdict lost the frames."""
    import threading

    from analyzer.ops import torchrun

    monkeypatch.setattr(torchrun, "_DUMP_MIN", 0.2)
    monkeypatch.setattr(torchrun, "_DUMP_QUIET", 1.0)
    log = tmp_path / "ranks" / "0" / "stderr.log"
    log.parent.mkdir(parents=True)
    done = threading.Event()

    def dump() -> None:
        with log.open("a") as f:
            for k in range(30):  # 1.5 s of frames, 50 ms apart
                f.write(f'  File "/job/train.py", line {k} in step\n')
                f.flush()
                time.sleep(0.05)
        done.set()

    writer = threading.Thread(target=dump)
    writer.start()
    torchrun._settle(tmp_path)
    assert done.is_set()
    writer.join()


def test_flight_recorder_dumps_are_asked_into_the_attempt_folder(tmp_path: Path) -> None:
    env = flight_env({"PATH": "/bin"}, tmp_path / "attempt_0")
    prefix = str(tmp_path / "attempt_0" / "flight" / "nccl_trace_rank_")
    assert env["TORCH_FR_DUMP_TEMP_FILE"] == env["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"] == prefix
    assert env["TORCH_FR_BUFFER_SIZE"] == "2000" and env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
    assert (tmp_path / "attempt_0" / "flight").is_dir()
    mine = {"TORCH_NCCL_DEBUG_INFO_TEMP_FILE": "/x/t_", "TORCH_NCCL_TRACE_BUFFER_SIZE": "0"}
    assert flight_env(mine, tmp_path / "attempt_1") == mine  # the user's settings stand


_ZONED_JOB = """
import sys, time
from datetime import datetime, timedelta, timezone
tz = timezone.utc if sys.argv[1] == "Z" else timezone(timedelta(hours=8))
for step in range(1, int(sys.argv[2]) + 1):
    stamp = datetime.now(tz).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    print(f"{stamp} INFO [rank 0] step {step}/100 loss 0.5", flush=True)
    time.sleep(0.2)
time.sleep(float(sys.argv[3]))
"""


@pytest.mark.parametrize(
    ("local", "zone", "steps", "then", "hung"),
    [
        ("Asia/Shanghai", "Z", 20, 0, False),
        ("America/New_York", "+08:00", 20, 0, False),
        ("UTC", "+08:00", 20, 0, False),
        ("America/New_York", "Z", 5, 30, True),
    ],
)
def test_ha_run_reads_zone_stated_stamps_as_instants(
    tmp_path: Path, local: str, zone: str, steps: int, then: float, hung: bool
) -> None:
    """ha-run's live watch under three local zones, the job stamping its lines in UTC or
    +08:00: a healthy job is never killed as hung (Shanghai's +8 h read as a gap), and a
    job that stops is (New York's -5 h hid it)."""
    job = tmp_path / "job.py"
    job.write_text(_ZONED_JOB)
    env = dict(os.environ, TZ=local)
    cmd = [sys.executable, "-m", "analyzer.ops.torchrun", "--log-dir", str(tmp_path / "logs")]
    cmd += ["--poll", "0.5", "--hang-factor", "3", "--hang-min-gap", "3", "--max-attempts", "1"]
    cmd += ["--", sys.executable, str(job), zone, str(steps), str(then)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert ("attempt 0 hung" in done.stderr) is hung, done.stderr[-2000:]
    if not hung:
        assert done.returncode == 0, done.stderr[-2000:]
