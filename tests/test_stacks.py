"""Stack dumps of live processes (analyzer.job.stacks, the `stack-*` signatures, culprit rule
11): real formats of faulthandler, py-spy, gdb and the stack-printing recipes, from the
public issues the signatures cite."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_bundle

from analyzer import analyze
from analyzer.job.stacks import read

# pytorch/pytorch#54818: a test process hung in barrier, dumped by its timeout handler
FAULTHANDLER = """\
Current thread 0x00007ff3363ff700 (most recent call first):
  File "torch/testing/_internal/common_distributed.py", line 373 in _event_listener
  File "threading.py", line 870 in run
  File "threading.py", line 932 in _bootstrap_inner
  File "threading.py", line 890 in _bootstrap

Thread 0x00007ff406132180 (most recent call first):
  File "torch/distributed/distributed_c10d.py", line 2477 in barrier
  File "torch/testing/_internal/distributed/rpc/rpc_test.py", line 838 in test_reinit
  File "torch/testing/_internal/common_distributed.py", line 292 in wrapper
  File "multiprocessing/process.py", line 108 in run"""

# stas00/ml-engineering, debug/torch-distributed-hanging-solutions.md (Megatron-DeepSpeed)
PYSPY_BROADCAST = """\
Thread 835995 (active): "MainThread"
    broadcast (torch/distributed/distributed_c10d.py:1191)
    _aggregate_total_loss (deepspeed/runtime/pipe/engine.py:540)
    train_batch (deepspeed/runtime/pipe/engine.py:330)
    train_step (megatron/training.py:436)
    <module> (pretrain_gpt.py:239)"""

# RolnickLab/ami-data-companion#140: the DataLoader's parent blocked on its queue
PYSPY_LOADER = """\
Thread (idle): "MainThread"
    wait (threading.py:359)
    get (queue.py:180)
    _try_get_data (torch/utils/data/dataloader.py:1310)
    _get_data (torch/utils/data/dataloader.py:1473)
    _next_data (torch/utils/data/dataloader.py:1524)
    __next__ (torch/utils/data/dataloader.py:741)
    _preload (trapdata/antenna/datasets.py:455)
Thread (idle): "Thread-... (_pin_memory_loop)"
    select (selectors.py:415)"""

# pytorch/pytorch#52916: DDP's constructor in NCCL's bootstrap
GDB = """\
Thread 15 (Thread 0x7f003cffd700 (LWP 20292)):
#0  0x00007f012d6496a7 in __libc_accept (fd=30, addr=addr@entry=..., len=len@entry=0x7f003cfe435c) at ../sysdeps/unix/sysv/linux/accept.c:26
#1  0x00007f00ad990a6e in bootstrapNetAccept (listenComm=0x7f0018006620, recvComm=recvComm@entry=0x7f003cfe43c0) at bootstrap.cc:106
#2  0x00007f00ad992565 in bootstrapInit (id=id@entry=0x7f003cffce70, rank=rank@entry=0, nranks=nranks@entry=2, commState=commState@entry=0x7f0018005070) at bootstrap.cc:315"""

# the sys._current_frames recipe (StackOverflow 132058): outermost first, source lines
RECIPE = """\
# Thread: MainThread(140245)
File: "train.py", line 88, in <module>
  main()
File: "train.py", line 61, in main
  torch.save(state, path)
File: "/usr/lib/python3.10/site-packages/torch/serialization.py", line 619, in save
  _save(obj, opened_zipfile, pickle_module, pickle_protocol)"""


def _after_header(dump: str) -> list[str]:
    return dump.splitlines()[1:]


def test_faulthandler_frames_innermost_first_and_started_threads_are_not_main() -> None:
    lines = FAULTHANDLER.splitlines()
    started = read(lines[1:], "first")
    assert started is not None and not started.main  # its outermost frame is _bootstrap
    main = read(lines[7:], "first")
    assert main is not None and main.main and main.collective
    assert (main.at.func, main.at.where) == (
        "barrier",
        "torch/distributed/distributed_c10d.py:2477",
    )


def test_py_spy_frames_and_where_a_loader_waits() -> None:
    spy = read(_after_header(PYSPY_BROADCAST), "first")
    assert spy is not None and spy.collective and spy.at.func == "broadcast"
    loader = read(_after_header(PYSPY_LOADER), "first")
    assert loader is not None and not loader.collective
    # threading, queue and torch's own data loader are where it waits, not what for
    assert loader.at.func == "_preload" and loader.frames[0].func == "wait"
    assert len(loader.frames) == 7  # the next thread header ends the block


def test_gdb_frames_and_a_recipe_printed_outermost_first() -> None:
    gdb = read(_after_header(GDB), "first")
    assert gdb is not None and gdb.at.func == "bootstrapNetAccept"
    recipe = read(_after_header(RECIPE), "last")
    assert recipe is not None and not recipe.collective
    assert recipe.at.func == "main" and recipe.at.code_at is not None  # the torch.save line
    assert _after_header(RECIPE)[recipe.at.code_at].strip() == "torch.save(state, path)"


def _watchdog(rank: int) -> str:
    return (
        f"[rank{rank}]:[E1202 16:33:31.475880828 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=140, OpType=BROADCAST, NumelIn=1, "
        "NumelOut=1, Timeout(ms)=1800000) ran for 1800093 milliseconds before timing out."
    )


def test_stuck_the_rank_dumped_outside_any_collective_is_the_hung_one(tmp_path: Path) -> None:
    """Rank 0 waits in broadcast and its watchdog fires; rank 1's py-spy dump shows it in
    the DataLoader: rank 1 is the one rank 0 waits for (rule 11), cited at its frame."""
    files = {
        "rank_0.log": [_watchdog(0), *PYSPY_BROADCAST.splitlines()],
        "rank_1.log": PYSPY_LOADER.splitlines(),
    }
    v = analyze(write_bundle(tmp_path, files), model=False)
    assert (v.category, v.recovery) == ("hang", "hang_restart")
    assert v.root_cause is not None and v.root_cause.rank == 1
    assert v.root_cause.text.strip() == "_preload (trapdata/antenna/datasets.py:455)"
    assert v.root_cause.captures["innermost"] == "wait (threading.py:359)"


def test_stuck_a_dump_file_is_placed_on_its_rank_by_the_main_threads_pid(
    tmp_path: Path,
) -> None:
    """py-spy dumps of several processes in one file beside the agent's console: the main
    thread's id is its process id, which the agent's failure table ties to a rank (first
    look b17 run-02 named no rank for the rank stuck in `np.load`)."""
    table = [
        "Failures:",
        "[1]:",
        "  time      : 2026-12-07_21:48:28",
        "  host      : node-a",
        "  rank      : 1 (local_rank: 1)",
        "  exitcode  : -15 (pid: 23572)  (SIGTERM)",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-12-07_21:48:28",
        "  host      : node-a",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : 1 (pid: 23570)",
    ]
    dumps = [
        "Process 23570: python3 -u train.py",
        *PYSPY_BROADCAST.replace("835995", "23570").splitlines(),
        "",
        "Process 23572: python3 -u train.py",
        'Thread 23572 (idle): "MainThread"',
        *_after_header(PYSPY_LOADER),
    ]
    files = {"node-a.console.log": [_watchdog(0), *table], "stack-dumps.txt": dumps}
    v = analyze(write_bundle(tmp_path, files), model=False)
    assert v.category == "hang" and v.root_cause is not None, v.summary
    assert (v.root_cause.file, v.root_cause.rank) == ("stack-dumps.txt", 1)


def test_two_dumps_in_one_file_the_one_outside_a_collective_is_cited(tmp_path: Path) -> None:
    """An on-call's notes: py-spy of one rank, then of another, in one file that names no
    rank: the dump outside a collective is the evidence."""
    files = {"notes.log": [*PYSPY_BROADCAST.splitlines(), *PYSPY_LOADER.splitlines()]}
    v = analyze(write_bundle(tmp_path, files), model=False)
    assert v.category == "hang"
    assert v.root_cause is not None and "_preload" in v.root_cause.text


def test_a_dump_of_ranks_all_in_collectives_is_a_hang_at_the_collective(tmp_path: Path) -> None:
    v = analyze(write_bundle(tmp_path, {"dump.log": FAULTHANDLER.splitlines()}), model=False)
    assert v.category == "hang"
    assert v.root_cause is not None and "in barrier" in v.root_cause.text


@pytest.mark.parametrize(
    "extra, category",
    [
        # a crash printed with faulthandler's fatal-signal form: the crash is the cause
        (["Fatal Python error: Segmentation fault", ""], None),
        # a run that then finished: its dump was a look, not a hang
        (None, "none"),
    ],
    ids=["fatal-signal", "completed"],
)
def test_a_dump_does_not_outrank_a_cause_or_a_finished_run(
    tmp_path: Path, extra: list[str] | None, category: str | None
) -> None:
    dump = FAULTHANDLER.splitlines()[6:]
    lines = (
        [*extra, *dump]
        if extra
        else [
            *dump,
            "{'train_runtime': 1234.5, 'train_samples_per_second': 8.1, 'train_steps_per_second': 0.5, 'train_loss': 0.51, 'epoch': 3.0}",
        ]
    )
    v = analyze(write_bundle(tmp_path, {"rank_0.log": lines}), model=False)
    if category is None:
        assert v.category != "hang" and v.root_cause is not None
        assert "Segmentation fault" in v.root_cause.text
    else:
        assert v.category == category
