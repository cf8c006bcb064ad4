"""Every labelled excerpt in corpora/failures/ gets its folder's category, or is a known miss.

The excerpts are jobs known to have failed, so they are analysed as a caller that knows
it would (`failed=True`). A miss that is not listed in known_misses.yaml fails the test
(a change broke a class), and so does a listed miss that is now right (the list went
stale: take it out). Each entry records what the engine answered when it was listed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import REPO, one_answer

from analyzer import analyze

FAILURES = REPO / "corpora" / "failures"
EXCERPTS = sorted(p for p in FAILURES.glob("*/*.log"))


def _known() -> dict[str, str]:
    entries = yaml.safe_load((FAILURES / "known_misses.yaml").read_text()) or []
    return {e["file"]: e["got"] for e in entries}


KNOWN = _known()


def test_the_list_names_only_existing_excerpts() -> None:
    names = {str(p.relative_to(FAILURES)) for p in EXCERPTS}
    assert len(EXCERPTS) >= 400
    assert set(KNOWN) <= names


@pytest.mark.parametrize("path", EXCERPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_excerpt_category(path: Path) -> None:
    name = str(path.relative_to(FAILURES))
    v = analyze(path, failed=True)
    one_answer(name, v)
    got = v.category
    if name in KNOWN:
        assert got != path.parent.name, f"{name} is right now: remove it from known_misses.yaml"
    else:
        assert got == path.parent.name
