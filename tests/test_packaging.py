"""The built-in patterns ship inside the wheel, and an installed wheel finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

from analyzer.rules.signatures import load_patterns


@pytest.mark.slow
def test_installed_wheel_finds_its_patterns(tmp_path: Path) -> None:
    args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)]
    subprocess.run(args, check=True, capture_output=True)
    wheel = next(tmp_path.glob("ha_analyze-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = [f.relative_to(REPO / "patterns") for f in (REPO / "patterns").rglob("*.yaml")]
    assert len(shipped) > 20
    for f in shipped:
        assert f"analyzer/builtin_patterns/{f.as_posix()}" in names
    assert "analyzer/py.typed" in names
    # Unpacked as pip would install it, the package must find its own patterns.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = "from analyzer.rules.signatures import load_patterns; from analyzer.rules.yamlfile import builtin_dir; print(builtin_dir(), len(load_patterns().signatures))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out[0] == str(site / "analyzer" / "builtin_patterns")
    assert int(out[1]) == len(load_patterns().signatures)
