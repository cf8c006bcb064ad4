"""Real torchrun runs with injected faults (corpora/torchrun/): the verdict must match the label.

Each ``corpora/torchrun/runs/<scenario>/`` holds the logs of one real 4-process gloo DDP run
(``logs/``) and its ``label.json``; ``corpora/torchrun/run_all.py`` made them. A scenario the
engine cannot get yet is an expected failure naming the missing capability (strict: once it
passes, drop the mark).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO

from analyzer import analyze

# real torchrun jobs: slow, scheduled first (conftest), and one at a time on one worker
# (the "real-jobs" group): two at once on two cores starve each other's timeouts
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("real-jobs")]

CORPUS = REPO / "corpora" / "torchrun"
RUNS = CORPUS / "runs"


def _runs() -> list[Path]:
    return sorted(p for p in RUNS.iterdir() if (p / "label.json").is_file())


def _label(run: Path) -> dict[str, object]:
    label: dict[str, object] = json.loads((run / "label.json").read_text())
    return label


def _params() -> list[object]:
    out: list[object] = []
    for run in _runs():
        out.append(pytest.param(run, id=run.name))
    return out


def test_corpus_is_complete() -> None:
    names = {p.name for p in _runs()}
    assert {"none", "raise-keyerror", "hang", "kill", "memoryerror", "nan-loss"} <= names
    for run in _runs():
        label = _label(run)
        assert label["torch"] == "2.13.0"
        logs = run / "logs"
        assert (logs / "launcher.log").is_file() or (logs / "console.log").is_file()
        if label["root_cause_file"] is not None:
            evidence = logs / str(label["root_cause_file"])
            assert str(label["root_cause_line_contains"]) in evidence.read_text(), run.name
        for f in logs.rglob("*"):
            assert f.stat().st_size < 200_000, f


@pytest.mark.parametrize("run", _params())
def test_verdict_matches_label(run: Path) -> None:
    label = _label(run)
    verdict = analyze(str(run / "logs"))
    rank = verdict.root_cause.rank if verdict.root_cause else None
    got = (verdict.category, rank)
    want = (label["category"], label["root_cause_rank"])
    evidence = verdict.root_cause.text if verdict.root_cause else None
    assert got == want, f"{run.name}: got {got} from {evidence!r}, label {want}"


def _torchrun() -> str | None:
    """A torchrun whose torch imports: the corpus's venv, or one on PATH."""
    candidates = [Path("/tmp/torchvenv/bin/torchrun")]
    on_path = shutil.which("torchrun")
    if on_path:
        candidates.append(Path(on_path))
    for exe in candidates:
        if not exe.is_file():
            continue
        shebang = exe.read_text(errors="replace").splitlines()[0]
        python = shebang[2:].strip() if shebang.startswith("#!") else sys.executable
        ok = subprocess.run(
            [python, "-c", "import torch.distributed.run"], capture_output=True, check=False
        )
        if ok.returncode == 0:
            return str(exe)
    return None


def _run_all() -> ModuleType:
    spec = importlib.util.spec_from_file_location("torchrun_run_all", CORPUS / "run_all.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def test_live_torchrun_keyerror(tmp_path: Path) -> None:
    """Reproduce one scenario with a real torchrun (about 10 s) and analyse its raw logs."""
    torchrun = _torchrun()
    if torchrun is None:
        pytest.skip(
            "no torch: python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch"
        )
    run_all = _run_all()
    run_all.NPROC = 2  # the scenario's rank 1 and one peer: two torch imports fewer
    scenario = run_all.BY_NAME["raise-keyerror"]
    logs = run_all.run_scenario(scenario, tmp_path / scenario.name, torchrun)
    verdict = analyze(str(logs))
    assert verdict.category == "user_code_error", verdict.summary
    assert verdict.root_cause is not None
    assert verdict.root_cause.rank == scenario.rank
    assert "KeyError: 'input'" in verdict.root_cause.text
