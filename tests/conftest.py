from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.automaton import available_engines

FIXTURES = Path(__file__).parent / "fixtures"
DEMO_PATTERNS = FIXTURES / "patterns"
REPO = Path(__file__).resolve().parent.parent


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
