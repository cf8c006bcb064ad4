from __future__ import annotations

import compileall
from pathlib import Path

import click
import pytest

from analyzer import Verdict
from analyzer.ops.history import Attempt
from analyzer.ops.policy import decide
from analyzer.rules.automaton import available_engines
from analyzer.sinks.text import render

FIXTURES = Path(__file__).parent / "fixtures"
DEMO_PATTERNS = FIXTURES / "patterns"
REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile the package once, before any worker starts: hundreds of tests run
    `python3 -m analyzer` (and the dev-set scorer 81 times) in a subprocess, and where
    PYTHONDONTWRITEBYTECODE is set (this machine's and CI's environment) each of them
    compiled every module from source again, 0.2 CPU-s a start (a third of it). An
    installed wheel has its bytecode from pip; an editable checkout gets it here."""
    if not hasattr(config, "workerinput"):  # the controller only, not each xdist worker
        compileall.compile_dir(REPO / "analyzer", quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tests first: the workers (pytest-xdist) take tests in this order, so the
    long ones start at once and the short ones fill the gaps, instead of a real torchrun
    job starting last and leaving the other workers idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(params=available_engines())
def engine(request: pytest.FixtureRequest) -> str:
    """Every test that takes this runs once per automaton backend on this machine."""
    return str(request.param)


def write_bundle(root: Path, files: dict[str, list[str]]) -> Path:
    """A job's logs laid out under `root`: {relative path: lines}."""
    for name, lines in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(lines) + "\n")
    return root


def torchelastic_table(
    host: str, rank: int, local: int, pid: int, code: str = "1", traceback: list[str] = ()
) -> list[str]:
    """torchelastic's ChildFailedError summary, as torch 2.x prints it; with the worker's
    `traceback` (from its error file) indented as torch does (`.replace("\\n", "\\n  ")`)."""
    if traceback:
        error_file = f"  error_file: /tmp/torchelastic_x/none_y/attempt_0/{local}/error.json"
        field = [f"  traceback : {traceback[0]}", *(f"  {line}" for line in traceback[1:])]
    else:
        error_file = "  error_file: <N/A>"
        field = [
            "  traceback : To enable traceback see: "
            "https://pytorch.org/docs/stable/elastic/errors.html"
        ]
    return [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-12-01_20:45:37",
        f"  host      : {host}",
        f"  rank      : {rank} (local_rank: {local})",
        f"  exitcode  : {code} (pid: {pid}) ",
        error_file,
        *field,
        "============================================================",
    ]


def one_answer(name: str, v: Verdict) -> bool:
    """Issue 35's one recovery answer, checked on a corpus job's verdict: `recovery` and
    `retryable` agree, and where a restart controller (`decide`, default policy) acts
    otherwise the text output shows that decision, above the recovery. Whether the
    controller differs (the corpora hold guesses it restarts)."""
    if v.recovery == "fix_and_resubmit":
        assert v.retryable is False, name
    elif v.recovery != "none":
        assert v.retryable is not False, (name, v.recovery)
    d = decide(Attempt.of(v))
    if d.recovery == v.recovery:
        return False
    said = f"would {d.action} ({d.recovery}, exit {d.exit_code})"
    assert said in " ".join(click.unstyle(render(v)).split()), (name, d)
    return True
