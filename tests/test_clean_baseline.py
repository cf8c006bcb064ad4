"""Healthy runs must never get a failure verdict.

corpora/clean/ holds logs of healthy runs of several stacks, with the scary-looking
warnings such runs print. Every folder must give `none`, and the signature hits in them
must be exactly the accepted list in known_false_positives.yaml: a new hit fails the
test (a signature became too broad), and so does a listed hit that no longer occurs (the
list went stale).
"""

from __future__ import annotations

import pytest
import yaml
from conftest import REPO

from analyzer import analyze

CLEAN = REPO / "corpora" / "clean"
FOLDERS = sorted(p for p in CLEAN.iterdir() if p.is_dir()) if CLEAN.is_dir() else []


def _known() -> set[tuple[str, str]]:
    entries = yaml.safe_load((CLEAN / "known_false_positives.yaml").read_text()) or []
    for e in entries:
        assert e.get("why"), f"known false positive without a reason: {e}"
    return {(e["folder"], e["signature"]) for e in entries}


def test_there_is_a_baseline() -> None:
    assert len(FOLDERS) >= 10


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_clean_run_has_no_failure_verdict(folder) -> None:  # type: ignore[no-untyped-def]
    v = analyze(folder)
    assert v.category == "none", f"{v.category}: {v.root_cause and v.root_cause.text}"
    assert v.stats.unreadable == ()


def test_hits_in_the_baseline_are_exactly_the_known_list() -> None:
    seen = {(p.name, f.signature.id) for p in FOLDERS for f in analyze(p).findings}
    known = _known()
    assert not seen - known, f"unexpected hits in clean runs: {sorted(seen - known)}"
    assert not known - seen, f"stale known_false_positives entries: {sorted(known - seen)}"
