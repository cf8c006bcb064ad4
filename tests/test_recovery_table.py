"""README's table of which evidence leads to each recovery: every one of the taxonomy's
nine recoveries has a row, and each row's real case gives that recovery (a corpus case
analysed as the caller that knows it failed; a signature's real example line)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

from analyzer import analyze
from analyzer.rules.signatures import load_patterns
from analyzer.rules.taxonomy import RECOVERIES

_TABLE = (
    (REPO / "README.md")
    .read_text(encoding="utf-8")
    .split("<!-- recovery-table:begin -->", 1)[1]
    .split("<!-- recovery-table:end -->", 1)[0]
)
ROWS = [(m[1], m[2]) for m in re.finditer(r"^\| `(\w+)` \| [^|]+ \| `([\w./-]+)`", _TABLE, re.M)]


def test_every_recovery_has_a_row() -> None:
    assert sorted(r for r, _ in ROWS) == sorted(r for r in RECOVERIES if r != "none")


@pytest.mark.parametrize(("recovery", "case"), ROWS, ids=[r for r, _ in ROWS])
def test_the_rows_case_gives_its_recovery(recovery: str, case: str, tmp_path: Path) -> None:
    if case.startswith("corpora/"):
        v = analyze(REPO / case / "logs", failed=True)
    else:  # a signature: its first real example line, alone
        sig = next(s for s in load_patterns().signatures if s.id == case)
        line = next(e["log"] for e in sig.examples if e.get("match", True))
        (tmp_path / "job.log").write_text(line + "\n", encoding="utf-8")
        v = analyze(tmp_path, failed=True)
    if recovery == "hang_detection":  # the detection: the verdict is the hang it found
        assert v.category == "hang", v.summary
    else:
        assert v.recovery == recovery, v.summary
