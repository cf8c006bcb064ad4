"""The built-in patterns ship inside the wheel, and an installed wheel finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from conftest import REPO


def test_wheel_contains_every_pattern_file(tmp_path: Path) -> None:
    args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)]
    subprocess.run(args, check=True, capture_output=True)
    wheel = next(tmp_path.glob("ha_analyze-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in (REPO / "patterns").glob("*.yaml"):
        assert f"analyzer/builtin_patterns/{f.name}" in names
    assert "analyzer/py.typed" in names
