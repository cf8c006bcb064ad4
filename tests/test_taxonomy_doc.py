"""The verdict's contract ships with the project (docs/taxonomy.md) and says what the
engine does: its recovery and category tables are the engine's own (ids, each category's
primary recovery and whether it is retryable), so neither can change without the other."""

from __future__ import annotations

import re

from conftest import REPO

from analyzer import CategoryId, RecoveryId
from analyzer.rules.taxonomy import CATEGORIES, RECOVERIES

DOC = (REPO / "docs" / "taxonomy.md").read_text(encoding="utf-8")


def _rows(heading: str) -> list[list[str]]:
    section = DOC.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_the_recovery_table_is_the_engine_s() -> None:
    ids = [re.sub(r"`", "", row[0]) for row in _rows("## Recovery features")]
    assert set(ids) == set(RECOVERIES)
    assert set(ids) | {"none"} == {r.value for r in RecoveryId}


def test_the_category_table_is_the_engine_s() -> None:
    rows = _rows("## Root-cause categories")
    assert {row[0].strip("`") for row in rows} == set(CATEGORIES)
    assert {row[0].strip("`") for row in rows} | {"none"} == {c.value for c in CategoryId}
    retryable = {"no": False, "yes": True}
    for row in rows:
        cat = CATEGORIES[row[0].strip("`")]
        primary = re.match(r"`(\w+)`", row[4])
        assert primary is not None and cat.recovery == primary.group(1), row[0]
        said = row[3].split(",")[0].split(" ")[0]
        assert cat.retryable == retryable.get(said), (row[0], said)


def test_readme_links_the_contract_inside_the_repository() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "](docs/taxonomy.md)" in readme and "shared/spec/taxonomy.md)" not in readme
    assert "Evidence: which lines may decide" in DOC
