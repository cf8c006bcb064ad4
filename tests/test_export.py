"""`patterns export --ere`: the catalogue as POSIX ERE for grep, the benchmarks' yardstick."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from analyzer.cli import main
from analyzer.read.lines import clean, strip_prefix
from analyzer.rules.export import to_ere
from analyzer.rules.signatures import load_patterns


@pytest.mark.parametrize(
    ("rx", "ere"),
    [
        (r"CUDA out of memory\. Tried (?P<size>\d+)", r"CUDA out of memory\. Tried ([0-9]+)"),
        (r"(?i)(?:nan|inf)\b", "(nan|inf)"),
        (r"[\s,|{(\['\"]x", "[[:space:],|{(['\"]x"),
        (r"[\w.\-]{1,5}?y", "[[:alnum:]_.-]{1,5}y"),
        (r"a\x41", None),
        (r"(?<=a)b", None),
    ],
)
def test_conversion(rx: str, ere: str | None) -> None:
    assert to_ere(rx) == ere


@pytest.mark.slow
def test_the_export_parses_in_grep_and_matches_the_examples(tmp_path: Path) -> None:
    out = tmp_path / "sigs.ere"
    r = CliRunner().invoke(main, ["patterns", "export", "--ere", "--output", str(out)])
    assert r.exit_code == 0
    eres = out.read_text(encoding="utf-8").splitlines()
    assert len(eres) >= 700
    messages = [
        strip_prefix(next(iter(clean(ex["log"])))).text
        for s in load_patterns().signatures
        if all(to_ere(rx) is not None and not rx.startswith("(?i)") for rx in s.match)
        for ex in s.examples
        if ex["match"]
    ]
    lines = tmp_path / "examples.txt"
    lines.write_text("\n".join(messages) + "\n", encoding="utf-8")
    # one grep both parses the export (exit 2 and a message on stderr for an expression it
    # cannot read) and matches the examples; in the C locale, as the speed benchmarks run
    # it (a UTF-8 locale's multibyte matching took three times as long, 10 s)
    grep = subprocess.run(
        ["grep", "-v", "-E", "-f", str(out), str(lines)],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
    )
    assert grep.returncode in (0, 1) and not grep.stderr, grep.stderr
    missed = grep.stdout.splitlines()
    assert len(missed) <= len(messages) // 50, missed[:10]  # at most 2%: ERE is a superset
