"""The culprit table (analyzer.decide.culprit.RULES): at least one minimal bundle per row, each
test named after the row's id (`test_<id>_...`; `stuck`'s are in tests/test_stacks.py too).

Each bundle holds real-format lines (torch 2.x, torchrun, gloo, NCCL, the NVIDIA driver)
and is built so that the rule under test decides; the assertion names the rule's pick.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import write_bundle

from analyzer import Analyzer, Settings, analyze
from analyzer.decide.culprit import choose

GLOO_LOST = (
    "[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
    "pair.cc:553] Connection closed by peer [127.0.0.1]:53940. This is typically caused by "
    "a remote worker crashing. Check the logs of the remote worker before reporting an error."
)
WATCHDOG = (
    "[rank{r}]:[E626 05:06:30.929096625 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=16384000, "
    "NumelOut=16384000, Timeout(ms)=1800000) ran for 1800065 milliseconds before timing out."
)
OOM = (
    "[rank{r}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 "
    "has a total capacity of 31.47 GiB of which 12.73 GiB is free."
)


def _step(rank: int, step: int, minute: int = 0) -> str:
    return f"2026-11-29 10:{minute:02d}:{step % 60:02d},000 - train - INFO - [rank {rank}] step {step}/300 loss 1.0"


def _rule(logs: Path) -> str | None:
    job = Analyzer(Settings(model=False))
    job.read_paths([str(logs)])
    c = choose(job.evidence())
    return c.rule if c is not None else None


def _bare_step(step: int) -> str:
    return f"2026-11-29 10:00:{step:02d},000 - train - INFO - step {step}/300 loss 1.0"


@pytest.mark.parametrize("step", [lambda s: _step(0, s), _bare_step], ids=["ranked", "bare"])
def test_deciding_a_cause_its_rank_trained_past_does_not_decide(
    tmp_path: Path, step: Callable[[int], str]
) -> None:
    """A caught OOM (torch's [rank0]: prefix) in rank 0's file, then three more steps,
    whether the step lines name the rank or not: the run did not stop there."""
    lines = [step(1), OOM.format(r=0), step(2), step(3), step(4)]
    v = analyze(write_bundle(tmp_path, {"rank_0.log": lines}), model=False)
    assert v.category == "none"
    died = [step(1), step(2), step(3), OOM.format(r=0), step(4)]
    assert (
        analyze(write_bundle(tmp_path, {"rank_0.log": died}), model=False).category == "device_oom"
    )


def test_stall_a_stalled_rank_is_the_culprit_when_no_cause_decides(tmp_path: Path) -> None:
    fast = [
        f"2026-11-29 10:00:{s:02d},000 - train - INFO - [rank 0] step {s}/300 loss 1"
        for s in range(1, 40)
    ]
    stuck = [
        f"2026-11-29 10:00:{s:02d},000 - train - INFO - [rank 1] step {s}/300 loss 1"
        for s in range(1, 10)
    ]
    later = ["2026-11-29 10:59:00,000 - monitor - INFO - heartbeat"]
    logs = write_bundle(tmp_path, {"rank_0.log": fast + later, "rank_1.log": stuck})
    assert _rule(logs) == "stall"
    v = analyze(logs, model=False)
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 1


@pytest.mark.parametrize("lagging", [False, True], ids=["together", "one-rank-behind"])
def test_stall_ranks_that_all_stopped_at_one_step_name_no_rank(
    tmp_path: Path, lagging: bool
) -> None:
    """Issue 17, point 3: four ranks step every 10 ms, all stop after step 140 within a few
    milliseconds, and 400 s later torchrun is told to stop (the real run of
    corpora/torchrun/runs/hang-sigterm): a hang, not a preemption, and no rank is shown
    to be the one the others wait for. One rank that stopped ten steps earlier is."""
    files = {}
    for r in range(4):
        last = 130 if lagging and r == 1 else 140
        files[f"rank_{r}.log"] = [
            f"2026-12-02 15:07:{49 + s // 100:02d},{(s % 100) * 10 + r:03d} - train - INFO - "
            f"[rank {r}] step {s}/100000 loss 1.39 (10.3 ms/step)"
            for s in range(10, last + 1, 10)
        ]
    files["launcher.log"] = [
        "W1202 15:14:30.306000 16069 site-packages/torch/distributed/elastic/agent/server/"
        "api.py:753] Received 15 death signal, shutting down workers",
        "W1202 15:14:30.307000 16069 site-packages/torch/distributed/elastic/multiprocessing/"
        "api.py:1028] Sending process 16113 closing signal SIGTERM",
    ]
    v = analyze(write_bundle(tmp_path, files), model=False)
    assert v.category == "hang" and v.root_cause is not None
    if lagging:
        assert v.root_cause.rank == 1
    else:
        assert v.root_cause.rank is None
        assert "all 4 ranks stopped progressing together after step 140" in v.summary


def test_best_a_cause_outranks_an_earlier_symptom(tmp_path: Path) -> None:
    lines = {
        "rank_0.log": ["2026-11-29 10:00:00,000 x", GLOO_LOST.format(r=0)],
        "rank_1.log": ["2026-11-29 10:00:05,000 x", OOM.format(r=1)],
    }
    logs = write_bundle(tmp_path, lines)
    assert _rule(logs) == "best"
    v = analyze(logs, model=False)
    assert v.category == "device_oom" and v.root_cause is not None and v.root_cause.rank == 1


def test_located_a_bare_line_gives_way_to_the_same_evidence_with_a_rank(tmp_path: Path) -> None:
    bare = OOM.format(r=0).split(": ", 1)[1]
    logs = write_bundle(tmp_path, {"a.log": [bare], "b.log": [OOM.format(r=5)]})
    assert _rule(logs) == "located"
    v = analyze(logs, model=False)
    assert v.root_cause is not None and v.root_cause.rank == 5


def test_located_a_bare_line_takes_the_rank_of_the_report_right_after_it(tmp_path: Path) -> None:
    """A kernel line names no process; the next line reports the same failure of rank 5."""
    lines = [
        "[2381771.004223] NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        "[rank5]: RuntimeError: CUDA error: unspecified launch failure",
    ]
    logs = write_bundle(tmp_path, {"node.log": lines})
    assert _rule(logs) == "located"
    v = analyze(logs, model=False)
    assert v.root_cause is not None and "Xid" in v.root_cause.text and v.root_cause.rank == 5


def test_own_file_the_ranks_own_file_is_cited_over_the_console_copy(tmp_path: Path) -> None:
    """torchrun --tee 3 --log-dir: the same line in the console and in attempt_0/1/."""
    logs = write_bundle(
        tmp_path,
        {
            "launcher.log": ["[default1]:" + OOM.format(r=1)],
            "none_x7k2/attempt_0/1/stderr.log": [OOM.format(r=1)],
        },
    )
    assert _rule(logs) == "own-file"
    v = analyze(logs, model=False)
    assert v.root_cause is not None and v.root_cause.file == "none_x7k2/attempt_0/1/stderr.log"


def test_lowest_seq_timeouts_of_one_collective_blame_the_lowest_sequence_number(
    tmp_path: Path,
) -> None:
    lines = [WATCHDOG.format(r=0, seq=120049), WATCHDOG.format(r=3, seq=120048)]
    lines += [WATCHDOG.format(r=1, seq=120049)]
    logs = write_bundle(tmp_path, {"console.log": lines})
    assert _rule(logs) == "lowest-seq"
    v = analyze(logs, model=False)
    assert v.root_cause is not None and v.root_cause.rank == 3


def test_silent_exit_a_worker_that_exits_without_a_word_is_the_culprit_not_its_peers(
    tmp_path: Path,
) -> None:
    """os._exit(1) on rank 1: the others lose their gloo peer; torchrun names the exit."""
    launcher = [
        "[default0]:" + GLOO_LOST.format(r=0),
        "E1201 20:45:37.037000 12577 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 1 (pid: 12592) of binary: /workspace/venv/bin/python3",
    ]
    logs = write_bundle(tmp_path, {"launcher.log": launcher})
    assert _rule(logs) == "silent-exit"
    v = analyze(logs)
    assert v.category == "unknown" and v.decided_by == "signature"
    assert v.root_cause is not None and v.root_cause.rank == 1


def test_silent_exit_a_network_fault_every_rank_reports_is_not_a_silent_exit(
    tmp_path: Path,
) -> None:
    """Every exited worker said it lost its peer: the verdict stays the network fault."""
    launcher = [
        "[default0]:" + GLOO_LOST.format(r=0),
        "[default1]:" + GLOO_LOST.format(r=1),
        "E1201 20:45:37.037000 12577 site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 1 (pid: 12592) of binary: /workspace/venv/bin/python3",
    ]
    v = analyze(write_bundle(tmp_path, {"launcher.log": launcher}), model=False)
    assert v.category == "network_fault"


def test_node_rank_a_kernel_line_on_an_uptime_clock_strikes_the_rank_that_echoes_it(
    tmp_path: Path,
) -> None:
    lines = [
        "[2381771.004223] NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        "[2381771.004229] NVRM: GPU 0000:9b:00.0: GPU has fallen off the bus.",
        "[2381771.004262] NVRM: A GPU crash dump has been created. If possible, please run",
        "                 NVRM: nvidia-bug-report.sh as root to collect this data before",
        "                 NVRM: the NVIDIA kernel module is unloaded.",
        "[rank5]: RuntimeError: CUDA error: unspecified launch failure",
    ]
    logs = write_bundle(tmp_path, {"node.log": lines})
    assert _rule(logs) == "node-rank"
    v = analyze(logs, model=False)
    assert v.category == "device_fault" and v.root_cause is not None
    assert "Xid" in v.root_cause.text and v.root_cause.rank == 5


def test_located_a_job_level_cause_takes_the_one_rank_that_reports_the_same_failure(
    tmp_path: Path,
) -> None:
    """slurmstepd's OOM event names no rank; torchelastic's table says rank 1 got SIGKILL."""
    console = [
        "0: [default1]:[rank1]: step 10 loss 2.1",
        "0: E1129 10:01:37.000000 74800 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 1 (pid: 74819) of binary: /usr/bin/python3",
        "0: Root Cause (first observed failure):",
        "0: [0]:",
        "0:   time      : 2026-11-29_10:01:37",
        "0:   host      : ip-10-0-12-202",
        "0:   rank      : 1 (local_rank: 1)",
        "0:   exitcode  : -9 (pid: 74819)",
        "0:   error_file: <N/A>",
        "0:   traceback : Signal 9 (SIGKILL) received by PID 74819",
        "slurmstepd: error: Detected 1 oom_kill event in StepId=6284483.0. Some of the step tasks have been OOM Killed.",
    ]
    logs = write_bundle(tmp_path, {"slurm-6284483.out": console})
    v = analyze(logs, model=False)
    assert v.category == "host_oom" and v.root_cause is not None
    assert v.root_cause.text.startswith("slurmstepd: error: Detected 1 oom_kill event")
    assert v.root_cause.rank == 1


def test_named_a_line_that_names_the_rank_at_fault_blames_that_rank(tmp_path: Path) -> None:
    """Rank 0 prints monitored_barrier's verdict on rank 5; rank 5's own file is quiet."""
    rank0 = [
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/work/train.py", line 90, in <module>',
        "[rank0]:     dist.monitored_barrier(group=gloo_pg, timeout=timedelta(seconds=1800))",
        "[rank0]: RuntimeError: [Rank 0]: Rank 5 failed to pass monitoredBarrier in 1800000 ms",
    ]
    logs = write_bundle(tmp_path, {"rank_0.log": rank0, "rank_5.log": ["eval: scoring shard 6/8"]})
    assert _rule(logs) == "named"
    v = analyze(logs, model=False)
    assert v.category == "hang" and v.root_cause is not None
    assert v.root_cause.rank == 5 and v.root_cause.file == "rank_0.log"
    assert v.act_on.ranks == (5,)


def _tokenising(elapsed: str, timeout_ms: int) -> dict[str, list[str]]:
    """Rank 0 maps the dataset under `main_process_first` (HF datasets' bar, which prints
    no time of its own) while ranks 1-3 wait in the first collective and time out."""
    bar = (
        "[rank0]: Running tokenizer on dataset (num_proc=8):  87%|████████▋ | 870/1000 "
        "[{e}<04:29,  2.41 examples/s]"
    )
    timeout = (
        "[rank{r}]:[E1201 10:30:02.000000000 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, "
        f"NumelOut=1, Timeout(ms)={timeout_ms}) ran for {timeout_ms + 70} milliseconds before "
        "timing out."
    )
    files = {"rank_0.log": [bar.format(e="00:10"), bar.format(e="12:00"), bar.format(e=elapsed)]}
    files |= {f"rank_{r}.log": [timeout.format(r=r)] for r in (1, 2, 3)}
    return files


@pytest.mark.parametrize(
    "elapsed, timeout_ms, busy",
    [
        ("30:01", 1800000, True),
        ("1:02:03", 3600000, True),
        ("05:00", 1800000, False),
        ("30:01", 3600000, False),
        ("12:00", 0, True),
    ],
    ids=["outlasts-30min", "outlasts-1h", "short", "within-printed-timeout", "default-10min"],
)
def test_busy_a_rank_busy_with_its_own_work_for_the_timeout_is_not_a_hang(
    tmp_path: Path, elapsed: str, timeout_ms: int, busy: bool
) -> None:
    """The others time out waiting for rank 0, whose own work ran as long as their
    timeout (the printed Timeout(ms)=, else torch's 10-minute NCCL default): a restart
    times out the same way, so fix and resubmit. Work that ended well within it does
    not explain their timeout."""
    files = _tokenising(elapsed, timeout_ms)
    if not timeout_ms:  # only the teardown, which prints no timeout: the default applies
        cancel = "slurmstepd: error: *** STEP 6053.0 ON node1 CANCELLED AT 2024-04-23T12:18:08 ***"
        files = {"rank_0.log": [*files["rank_0.log"], cancel]}
    logs = write_bundle(tmp_path, files)
    v = analyze(logs, model=False)
    assert v.category == "collective_timeout"
    if busy:
        assert _rule(logs) == "busy" and v.recovery == "fix_and_resubmit"
        assert v.root_cause is not None and v.root_cause.rank == 0
        assert "Running tokenizer on dataset" in v.root_cause.text
    else:
        assert _rule(logs) != "busy" and v.recovery == "auto_restart"


def test_busy_a_bar_that_said_it_would_end_long_before_the_timeout_was_not_busy(
    tmp_path: Path,
) -> None:
    """vLLM-Ascend's prompt bar at 37% said 01:31 remained, then nothing for an hour,
    until both ranks' watchdogs fired (3600 s): the bar had stopped, the rank was not busy
    with it, and a restart need not time out the same way (vllm-ascend#382's shape).
    The same bar with a remaining clock past the timeout is busy work."""

    def job(remaining: str) -> Path:
        bar = (
            "Processed prompts:  37%|###7      | 379/1024 [00:58<{r}, 7.05it/s, est. speed "
            "input: 3102.44 toks/s, output: 911.83 toks/s]"
        )
        timeout = (
            "[rank{n}]:[E324 13:00:25.428029551 compiler_depend.ts:574] [Rank {n}] Watchdog "
            "caught collective operation timeout: WorkHCCL(SeqNum=196, OpType=ALLREDUCE, "
            "Timeout(ms)=3600000) ran for 3600185 milliseconds before timing out."
        )
        lines = [
            "INFO 03-24 12:00:07 [npu_worker.py:155] Available KV cache memory: 38.21 GiB",
            "2026-03-24 12:00:09,000 - vllm - INFO - # npu blocks: 2446, # CPU blocks: 512",
            bar.format(r=remaining),
            timeout.format(n=1),
            timeout.format(n=0),
        ]
        return write_bundle(tmp_path / remaining.replace(":", "-"), {"worker.log": lines})

    stopped = job("01:31")
    assert _rule(stopped) != "busy"
    assert analyze(stopped, model=False).recovery == "auto_restart"
    working = job("1:31:00")
    assert _rule(working) == "busy"
    assert analyze(working, model=False).recovery == "fix_and_resubmit"


def test_busy_a_save_that_outlasts_the_timeout_is_busy_not_hung(tmp_path: Path) -> None:
    """Rank 0 begins saving (a bare line after its `[rank 0]` steps) and prints nothing
    more; rank 7 times out 20 minutes later with Timeout(ms)=1200000 (ai2cm/ace#851).
    Without the save line rank 0 is the rank that stopped first: a hang."""
    rank0 = [
        f"2026-02-18 10:{m:02d}:00,000 - root - INFO - [rank 0] step {m} loss 0.2"
        for m in range(20, 28)
    ]
    save = "2026-02-18 10:28:25,496 - root - INFO - Saving latest checkpoint model trained for 3"
    rank7 = [
        f"2026-02-18 10:{m:02d}:00,000 - root - INFO - [rank 7] step {m} loss 0.2"
        for m in range(20, 29)
    ]
    rank7.append(
        "[rank7]:[E218 10:48:25.033625188 ProcessGroupNCCL.cpp:632] [Rank 7] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=1512677, OpType=ALLREDUCE, NumelIn=306176, "
        "NumelOut=306176, Timeout(ms)=1200000) ran for 1200027 milliseconds before timing out."
    )
    logs = write_bundle(tmp_path / "saving", {"rank_0.log": [*rank0, save], "rank_7.log": rank7})
    v = analyze(logs, model=False)
    assert v.root_cause is not None and v.root_cause.rank == 0
    assert (v.category, v.recovery) == ("collective_timeout", "fix_and_resubmit")
    assert "Saving latest checkpoint" in v.root_cause.text
    quiet = write_bundle(tmp_path / "quiet", {"rank_0.log": rank0, "rank_7.log": rank7})
    assert analyze(quiet, model=False).category == "hang"


@pytest.mark.parametrize("own_at", ["10:00:07", "09:59:58"], ids=["later-clock", "earlier-clock"])
def test_peer_a_lost_peer_gives_way_to_the_peer_hosts_own_line(tmp_path: Path, own_at: str) -> None:
    """node1 reports a completion error from peer 10.0.0.12 (node2's bootstrap address);
    node2's own port error is the root, whichever clock runs ahead, and node2 alone is
    the host to act on."""
    node1 = [
        "2026-11-30 10:00:05,000 node1:1000:1100 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : "
        "Got completion from peer 10.0.0.12<36658> with error 12, opcode 0, len 0, vendor err 129 "
        "(Recv) localGid ::ffff:10.0.0.11 remoteGid ::ffff:10.0.0.12 hca mlx5_0"
    ]
    node2 = [
        "node2:2000:2000 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.12<0>",
        f"2026-11-30 {own_at},000 node2:2000:2100 [0] transport/net_ib.cc:125 NCCL WARN NET/IB : "
        "Got async event : port error",
    ]
    logs = write_bundle(tmp_path, {"node1.log": node1, "node2.log": node2})
    assert _rule(logs) == ("peer" if own_at > "10:00:05" else "best")
    v = analyze(logs, model=False)
    assert v.category == "network_fault" and v.root_cause is not None
    assert v.root_cause.file == "node2.log" and v.act_on.hosts == ("node2",)


@pytest.mark.parametrize(
    "kernel, echo, category, rule",
    [
        (
            "[1234567.123456] mlx5_core 0000:3b:00.0 ib0: Link down",
            "2026-11-30 10:00:05,000 node1:1000:1100 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : "
            "Got completion from peer 10.0.0.12<36658> with error 12, opcode 0, len 0, vendor err 129 "
            "(Recv) localGid ::ffff:10.0.0.11 remoteGid ::ffff:10.0.0.12 hca mlx5_0",
            "network_fault",
            "node-line",
        ),
        (
            "[1234567.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid=4321, name=python, GPU has fallen off the bus.",
            "2026-11-30 10:00:05,000 node1:1000:1100 [0] enqueue.cc:1556 NCCL WARN Cuda failure "
            "'unspecified launch failure'",
            "device_fault",
            "node-rank",  # a fatal Xid outranks it already; rule 8 finds its rank
        ),
    ],
    ids=["link-down", "xid"],
)
def test_node_line_the_nodes_kernel_line_is_the_root_of_the_ranks_echo(
    tmp_path: Path, kernel: str, echo: str, category: str, rule: str
) -> None:
    """The kernel line has only an uptime stamp (it sorts after every timed line) and its
    file names no host: it still outranks the NCCL text rank 0 printed for the same
    event, and takes rank 0's rank and host."""
    logs = write_bundle(tmp_path, {"dmesg.log": [kernel], "rank_0.log": [echo]})
    assert _rule(logs) == rule
    v = analyze(logs, model=False)
    assert v.category == category and v.root_cause is not None
    assert v.root_cause.file == "dmesg.log"
    assert v.act_on.hosts == ("node1",) and v.root_cause.rank == 0


def _steps_then_kill(kill_at: str) -> list[str]:
    steps = [
        f" [2024-04-21 02:20:{s:02d}] iteration {i:8d}/  500000 | consumed samples: {i * 64:10d} | "
        "elapsed time per iteration (ms): 2000.0 | lm loss: 1.879100E+00 |"
        for i, s in zip(range(1, 11), range(0, 20, 2), strict=True)
    ]
    return [
        *steps,
        f"slurmstepd: error: *** JOB 1188204 ON node-g00 CANCELLED AT {kill_at} DUE TO TIME LIMIT ***",
    ]


@pytest.mark.parametrize(
    "kill_at, category",
    [("2024-04-21T12:03:14", "hang"), ("2024-04-21T02:20:21", "preempted")],
)
def test_stall_a_stall_that_precedes_an_external_kill_is_the_cause(
    tmp_path: Path, kill_at: str, category: str
) -> None:
    """Ten hours without a step, then the time limit: the job hung. A kill two seconds
    after the last step interrupted a healthy run."""
    logs = write_bundle(tmp_path, {"slurm-1188204.out": _steps_then_kill(kill_at)})
    v = analyze(logs, model=False)
    assert v.category == category


@pytest.mark.parametrize(
    "reported_at, category",
    [("03:39:09", "collective_timeout"), ("05:39:09", "hang")],
    ids=["one-timeout-later", "far-beyond-the-timeout"],
)
def test_stall_a_rank_that_reports_the_timeout_waited_in_it_and_is_not_hung(
    tmp_path: Path, reported_at: str, category: str
) -> None:
    """One rank's log: steps every second, then half an hour later its own watchdog
    timeout. The gap is the collective timeout it waited out, so the verdict is the
    timeout, not a hang (a hang needs a rank that stands out). Two and a half hours
    later, five times the printed Timeout(ms)=, the gap is not the wait: it hung."""
    steps = [f"[rank3]: 2026-11-30 03:09:{s:02d},000 INFO step {s} loss 1.86" for s in range(10)]
    timeout = (
        f"[rank3]:[E1130 {reported_at}.000000000 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=61041, OpType=ALLREDUCE, NumelIn=1048576, "
        "NumelOut=1048576, Timeout(ms)=1800000) ran for 1800004 milliseconds before timing out."
    )
    v = analyze(write_bundle(tmp_path, {"rank_3.log": [*steps, timeout]}), model=False)
    assert v.category == category
    assert v.root_cause is not None and v.root_cause.rank == 3


def test_silent_exit_a_worker_that_dies_by_a_signal_is_the_culprit_not_the_teardown(
    tmp_path: Path,
) -> None:
    """torchrun tears down the other worker (SIGTERM) because local rank 0 died of SIGSEGV."""
    launcher = [
        "W1223 05:17:58.996000 3304089 site-packages/torch/distributed/elastic/multiprocessing/api.py:908] Sending process 3304210 closing signal SIGTERM",
        "E1223 05:18:02.971000 3304089 site-packages/torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: -11) local_rank: 0 (pid: 3304209) of binary: /usr/bin/python3",
    ]
    logs = write_bundle(tmp_path, {"launcher.log": launcher})
    assert _rule(logs) == "silent-exit"
    v = analyze(logs, model=False)
    assert v.category == "unknown" and v.root_cause is not None and v.root_cause.rank == 0


def test_stall_the_rank_that_stopped_in_a_merged_console_is_found_by_its_claimed_rank(
    tmp_path: Path,
) -> None:
    """One console, four ranks saying `[rank N] step S done | loss`: rank 2 stops at step
    5 while the others go on. Step lines are sampled per block, per the rank each line
    claims, so rank 2's last step is found where it stopped."""
    lines = [
        f"2026-11-29 10:{s:02d}:00,000 INFO [rank {r}] step {s} done | loss 2.{s}"
        for s in range(1, 11)
        for r in range(4)
        if not (r == 2 and s > 5)
    ]
    lines.append("2026-11-29 10:40:00,000 INFO watchdog still alive")
    v = analyze(write_bundle(tmp_path, {"console.log": lines}), model=False)
    assert v.category == "hang" and v.decided_by == "timeline"
    assert v.root_cause is not None and v.root_cause.rank == 2
    assert {p.rank: p.last_step for p in v.progress} == {0: 10, 1: 10, 2: 5, 3: 10}


NOTIFY_WAIT = (
    "[rank{r}]: EI0002: [PID: 72{r}1] 2024-11-28-11:59:3{r}.645.648 The wait execution of the "
    "Notify register times out. Reason: The Notify register has not received the Notify "
    "record from remote rank [{to}].base information: [streamID:[27], taskID[10], "
    "taskType[Notify Wait], tag[HcomAllReduce_6629421139219749105_0].] task information: "
    "[notify id:[0x0000000100000000], stage:[ffffffff], remote rank:[{to}]."
)


def test_waits_for_the_wait_graph_ends_at_the_rank_that_never_arrived(tmp_path: Path) -> None:
    """A ring: rank 2 waits for 1, 1 for 0, 0 for 3; rank 3's logs were never collected.
    Every line is a timeout, and rank 3 is the one nobody saw waiting."""
    files = {
        f"worker-{r // 2}/rank_{r}/train.log": [NOTIFY_WAIT.format(r=r, to=to)]
        for r, to in ((0, 3), (1, 0), (2, 1))
    }
    logs = write_bundle(tmp_path, files)
    assert _rule(logs) == "waits-for"
    v = analyze(logs, model=False)
    assert v.category == "collective_timeout" and v.root_cause is not None
    assert v.root_cause.rank == 3 and v.root_cause.file == "worker-0/rank_0/train.log"
    assert v.spread is not None
    assert v.spread.waits == ((0, 3), (1, 0), (2, 1))
    assert (v.spread.first.rank, v.spread.last.rank, v.spread.ranks) == (0, 2, 3)


def test_waits_for_two_ranks_that_wait_for_each_other_name_the_earlier(tmp_path: Path) -> None:
    """Ranks 1 and 2 each wait for the other (a broken link, or different collectives),
    rank 0 waits for 1: the pair is at the end, and rank 1 reported first."""
    files = {
        f"rank_{r}.log": [NOTIFY_WAIT.format(r=r, to=to)] for r, to in ((0, 1), (1, 2), (2, 1))
    }
    v = analyze(write_bundle(tmp_path, files), model=False)
    assert v.root_cause is not None and v.root_cause.rank == 1
    assert v.root_cause.file == "rank_1.log"


def test_waits_for_a_cause_decides_over_the_wait_graph(tmp_path: Path) -> None:
    """Rank 3 ran out of NPU memory; the others' notify waits are its echo."""
    files = {f"rank_{r}.log": [NOTIFY_WAIT.format(r=r, to=3)] for r in (0, 1, 2)}
    files["rank_3.log"] = [
        "[rank3]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 3; 60.96 GiB "
        "total capacity; 58.10 GiB already allocated; 58.10 GiB current active; 1.20 GiB free)"
    ]
    logs = write_bundle(tmp_path, files)
    assert _rule(logs) != "waits-for"
    v = analyze(logs, model=False)
    assert v.category == "device_oom" and v.root_cause is not None and v.root_cause.rank == 3


# ProcessGroupNCCL's heartbeat monitor on every rank after one rank's watchdog fired
# (torch 2.5+; the real line goes on "This is most likely caused by ...")
DUMP_SIGNAL = (
    "[rank{r}]:[E926 10:30:59.004112309 ProcessGroupNCCL.cpp:1746] [PG ID {pg} PG GUID {pg}"
    "(default_pg) Rank {r}] Received a dump signal due to a collective timeout from  rank 0 "
    "and we will try our best to dump the debug info. Last enqueued NCCL work: {enq}, last "
    "completed NCCL work: 55120.This is most likely caused by incorrect usages of collectives"
)


def _dumps(enqueued: dict[int, int], pg: int = 0) -> list[str]:
    lines = [WATCHDOG.format(r=0, seq=55121)]
    return lines + [DUMP_SIGNAL.format(r=r, enq=e, pg=pg) for r, e in enqueued.items()]


def test_lags_a_rank_behind_the_others_last_enqueued_collective_is_a_hang(tmp_path: Path) -> None:
    """31 ranks enqueued work 55121 and wait in it; rank 21 never enqueued it (it stopped
    in its data iterator): a rank that stopped while the others waited, a hang."""
    logs = write_bundle(
        tmp_path, {"console.log": _dumps({4: 55121, 13: 55121, 21: 55120, 30: 55121})}
    )
    assert _rule(logs) == "lags"
    v = analyze(logs, model=False)
    assert v.category == "hang" and v.recovery == "hang_restart"
    assert v.root_cause is not None and v.root_cause.rank == 21
    assert "ranks 4, 13, 30 enqueued 55121" in v.summary and v.confidence >= 0.75


@pytest.mark.parametrize(
    "enqueued",
    [
        {4: 55121, 13: 55121, 21: 55121},  # all wait in one collective: no rank shown stuck
        {4: 55121, 13: 55120, 21: 55120, 30: 55121},  # half behind: no minority lags
        {4: 55121, 21: 55120},  # two ranks say too little
    ],
)
def test_lags_ranks_that_agree_or_split_evenly_show_no_laggard(
    tmp_path: Path, enqueued: dict[int, int]
) -> None:
    logs = write_bundle(tmp_path, {"console.log": _dumps(enqueued)})
    assert _rule(logs) != "lags"
    assert analyze(logs, model=False).category == "collective_timeout"


def test_lags_sequence_numbers_of_two_process_groups_are_not_compared(tmp_path: Path) -> None:
    """Each process group counts its own collectives: rank 21's low number is of PG 1."""
    lines = [
        *_dumps({4: 55121, 13: 55121, 30: 55121}),
        DUMP_SIGNAL.format(r=21, enq=812, pg=1),
        DUMP_SIGNAL.format(r=4, enq=812, pg=1),
    ]
    logs = write_bundle(tmp_path, {"console.log": lines})
    assert _rule(logs) != "lags"


def test_lags_a_cause_decides_over_a_lag(tmp_path: Path) -> None:
    lines = [OOM.format(r=21), *_dumps({4: 55121, 13: 55121, 21: 55120, 30: 55121})]
    v = analyze(write_bundle(tmp_path, {"console.log": lines}), model=False)
    assert v.category == "device_oom" and v.root_cause is not None and v.root_cause.rank == 21


def test_every_row_of_the_table_has_a_bundle_test_named_after_it() -> None:
    from analyzer.decide.culprit import RULES

    here = Path(__file__).parent
    names = [
        line.split("def ", 1)[1]
        for f in ("test_culprit.py", "test_stacks.py")
        for line in (here / f).read_text(encoding="utf-8").splitlines()
        if line.startswith("def test_")
    ]
    ids = [r.id for r in RULES]
    assert len(set(ids)) == len(ids)
    untested = [
        i for i in ids if not any(n.startswith(f"test_{i.replace('-', '_')}_") for n in names)
    ]
    assert untested == []


def test_readme_lists_the_table_in_its_order() -> None:
    from conftest import REPO

    from analyzer.decide.culprit import RULES

    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("<!-- culprit-rules:begin -->", 1)[1].split("<!-- culprit-rules:end -->")[
        0
    ]
    want = " ".join(f"{i}. `{r.id}` ({r.kind}): {r.doc}" for i, r in enumerate(RULES, 1))
    assert " ".join(section.split()) == want


def test_the_json_names_the_row_that_chose_the_root(tmp_path: Path) -> None:
    fast = [_step(0, s) for s in range(1, 40)]
    stuck = [_step(1, s) for s in range(1, 10)]
    later = ["2026-11-29 10:59:00,000 - monitor - INFO - heartbeat"]
    logs = write_bundle(tmp_path / "stall", {"rank_0.log": fast + later, "rank_1.log": stuck})
    assert analyze(logs, model=False).to_dict()["culprit_rule"] == "stall"
    oom = write_bundle(tmp_path / "oom", {"rank_0.log": [_step(0, 1), OOM.format(r=0)]})
    assert analyze(oom, model=False).to_dict()["culprit_rule"] == "best"
    quiet = write_bundle(tmp_path / "none", {"rank_0.log": [_step(0, 1), _step(0, 2)]})
    assert analyze(quiet, model=False).to_dict()["culprit_rule"] is None


def _lost_bundles() -> list[Path]:
    from conftest import REPO

    root = REPO / "corpora" / "torchrun" / "multinode"
    return sorted(p for p in root.glob("lost-*") if (p / "label.json").is_file())


@pytest.mark.parametrize("bundle", _lost_bundles(), ids=lambda p: p.name)
def test_lost_node_is_named_and_no_survivor_is_isolated_or_a_lemon(bundle: Path) -> None:
    """Real 2- and 3-node torchrun jobs where one node's agent and ranks were killed at
    once (corpora/torchrun/run_multinode.py): its logs stop, the survivors lose their
    peers. The lost node is the root; decide with an earlier identical attempt never
    isolates a survivor, and the batch's lemon table never lists one."""
    import json

    from analyzer.batch.report import lemon_nodes
    from analyzer.ops.history import Attempt
    from analyzer.ops.policy import decide

    label = json.loads((bundle / "label.json").read_text())
    v = analyze(bundle / "logs")
    assert v.culprit_rule == "lost-node" and v.category == "unknown", v.summary
    assert v.root_cause is not None and v.root_cause.rank == label["root_cause_rank"]
    survivors = set(label["survivors"])
    assert not survivors & set(v.act_on.hosts), v.act_on
    if label.get("host_in_logs") is not False:
        assert v.act_on.hosts == (label["lost_node"],) and label["lost_node"] in v.summary
    attempt = Attempt.of(v)
    d = decide(attempt, [attempt])
    assert not survivors & set(d.isolate_hosts), d
    rows = [{"root_host": attempt.host, "category": v.category}] * 2
    assert not survivors & {h for h, _, _ in lemon_nodes(rows)}


def test_lost_node_a_node_that_spoke_after_its_last_step_is_not_lost(tmp_path: Path) -> None:
    """A node whose agent reports its rank killed by a signal after the last step was not
    lost in silence: the rule stays out (the b1 first-look case run-10's shape)."""
    step = (
        "[default{l}]:2026-12-07 09:25:0{s},000 - train - INFO - [rank {r}] step {s}/9 loss 1.2\n"
    )
    peer = "[default0]:[rank0]: RuntimeError: [../gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.1.12]:4242\n"
    kill = "E1207 09:25:06.100000 77 site-packages/torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -15) local_rank: 0 (pid: 91) of binary: /usr/bin/python3\n"
    a = "".join(step.format(l=lo, s=s, r=lo) for s in range(1, 6) for lo in (0, 1)) + peer
    b = "".join(step.format(l=lo, s=s, r=lo + 2) for s in range(1, 6) for lo in (0, 1))
    (tmp_path / "gpu-a17").mkdir()
    (tmp_path / "gpu-b03").mkdir()
    (tmp_path / "gpu-a17" / "console.log").write_text(a)
    (tmp_path / "gpu-b03" / "console.log").write_text(b)
    assert analyze(tmp_path).culprit_rule == "lost-node"
    (tmp_path / "gpu-b03" / "console.log").write_text(b + kill)
    assert analyze(tmp_path).culprit_rule != "lost-node"


def test_silent_exit_a_sigterm_its_launcher_never_sent_came_from_outside(tmp_path: Path) -> None:
    """A worker died of SIGTERM while its agent had sent SIGTERM only to another pid: the
    signal came from outside the job (preempted), and the survivors' lost peers are its
    echoes (the b1 first-look case run-10's shape; its lines' forms)."""
    peer = (
        "[default0]:[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:12518. This is "
        "typically caused by a remote worker crashing."
    )
    api = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
    teardown = (
        f"W1207 07:11:19.943000 20176 {api}:1028] Sending process {{pid}} closing signal SIGTERM"
    )
    died = (
        f"E1207 07:11:20.118000 20176 {api}:1002] failed (exitcode: -15) local_rank: 1 "
        "(pid: 20231) of binary: /usr/bin/python3"
    )
    step = "[default{l}]:2026-12-07 07:11:19,{ms} - train - INFO - [rank {r}] step 33/60 loss 1.2"
    a = [step.format(l=0, ms=701, r=0), step.format(l=1, ms=702, r=1), peer]
    b = [step.format(l=0, ms=686, r=2), step.format(l=1, ms=703, r=3)]
    logs = write_bundle(
        tmp_path, {"node-a.log": a, "node-b.log": [*b, teardown.format(pid=20230), died]}
    )
    v = analyze(logs, model=False, failed=True)
    assert v.culprit_rule == "silent-exit" and v.category == "preempted", v.summary
    assert v.root_cause is not None and v.root_cause.rank == 3
    # the same exit after its launcher's own SIGTERM to that pid is the launcher's teardown
    write_bundle(tmp_path, {"node-b.log": [*b, teardown.format(pid=20231), died]})
    assert analyze(logs, model=False, failed=True).category != "preempted"


def test_deciding_a_lost_store_after_every_rank_finished_is_shutdown_noise(
    tmp_path: Path,
) -> None:
    """Every rank logged its last step (`step 120/120`), then the store's host exited
    first and the others lost it: shutdown in some order, no failure (b3 first look,
    run-07's false alarm). The same line before the last step still decides."""
    store = (
        "[W1207 10:39:11.852386465 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on "
        "SocketImpl(fd=3, addr=[::ffff:127.0.0.1]:34714, remote=[::ffff:127.0.0.1]:29917): "
        "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server "
        "shutdown or crash?"
    )

    def steps(last: int) -> list[str]:
        return [
            f"[default{r}]:[2026-12-07 10:38:{s // 10:02d},{s % 10}00] [INFO] seqreg: epoch 0 "
            f"step {s}/120 loss 0.00311 (62 ms/step)"
            for s in range(last - 9, last + 1)
            for r in (0, 1)
        ]

    done = write_bundle(tmp_path / "done", {"console.log": [*steps(120), store]})
    assert analyze(done, model=False).category == "none"
    cut = write_bundle(tmp_path / "cut", {"console.log": [*steps(90), store]})
    assert analyze(cut, model=False, failed=True).category == "network_fault"


def test_silent_exit_a_worker_s_own_abort_notice_is_its_exit_not_a_cause(tmp_path: Path) -> None:
    """A rank's `Fatal Python error: Aborted` says how it died, not why: it is still the
    worker that exited in silence (SIGABRT, -6) while its peers lost it (b3 first look,
    run-01, where the survivors' lost connection was read as the cause)."""
    peer = (
        "[default0]:[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/"
        "transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:7381. This is "
        "typically caused by a remote worker crashing."
    )
    step = "[default{l}]:2026-12-07 10:36:3{s},000 - train - INFO - [rank {r}] step {s}/60 loss 1.2"
    api = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
    died = (
        f"E1207 10:36:38.598000 8796 {api}:1002] failed (exitcode: -6) local_rank: 1 "
        "(pid: 8811) of binary: /usr/bin/python3"
    )
    a = [step.format(l=lo, s=s, r=lo) for s in (1, 2) for lo in (0, 1)] + [peer]
    b = [step.format(l=lo, s=s, r=lo + 2) for s in (1, 2) for lo in (0, 1)]
    b += ["[default1]:Fatal Python error: Aborted", died]
    v = analyze(write_bundle(tmp_path, {"node-a.log": a, "node-b.log": b}), model=False)
    assert v.culprit_rule == "silent-exit" and v.category == "unknown", v.summary
    assert v.root_cause is not None and v.root_cause.rank == 3


def _stopped_rank_bundle(tmp_path: Path, stuck_times_out: bool, forced: bool = False) -> Path:
    """Two nodes of two ranks in one host file each: ranks 0, 1 and 3 time out in a gloo
    recv; rank 2 says nothing, ignores its agent's SIGTERM and is SIGKILLed 30 s later
    (the lines' forms are torchelastic's and gloo's)."""
    api = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
    timeout = (
        "[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:78] Timed out waiting 40000ms for recv operation to complete"
    )
    term = f"W1207 12:39:51.197000 21007 {api}:1028] Sending process 21177 closing signal SIGTERM"
    killed = "  exitcode  : -9 (pid: 21177)  (SIGKILL)"
    # progress a plain print gives, naming no rank: which rank stopped is not measured
    step = "2026-12-07T12:39:09.5{n}Z epoch 0 iter 40 loss 0.25"
    a = [step.format(n=1), timeout.format(r=0), timeout.format(r=1)]
    b = [step.format(n=2), timeout.format(r=3), term, "  rank      : 2 (local_rank: 0)"]
    if stuck_times_out:
        b.append(timeout.format(r=2))
    if forced:
        b.append(
            f"W1207 12:40:21.203000 21007 {api}:1047] Unable to shutdown process 21177 via 15,"
            " forcefully exiting via 9"
        )
    b.append(killed)
    return write_bundle(tmp_path, {"node-a/launcher.log": a, "node-b/launcher.log": b})


def test_deciding_a_sigkill_after_the_launchers_sigterm_is_its_escalation(
    tmp_path: Path,
) -> None:
    """torchelastic SIGKILLs a worker its SIGTERM did not stop: that -9 is the launcher's,
    never read as the bare SIGKILL of a host OOM (b4 first look, run-02's class)."""
    v = analyze(_stopped_rank_bundle(tmp_path, stuck_times_out=True), model=False, failed=True)
    assert v.category != "host_oom", v.summary


def test_unresponsive_the_rank_its_launcher_had_to_kill_while_the_others_timed_out_hangs(
    tmp_path: Path,
) -> None:
    v = analyze(_stopped_rank_bundle(tmp_path, stuck_times_out=False), model=False, failed=True)
    assert v.culprit_rule == "unresponsive" and v.category == "hang", v.summary
    assert v.recovery == "hang_restart" and "unresponsive" in v.reasons
    assert v.root_cause is not None and v.root_cause.rank == 2
    # the agent's own word that it had to force the kill is the evidence, where it is logged
    said = analyze(_stopped_rank_bundle(tmp_path / "f", False, forced=True), failed=True)
    assert said.culprit_rule == "unresponsive" and said.root_cause is not None
    assert "Unable to shutdown process 21177" in said.root_cause.text
    assert said.root_cause.rank == 2
    # a rank that reported the timeout itself only waited: no rank is shown stuck
    again = analyze(
        _stopped_rank_bundle(tmp_path / "x", stuck_times_out=True), model=False, failed=True
    )
    assert again.culprit_rule != "unresponsive"


def _report(entries: list[tuple[str, int, str]], first: tuple[str, int, str]) -> list[str]:
    """torchelastic's ChildFailedError report: `entries` under `Failures:` and `first`
    under `Root Cause (first observed failure)`, each (time, rank, exit code) on host
    node-a with pid 4000 + rank, as torch 2.x prints it."""

    def entry(i: int, at: str, rank: int, code: str) -> list[str]:
        sig = {"-9": "Signal 9 (SIGKILL)", "-15": "Signal 15 (SIGTERM)", "-6": "Signal 6 (SIGABRT)"}
        return [
            f"[{i}]:",
            f"  time      : 2026-09-07_{at}",
            "  host      : node-a",
            f"  rank      : {rank} (local_rank: {rank})",
            f"  exitcode  : {code} (pid: {4000 + rank})",
            "  error_file: <N/A>",
            f"  traceback : {sig[code]} received by PID {4000 + rank}"
            if code in sig
            else "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        ]

    out = [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
    ]
    for i, e in enumerate(entries, 1):
        out += entry(i, *e)
    out += ["------------------------------------------------------------"]
    out += ["Root Cause (first observed failure):", *entry(0, *first)]
    return [*out, "============================================================"]


def test_deciding_a_report_entry_after_its_first_failure_is_the_teardown(tmp_path: Path) -> None:
    """A SIGKILL the report lists 30 s after the first observed failure is the launcher's
    kill after its SIGTERM grace, not a host OOM; the report's wrapper is placed on the
    worker it names as first to fail (b5 first look, asc-03's class)."""
    logs = write_bundle(
        tmp_path,
        {
            "train.log": _report(
                [("13:03:29", 0, "-9"), ("13:03:29", 2, "-15")], ("13:02:58", 1, "1")
            )
        },
    )
    v = analyze(logs, model=False)
    assert v.category == "unknown", v.summary
    assert v.root_cause is not None and v.root_cause.rank == 1, v.root_cause


def test_located_the_reports_summary_cites_the_first_failures_own_entry(tmp_path: Path) -> None:
    """ChildFailedError's summary says only that workers failed; the evidence is the
    exit-code line of the worker it names as first to fail (b4 first look, gpu-02's
    class); a cause elsewhere keeps its own line."""
    lines = _report([("13:03:29", 2, "-15")], ("13:02:58", 1, "-6"))
    logs = write_bundle(tmp_path / "report", {"train.log": lines})
    v = analyze(logs, model=False)
    assert v.culprit_rule == "located" and v.root_cause is not None, v.summary
    assert v.root_cause.text.strip() == "exitcode  : -6 (pid: 4001)" and v.root_cause.rank == 1
    oom = write_bundle(
        tmp_path / "cause",
        {"train.log": ["terminate called after throwing an instance of 'std::bad_alloc'", *lines]},
    )
    v = analyze(oom, model=False)
    assert v.category == "host_oom" and v.root_cause is not None, v.summary
    assert "bad_alloc" in v.root_cause.text


def test_one_node_path_a_path_only_one_nodes_ranks_cannot_find_is_its_mount(
    tmp_path: Path,
) -> None:
    """Ranks 2 and 3 of worker-1 cannot find the checkpoint that worker-0's ranks went on
    past: a shared mount missing on worker-1 (storage), not a wrong path (b2 first look,
    run-04's class); when every node misses it, it is the job's own path."""
    missing = (
        "FileNotFoundError: [Errno 2] No such file or directory: '/mnt/ckpt/run7/step_000060.pt'"
    )
    lost = (
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed"
        " by peer [10.0.0.2]:21045"
    )

    def line(pod: int, rank: int, text: str) -> str:
        return f"[pod/pt-run7-worker-{pod}/pytorch] [rank{rank}]: {text}"

    one = [line(1, 2, missing), line(1, 3, missing), line(0, 0, lost), line(0, 1, lost)]
    v = analyze(write_bundle(tmp_path / "one", {"pt-run7.log": one}), model=False)
    assert (v.culprit_rule, v.category, v.recovery) == (
        "one-node-path",
        "storage_fault",
        "checkpoint_resume",
    ), v.summary
    assert v.root_cause is not None and v.root_cause.host == "pt-run7-worker-1"
    assert "one-node-path" in v.reasons
    every = [line(1, 2, missing), line(1, 3, missing), line(0, 0, missing), line(0, 1, missing)]
    v = analyze(write_bundle(tmp_path / "every", {"pt-run7.log": every}), model=False)
    assert v.category == "user_code_error", v.summary


def test_one_node_path_a_path_only_one_nodes_ranks_may_not_write_is_its_mount(
    tmp_path: Path,
) -> None:
    """Both ranks of node-b are refused the checkpoint folder the other node wrote
    (first look b17 run-03: the mount changed owner on node-b): that node's mount, a
    storage fault; refused on every node, it is the job's environment."""
    denied = "PermissionError: [Errno 13] Permission denied: '/mnt/ckpt/step000300'"
    lost = (
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed"
        " by peer [10.0.0.3]:52877"
    )

    def line(node: str, rank: int, text: str) -> str:
        return f"{node}-1  | [rank{rank}]: {text}"

    one = [line("node-b", 2, denied), line("node-b", 3, denied)]
    one += [line("node-a", 0, lost), line("node-a", 1, lost)]
    v = analyze(write_bundle(tmp_path / "one", {"console.log": one}), model=False)
    assert (v.culprit_rule, v.category) == ("one-node-path", "storage_fault"), v.summary
    assert v.root_cause is not None and v.root_cause.host == "node-b-1"
    every = [line(n, r, denied) for n, r in (("node-b", 2), ("node-b", 3), ("node-a", 0))]
    v = analyze(write_bundle(tmp_path / "every", {"console.log": every}), model=False)
    assert v.category == "environment_error", v.summary


def test_unreachable_store_a_job_that_never_trained_cannot_reach_its_store(
    tmp_path: Path,
) -> None:
    """node-b's agent times out connecting to the store at node-a:29490 while node-a's
    rendezvous waits for it; no rank ever trained: a wrong endpoint, an environment error
    (b11 first look, run-09; b5 run-02). Where the node reported no route to the host
    first, the network failed; where the job trained, the store was lost later."""
    connect = (
        "[E1207 17:11:19.681019339 socket.cpp:1028] [c10d] The client socket has timed out "
        "after 60000ms while trying to connect to (node-a, 29490)."
    )
    waiting = "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"
    no_route = (
        "[W1207 17:10:16.971660852 socket.cpp:764] [c10d] The client socket has failed to "
        "connect to node-a:29490 (errno: 113 - No route to host)."
    )
    v = analyze(write_bundle(tmp_path / "a", {"node-b.log": [connect], "node-a.log": [waiting]}))
    assert (v.culprit_rule, v.category, v.recovery) == (
        "unreachable-store",
        "environment_error",
        "fix_and_resubmit",
    ), v.summary
    assert "unreachable-store" in v.reasons
    route = write_bundle(
        tmp_path / "b", {"node-b.log": [no_route, connect], "node-a.log": [waiting]}
    )
    assert analyze(route).category == "network_fault"
    trained = write_bundle(
        tmp_path / "c", {"node-b.log": [_step(2, 5), connect], "node-a.log": [_step(0, 5), waiting]}
    )
    assert analyze(trained).culprit_rule != "unreachable-store"


def test_terminated_every_worker_died_of_a_sigterm_no_launcher_sent(tmp_path: Path) -> None:
    """Both workers exit -15 in the same second and the agent sent no closing signal: the
    job was stopped from outside (b12 first look, run-08: read as unknown); a SIGTERM the
    agent itself sent is its teardown."""
    api = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
    report = _report([("17:35:15", 1, "-15")], ("17:35:15", 0, "-15"))
    v = analyze(write_bundle(tmp_path / "a", {"node-a.log": report}), model=False)
    assert (v.culprit_rule, v.category) == ("terminated", "preempted"), v.summary
    assert "terminated" in v.reasons
    sent = f"W1207 17:35:14.000000 77 {api}:1028] Sending process 4001 closing signal SIGTERM"
    torn = write_bundle(tmp_path / "b", {"node-a.log": [sent, *report]})
    assert analyze(torn, model=False).culprit_rule != "terminated"


def test_shm_space_a_full_disk_met_creating_a_lock_is_dev_shm(tmp_path: Path) -> None:
    """`OSError: [Errno 28]` raised in multiprocessing's SemLock (a DataLoader's worker
    queue): /dev/shm is full, an environment error (b12 first look, run-07: read as
    storage); the same error writing a checkpoint is storage."""
    frames = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/usr/lib/python3.11/multiprocessing/synchronize.py", line 57, in __init__',
        "[rank1]:     sl = self._semlock = _multiprocessing.SemLock(",
        "[rank1]: OSError: [Errno 28] No space left on device",
    ]
    v = analyze(write_bundle(tmp_path / "a", {"rank1.log": frames}), model=False)
    assert (v.culprit_rule, v.category) == ("shm-space", "environment_error"), v.summary
    assert "shm-space" in v.reasons
    save = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/usr/lib/python3.11/site-packages/torch/serialization.py", line 650, in save',
        "[rank1]:     _save(obj, opened_zipfile, pickle_module, pickle_protocol)",
        "[rank1]: OSError: [Errno 28] No space left on device",
    ]
    v = analyze(write_bundle(tmp_path / "b", {"rank1.log": save}), model=False)
    assert v.category == "storage_fault", v.summary


def test_deciding_a_first_failure_that_was_torn_down_itself_is_not_trusted(tmp_path: Path) -> None:
    """torchelastic dates a worker by its error file where it wrote one: a rank that
    answered the teardown's SIGTERM can be named first although another was SIGKILLed
    before; the kill stays the evidence."""
    logs = write_bundle(
        tmp_path,
        {"train.log": _report([("16:59:43", 3, "-9")], ("16:59:42", 2, "-15"))},
    )
    v = analyze(logs, model=False)
    assert v.category == "host_oom" and v.root_cause is not None and v.root_cause.rank == 3


def test_silent_exit_the_reports_first_failure_under_the_teardown(tmp_path: Path) -> None:
    """Only the launcher's teardown decides, and its report names the worker that died of
    SIGABRT first: that worker is the culprit (b5 first look, gpu-10's class)."""
    teardown = (
        "W0726 10:59:50.786825 140538811684672 torch/distributed/elastic/multiprocessing/"
        "api.py:858] Sending process {pid} closing signal SIGTERM"
    )
    lines = _report([], ("10:59:45", 10, "-6"))
    lines = [x for x in lines if x != "[1]:"]
    logs = write_bundle(
        tmp_path, {"slurm.out": [teardown.format(pid=147865), teardown.format(pid=147866), *lines]}
    )
    v = analyze(logs, model=False)
    assert v.culprit_rule == "silent-exit" and v.category == "unknown", v.summary
    assert v.root_cause is not None and v.root_cause.rank == 10


def _attempt(first: int, last: int, minute: int) -> list[str]:
    return [
        f"2026-11-29 10:{minute + s // 60:02d}:{s % 60:02d},000 - train - INFO - [rank 0] step {s}/100 loss 1.0"
        for s in range(first, last + 1)
    ]


def test_deciding_what_ended_an_attempt_a_finished_resume_followed_is_history(
    tmp_path: Path,
) -> None:
    """A pod's previous log ends in a SIGTERM from outside; its current log resumes and
    trains to the last step: the job is healthy (b6 first look, run-05's class). Without
    the finished resume the SIGTERM decides."""
    death = (
        "W1129 10:00:31.000000 11 torch/distributed/elastic/agent/server/api.py:719] "
        "Received Signals.SIGTERM death signal, shutting down workers"
    )
    previous = [*_attempt(1, 30, 0), death]
    logs = write_bundle(
        tmp_path / "a",
        {"worker-0.previous.log": previous, "worker-0.log": _attempt(30, 100, 5)},
    )
    assert analyze(logs, model=False).category == "none"
    cut = write_bundle(
        tmp_path / "b",
        {"worker-0.previous.log": previous, "worker-0.log": _attempt(30, 60, 5)},
    )
    assert analyze(cut, model=False).category == "preempted"


def test_lost_node_when_only_the_lost_node_logs_progress(tmp_path: Path) -> None:
    """Megatron prints its iterations on the last rank alone: the node that held it stops
    in silence and the other agent's file shows only its ranks losing their peers (b5
    first look, run-01's class: read as the survivors' network fault)."""
    steps = [
        f" [2026-12-07 13:22:{s:02d}] iteration      {s * 10:>3}/    3000 | consumed samples: "
        f"{s * 320:>8} | elapsed time per iteration (ms): 54.6 | learning rate: 9.999027E-04 | "
        "global batch size:    32 | lm loss: 6.037605E+00 | loss scale: 1.0 | grad norm: 0.311 |"
        for s in range(1, 40)
    ]
    survivors = [
        "[after dataloaders are built] datetime: 2026-12-07 13:22:30 ",
        "training ...",
        GLOO_LOST.format(r=1),
        GLOO_LOST.format(r=0),
    ]
    logs = write_bundle(tmp_path, {"node-b/console.log": steps, "node-a/console.log": survivors})
    assert _rule(logs) == "lost-node"
    # one file: its own ranks' lost peers are not another node's word
    one = write_bundle(tmp_path / "one", {"console.log": [*steps, *survivors[2:]]})
    assert _rule(one) != "lost-node"


def test_lost_node_whose_console_sits_beside_its_log_dir(tmp_path: Path) -> None:
    """Each node's folder holds its agent's console and its torchrun `--log-dir`
    (`node-b/console.log`, `node-b/torchelastic/RUN/attempt_0/0/`): both are one node, so
    node-b, silent in both, is the one lost node and its rank the others leave is the root
    (b10 first look, run-02: read as the survivors' network fault)."""
    step = "[default0]:[16:34:{s:02d}] INFO     train step  step={s}  loss=2.3  lr=2.9e-04"
    steps = [step.format(s=s) for s in range(10, 50, 10)]
    files: dict[str, list[str]] = {}
    for node, rank in (("node-a", 0), ("node-b", 1), ("node-c", 2)):
        own = [x.split("]:", 1)[1] for x in steps]
        lost = [] if node == "node-b" else [f"[default0]:{GLOO_LOST.format(r=rank)}"]
        files[f"{node}/console.log"] = [*steps, *lost]
        run = f"{node}/torchelastic/job-c02_{node[-1]}x7k/attempt_0/0"
        files[f"{run}/stdout.log"] = own
        files[f"{run}/stderr.log"] = [x.split("]:", 1)[1] for x in lost]
    logs = write_bundle(tmp_path, files)
    v = analyze(logs, failed=True)
    assert (v.culprit_rule, v.category) == ("lost-node", "unknown"), v.summary
    assert v.root_cause is not None and v.root_cause.rank == 1, v.root_cause


def test_deciding_a_desync_report_naming_every_rank_names_none(tmp_path: Path) -> None:
    """`[0, 1, ..., 15] joined but didn't finish collective #730`: every rank was inside
    the collective, nobody lagged; the watchdog's timeout decides (b6 first look, gpu-02:
    read as a hang of rank 0). One rank alone in that list is the lagging rank."""

    def report(ranks: str) -> list[str]:
        return [
            WATCHDOG.format(r=6, seq=730),
            "[rank6]:[E1115 16:42:37.768057301 ProcessGroupNCCL.cpp:1936] Rank 6",
            "\t - [6] Timeout at collective: ALLREDUCE, #730",
            "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
            f"\t   - [{ranks}] joined but didn't finish collective #730 (count from 1)",
        ]

    everyone = ", ".join(str(r) for r in range(16))
    v = analyze(write_bundle(tmp_path / "all", {"rank6.log": report(everyone)}), model=False)
    assert v.category == "collective_timeout", v.summary
    one = analyze(write_bundle(tmp_path / "one", {"rank6.log": report("3")}), model=False)
    assert one.category == "hang" and one.root_cause is not None and one.root_cause.rank == 3


def test_deciding_an_elastic_restart_that_finished_leaves_its_first_attempt_as_history(
    tmp_path: Path,
) -> None:
    """torchrun's --log-dir holds attempt_0/ (rank 1's FileNotFoundError) and attempt_1/
    (both ranks train to 100/100), with untimed steps: the job is healthy (b7 first look,
    run-09: b6 run-05's class in an elastic log dir). If attempt_1 stops short, the error
    decides."""

    def steps(first: int, last: int) -> list[str]:
        return [f"step {s}/100 loss 1.0" for s in range(first, last + 1)]

    error = (
        "[rank1]: FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-00001.bin'"
    )

    def bundle(root: Path, end: int) -> Path:
        return write_bundle(
            root,
            {
                "run/attempt_0/0/stdout.log": steps(1, 5),
                "run/attempt_0/1/stderr.log": [error],
                "run/attempt_1/0/stdout.log": steps(5, end),
                "run/attempt_1/1/stdout.log": steps(5, end),
            },
        )

    assert analyze(bundle(tmp_path / "done", 100)).category == "none"
    assert analyze(bundle(tmp_path / "short", 60)).category != "none"


_STORE_WAIT = (
    "[default{l}]:torch.distributed.DistStoreError: wait timeout after 60000ms, keys: "
    "/default_pg/0//cpu//0/2"
)


@pytest.mark.parametrize("b_says", [None, "[default0]:starting worker group"])
def test_lost_node_when_every_file_of_a_node_is_empty(tmp_path: Path, b_says: str | None) -> None:
    """Three agents' folders (the b12 and b13 first-look run-02 layout): node-b's console
    and its rank's files are all empty while node-a's and node-c's ranks time out waiting
    for their peers in the process group's set-up. node-b was lost before its first line:
    `unknown`, node-b named, no rank (none of its lines said which), nobody isolated. One
    line in node-b's console and it is no longer a node that never logged."""
    for node, local in (("node-a", (0, 1)), ("node-c", (0,))):
        lines = [_STORE_WAIT.format(l=x) for x in local]
        write_bundle(tmp_path / node, {"console.log": lines})
        for x in local:
            write_bundle(tmp_path / node / "elastic" / "run_1" / "attempt_0" / str(x),
                         {"stderr.log": [lines[0][len("[default0]:"):]]})  # fmt: skip
    (tmp_path / "node-b" / "elastic" / "run_2" / "attempt_0" / "0").mkdir(parents=True)
    (tmp_path / "node-b" / "elastic" / "run_2" / "attempt_0" / "0" / "stderr.log").write_text("")
    (tmp_path / "node-b" / "console.log").write_text(f"{b_says}\n" if b_says else "")
    v = analyze(tmp_path, model=False, failed=True)
    if b_says is None:
        assert (v.category, v.culprit_rule, v.reasons[0]) == ("unknown", "lost-node", "node-empty")
        assert "node-b" in v.summary and v.root_cause is not None and v.root_cause.rank is None
        assert not v.act_on.hosts
    else:
        assert v.culprit_rule != "lost-node" and "node-empty" not in v.reasons, v.summary


_TEARDOWN_LINES = [
    "W0529 15:43:30.844000 15110 site-packages/torch/distributed/elastic/multiprocessing/"
    f"api.py:897] Sending process {pid} closing signal SIGTERM"
    for pid in (15188, 15189, 15190, 15191, 15193, 15194)
]


@pytest.mark.parametrize("signalled", [False, True])
def test_teardown_alone_is_no_preemption(tmp_path: Path, signalled: bool) -> None:
    """torchrun's closing signals to its workers (one pid missing: the worker that failed
    first) with nothing saying the agent itself was signalled: the teardown followed a
    worker's failure whose lines are not here, `unknown` (b13 gpu-01's and b14 gpu-05's
    shape), never `preempted`. With the agent's death signal before it, a preemption."""
    death = "W0529 15:43:30.840000 15110 torch/distributed/elastic/agent/server/api.py:704] "
    death += "Received 15 death signal, shutting down workers"
    lines = ([death] if signalled else []) + _TEARDOWN_LINES
    v = analyze(write_bundle(tmp_path, {"console.log": lines}), model=False, failed=True)
    if signalled:
        assert v.category == "preempted", v.summary
    else:
        assert (v.category, v.culprit_rule) == ("unknown", "teardown"), v.summary


def test_unresponsive_from_the_forced_kill_when_the_launcher_reported_no_exit(
    tmp_path: Path,
) -> None:
    """b14 run-02's shape: rank 2 frozen; ranks 1 and 3 time out in gloo; node-b's agent
    sends pid 477 its closing signal, then is itself SIGTERMed by a hang detector, forces
    the kill and dies before reporting any exit. The death signal came after the agent's
    own teardown (the group had already failed: not a preemption), and the forced kill of
    a process that reported nothing is the stuck one: a hang."""
    api = "site-packages/torch/distributed/elastic"
    timeout = (
        "[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "unbound_buffer.cc:129] Timed out waiting 60000ms for send operation to complete"
    )
    node_b = [
        timeout.format(r=3),
        f"W1207 19:34:28.628000 386 {api}/multiprocessing/api.py:1028] Sending process 477 "
        "closing signal SIGTERM",
        f"W1207 19:34:49.573000 386 {api}/agent/server/api.py:753] Received 15 death signal, "
        "shutting down workers",
        f"W1207 19:35:19.591000 386 {api}/multiprocessing/api.py:1047] Unable to shutdown "
        "process 477 via 15, forcefully exiting via 9",
        f"{api.split('/', 1)[1].replace('/', '.')}.multiprocessing.api.SignalException: "
        "Process 386 got signal: 15",
    ]
    job = write_bundle(tmp_path, {"node-a.log": [timeout.format(r=1)], "node-b.log": node_b})
    v = analyze(job, model=False, failed=True)
    assert (v.category, v.culprit_rule) == ("hang", "unresponsive"), v.summary
    assert v.root_cause is not None and v.root_cause.line == 4 and "Process 477" in v.summary


def test_stall_the_pod_that_reported_no_timeout_is_the_one_waited_for(tmp_path: Path) -> None:
    """A merged `kubectl logs --prefix` console of three one-rank pods whose step lines
    name no rank: two pods' ranks time out in gloo, the third pod reports nothing (its
    rank was throttled to a crawl): that pod is the hung one (first look b18 run-02 read
    a collective timeout on a waiting rank)."""

    def pod(n: int, text: str) -> str:
        return f"[pod/lm-worker-{n}/pytorch] {text}"

    steps = [
        pod(n, f"completed step: {s}, seconds: 0.129, loss: 2.5")
        for s in (325, 350)
        for n in range(3)
    ]
    timeout = (
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
        "waiting 30000ms for recv operation to complete"
    )
    lines = [*steps, pod(0, f"[rank0]: {timeout}"), pod(2, f"[rank2]: {timeout}")]
    v = analyze(write_bundle(tmp_path, {"kubectl-logs.txt": lines}), failed=True, model=False)
    assert (v.category, v.culprit_rule) == ("hang", "stall"), v.summary
    assert v.root_cause is not None and v.root_cause.host == "lm-worker-1"
    assert "lm-worker-1 does not" in v.summary


def test_lost_node_a_pod_and_its_agent_s_folder_are_one_node() -> None:
    """`kubectl logs --prefix` names the pod (`asr-fl-worker-1`), the collected log dir
    its folder (`worker-1/`): one node, so it is the one that went silent, not two."""
    from analyzer.decide.culprit import _one_node

    pod, folder = ("host", "asr-fl-worker-1"), ("host", "worker-1")
    other = ("host", "asr-fl-worker-0")
    groups = _one_node([pod, other, folder, ("host", "worker-0")])
    assert {pod, folder} in groups and len(groups) == 2
    assert _one_node([("host", "worker-11"), ("host", "worker-1")]) == [
        {("host", "worker-11")},
        {("host", "worker-1")},
    ]
