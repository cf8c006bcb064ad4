"""Per-rank progress timelines and hang detection from the logs alone."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from analyzer import analyze

T0 = datetime(2026, 11, 29, 10, 0, 0)


def megatron(step: int, when: datetime, total: int = 50000) -> str:
    return (
        f" [{when:%Y-%m-%d %H:%M:%S}] iteration {step:>8}/ {total:>7} | consumed samples: "
        f"{step * 1024:>12} | elapsed time per iteration (ms): 1400.0 | lm loss: 3.1E+00 |"
    )


def write_job(
    tmp_path: Path, last_steps: dict[int, int], extra: dict[str, list[str]] | None = None
) -> Path:
    for rank, last in last_steps.items():
        lines = [megatron(s, T0 + timedelta(seconds=2 * s)) for s in range(1, last + 1)]
        (tmp_path / f"rank_{rank}.log").write_text("\n".join(lines) + "\n")
    for name, lines in (extra or {}).items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


def monitor(minutes_after_start: float) -> str:
    when = T0 + timedelta(minutes=minutes_after_start)
    return f"{when:%Y-%m-%d %H:%M:%S},000 - INFO - node monitor: gpu util 0%"


def test_pure_hang_names_the_rank_that_stopped_first(tmp_path: Path) -> None:
    job = write_job(tmp_path, {0: 120, 1: 120, 2: 100, 3: 120}, {"monitor.log": [monitor(45)]})
    v = analyze(job)
    assert (v.category, v.recovery) == ("hang", "hang_restart")
    assert v.decided_by == "timeline"
    assert v.root_cause is not None and v.root_cause.rank == 2 and v.root_cause.line == 100
    stalled = {p.rank: p.stalled_seconds for p in v.progress}
    assert all(stalled[r] for r in range(4))
    assert {p.rank: p.step_seconds for p in v.progress}[0] == 2.0


def test_no_time_after_the_last_progress_is_no_hang(tmp_path: Path) -> None:
    # logs that just end prove nothing: copying a bundle resets modification times
    v = analyze(write_job(tmp_path, {0: 120, 1: 120}))
    assert v.category == "none"


def test_caller_supplied_now_shows_the_gap(tmp_path: Path) -> None:
    job = write_job(tmp_path, {0: 120, 1: 120})
    now = (T0 + timedelta(hours=2)).replace(tzinfo=timezone.utc)
    assert analyze(job, now=now).category == "hang"
    assert analyze(job, now=T0 + timedelta(seconds=250)).category == "none"


def test_a_short_pause_is_not_a_hang(tmp_path: Path) -> None:
    # 4 minutes without progress at 2 s/step: long, but under the 5-minute floor
    v = analyze(write_job(tmp_path, {0: 120}, {"monitor.log": [monitor(8)]}))
    assert v.category == "none"


def test_checkpoint_save_gets_a_longer_allowance(tmp_path: Path) -> None:
    save = "saving checkpoint at iteration     120 to /ckpt/gpt"
    job = write_job(tmp_path, {0: 120}, {"monitor.log": [monitor(25)]})
    (job / "rank_0.log").write_text((job / "rank_0.log").read_text() + save + "\n")
    assert analyze(job).category == "none"  # 21 min into a save: not yet a hang
    (job / "monitor.log").write_text(monitor(50) + "\n")
    assert analyze(job).category == "hang"  # 46 min: it is


def test_a_finished_run_is_not_a_hang(tmp_path: Path) -> None:
    lines = [megatron(s, T0 + timedelta(seconds=2 * s), total=100) for s in range(1, 101)]
    (tmp_path / "rank_0.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "monitor.log").write_text(monitor(60) + "\n")
    assert analyze(tmp_path).category == "none"


def test_timeouts_with_a_stalled_rank_become_a_hang(tmp_path: Path) -> None:
    timeout = (
        "[rank{r}]:[E1129 10:14:00.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=300, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
    )
    job = write_job(tmp_path, {0: 120, 1: 100}, {"rank_0_err.log": [timeout.format(r=0)]})
    v = analyze(job)
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 1


def test_a_cause_explains_the_stall(tmp_path: Path) -> None:
    oom = "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.32 GiB of which 2.40 GiB is free."
    job = write_job(
        tmp_path, {0: 120, 1: 100}, {"monitor.log": [monitor(45)], "rank_1_err.log": [oom]}
    )
    v = analyze(job)
    assert v.category == "device_oom"


def test_the_rank_without_a_timeout_is_the_one_the_others_waited_for(tmp_path: Path) -> None:
    timeout = (
        "[rank{r}]:[E1129 10:14:00.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=300, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
    )
    job = write_job(tmp_path, {0: 120, 1: 120, 2: 120, 3: 120})
    for r in (0, 1, 3):
        with (job / f"rank_{r}.log").open("a") as f:
            f.write(timeout.format(r=r) + "\n")
    v = analyze(job)
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 2
    assert "does not" in v.summary


def test_clock_skew_is_estimated_and_corrects_the_order(tmp_path: Path) -> None:
    oom = "{t} - ERROR - [rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."
    for rank, skew, failed_at in ((0, 0, 310), (1, 30, 295)):
        lines = [megatron(s, T0 + timedelta(seconds=2 * s + skew)) for s in range(1, 150)]
        when = T0 + timedelta(seconds=failed_at + skew)
        lines.append(oom.format(t=f"{when:%Y-%m-%d %H:%M:%S},000", r=rank))
        (tmp_path / f"rank_{rank}.log").write_text("\n".join(lines) + "\n")
    v = analyze(tmp_path)
    assert [(c.rank, round(c.offset)) for c in v.clock_skew] == [(1, 30)]
    # rank 1 logged its OOM 15 s after rank 0, on a clock 30 s fast: it failed first
    assert v.category == "device_oom" and v.root_cause is not None and v.root_cause.rank == 1


def _nan_run(tmp_path: Path, nan_step: int, resumed: bool = False) -> Path:
    lines = [" loading checkpoint from /ckpt/gpt at iteration 100"] if resumed else []
    for s in range(1, nan_step + 1):
        lines.append(
            f"{T0 + timedelta(seconds=s):%Y-%m-%d %H:%M:%S},000 - INFO - step {s} loss 2.5"
        )
    lines.append("Loss is nan, stopping training")
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_nan_from_the_first_steps_needs_a_fix_not_a_rollback(tmp_path: Path) -> None:
    v = analyze(_nan_run(tmp_path, 1))
    assert (v.category, v.recovery, v.retryable) == ("numerical_error", "fix_and_resubmit", False)
    assert analyze(_nan_run(tmp_path, 50)).recovery == "checkpoint_resume"
    assert analyze(_nan_run(tmp_path, 1, resumed=True)).recovery == "checkpoint_resume"


def test_an_evaluation_pause_is_not_a_hang(tmp_path: Path) -> None:
    evaluation = f"[INFO|trainer.py:3614] {T0 + timedelta(seconds=241):%Y-%m-%d %H:%M:%S},000 >> ***** Running Evaluation *****"
    job = write_job(tmp_path, {0: 120}, {"monitor.log": [monitor(25)]})
    (job / "rank_0.log").write_text((job / "rank_0.log").read_text() + evaluation + "\n")
    assert analyze(job).category == "none"  # 21 min into an evaluation


# Step lines of trainers without a signature of their own (issue 17, point 2), timed as
# they print them or through a logging prefix where they print no time
_STYLES = {
    "timm": "{t} INFO Train: 0 [{s:>4}/1000 ({p:>3}%)]  Loss: 6.936 (6.94)  Time: 0.457s",
    "mmengine": "{slash} - mmengine - INFO - Epoch(train)  [1][{s:>4}/1000]  lr: 1.0e-01  "
    "eta: 1:23:45  time: 0.0712  data_time: 0.0065  memory: 1023  loss: 2.1582",
    "fairseq": "{t} | INFO | train_inner | epoch 001: {s:>6} / 1000 loss=9.876, ppl=893.2, "
    "num_updates={s}, lr=1.25e-05",
    "detectron2": "{t} d2.utils.events INFO:  eta: 1:23:45  iter: {s}  total_loss: 2.345  "
    "loss_cls: 0.512  time: 0.4012  lr: 0.0002",
    "keras": "{t} {s}/1000 [=====>........................] - ETA: 1:23 - loss: 0.5432",
    "epoch": "{t} - train - INFO - Epoch 1 [{s}/1000] loss 0.4321",
}


@pytest.mark.parametrize("style", sorted(_STYLES))
def test_a_hang_is_found_in_step_formats_nobody_wrote_a_signature_for(
    tmp_path: Path, style: str
) -> None:
    """A rank steps every two seconds to step 100 and prints nothing more; an hour later
    (`now`) it is hung, and a caught OOM it trained past does not decide. Ten seconds
    later it is not hung yet."""
    start = datetime(2026, 12, 2, 10, 0, 0)
    lines = []
    for s in range(1, 101):
        when = start + timedelta(seconds=2 * s)
        lines.append(
            _STYLES[style].format(
                s=s,
                p=s // 10,
                t=when.strftime("%Y-%m-%d %H:%M:%S,000"),
                slash=when.strftime("%Y/%m/%d %H:%M:%S"),
            )
        )
        if s == 40:
            lines.append("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "rank_1.log").write_text("\n".join(lines) + "\n")
    last = start + timedelta(seconds=200)
    v = analyze(logs, model=False, now=last + timedelta(hours=1))
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 1
    assert v.progress[0].last_step == 100 and v.progress[0].steps >= 2
    assert analyze(logs, model=False, now=last + timedelta(seconds=10)).category == "none"


def test_year_less_stamps_across_new_year_keep_the_job_s_order(tmp_path: Path) -> None:
    """A healthy run that starts on 31 December (one full date) and logs glog stamps
    into January: the January lines take the next year, not eleven months back (which
    read as a hang of 525,594 minutes)."""
    from datetime import datetime, timedelta

    lines = ["2025-12-31 23:58:00,000 - INFO - job start, world 1\n"]
    t = datetime(2025, 12, 31, 23, 58, 10)
    for s in range(1, 40):
        lines.append(f"I{t:%m%d %H:%M:%S}.000000 4242 train.py:10] step {s}/100 loss 0.5\n")
        t += timedelta(seconds=10)
    (tmp_path / "train.log").write_text("".join(lines))
    v = analyze(tmp_path)
    assert v.category == "none", v.summary
    assert v.progress[0].last_time == "2026-01-01T00:04:30.000"


# Megatron-DeepSpeed's iteration line (BigScience's format): no timestamp of its own, the
# time per iteration stated in seconds; a Slurm watchdog's hourly lines give the clock
_BIGSCIENCE_STEP = (
    "[default7]: iteration    45000/  115311 | consumed samples:     76002224 | consumed "
    "tokens: 155652554752 | elapsed time per iteration (s): 111.00 | learning rate: "
    "4.298E-05 | global batch size:  2048 | lm loss: 2.113567E+00 | grad norm: 0.139 |"
)


@pytest.mark.parametrize(("hours", "hung"), [(2, True), (0, False)])
def test_a_step_above_the_first_stamp_is_bounded_by_it(
    tmp_path: Path, hours: int, hung: bool
) -> None:
    """A step line before any timestamp came no later than the first stamped line after
    it: the stall is measured from there, against the step time the line states (one step
    line gives no interval to measure). A watchdog's lines two hours on, with no step
    since, are a hang; the same lines at once are none."""
    pulses = [
        f"[2022-05-01 {3 + h:02d}:56:11] PULSE: tr11-176B-ml is running for 1-0{7 + h}:27:33 "
        "since 2022-04-29T20:28:38 (1528763 on 'gpu_p5' partition)"
        for h in range(hours + 1)
    ]
    (tmp_path / "console.log").write_text(
        "\n".join([_BIGSCIENCE_STEP, "[default7]:" + "-" * 40, *pulses]) + "\n"
    )
    v = analyze(tmp_path, failed=True)
    assert (v.category == "hang") is hung, v.summary
    (prog,) = v.progress
    assert prog.step_seconds == 111.0 and prog.last_time is None  # a bound, not its time
    if hung:
        assert v.root_cause is not None and v.root_cause.line == 1 and v.root_cause.rank == 7
