"""ruff and mypy --strict are part of the test suite, so CI enforces them."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import REPO


@pytest.mark.parametrize(
    "cmd",
    [
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "analyzer",
            "tests",
            "benchmarks",
            "corpora",
            "tools",
        ],
        [sys.executable, "-m", "ruff", "format", "--check", "analyzer", "tests", "tools"],
        [sys.executable, "-m", "mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_tool_is_clean(cmd: list[str]) -> None:
    if (
        shutil.which(cmd[2]) is None
        and subprocess.run(
            [sys.executable, "-m", cmd[2], "--version"], capture_output=True, check=False
        ).returncode
    ):
        pytest.fail(f"{cmd[2]} is not installed: pip install -e '.[dev]'")
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
