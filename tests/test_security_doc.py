"""SECURITY.md's tables are the code's: every bound's value is the constant it names,
and the secret-forms table lists exactly the forms of tests/hostile/secrets.yaml, each
of which tests/test_secret_corpus.py runs through every output.

Run as a script to rewrite the secret-forms table after editing the corpus:
`python3 tests/test_security_doc.py`.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
SECURITY = REPO / "SECURITY.md"
CORPUS = Path(__file__).parent / "hostile" / "secrets.yaml"
BEGIN, END = "<!-- secret-forms:begin -->", "<!-- secret-forms:end -->"
_UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
_ROW = re.compile(r"^\| (?P<what>[^|]+) \| (?P<value>[^|]+) \| `(?P<where>[\w.]+:\w+)` \|")


def _value(text: str) -> int:
    number, _, unit = text.strip().partition(" ")
    return int(number.replace(",", "")) * _UNITS.get(unit, 1)


def bounds() -> list[tuple[str, int, str]]:
    """(what, value, module:CONSTANT) of each row of the bounds table."""
    section = SECURITY.read_text(encoding="utf-8").split("## Every bound")[1].split("\n## ")[0]
    return [
        (m["what"], _value(m["value"]), m["where"])
        for line in section.splitlines()
        if (m := _ROW.match(line))
    ]


def test_every_bound_is_the_constant_it_names() -> None:
    rows = bounds()
    assert len(rows) >= 30
    wrong = []
    for what, value, where in rows:
        module, name = where.split(":")
        actual = getattr(importlib.import_module(module), name)
        if actual != value:
            wrong.append(f"{what}: SECURITY.md says {value:,}, {where} is {actual:,}")
    assert wrong == []


def test_the_bounds_check_can_fail() -> None:
    assert _value("64 MiB") == 64 << 20 and _value("1,000") == 1000
    row = "| x | 3 | `analyzer.read.sources:_MAX_NESTING` | y |"
    m = _ROW.match(row)
    assert m is not None and m["where"] == "analyzer.read.sources:_MAX_NESTING"


def secret_table() -> str:
    forms = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))["forms"]
    rows = ["| form | family | format documented at |", "|---|---|---|"]
    for f in forms:
        mark = "" if f.get("confirmed", True) else " (not confirmed)"
        rows.append(f"| `{f['id']}` | {f['family']} | <{f['source']}>{mark} |")
    return "\n".join(rows)


def _section(text: str) -> str:
    return text.split(BEGIN)[1].split(END)[0].strip()


def test_the_secret_forms_table_is_the_corpus() -> None:
    text = SECURITY.read_text(encoding="utf-8")
    assert _section(text) == secret_table(), "run: python3 tests/test_security_doc.py"
    assert secret_table().count("\n| `") >= 120


def _write() -> None:
    text = SECURITY.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN)
    SECURITY.write_text(f"{head}{BEGIN}\n{secret_table()}\n{END}{rest.split(END)[1]}")


if __name__ == "__main__":
    _write()
    sys.exit(0)
