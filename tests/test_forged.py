"""Forged matches: a failure message quoted by user code must not decide a verdict.

Built from the catalogue itself, so every new cause signature is covered: each positive
example's message is put into a healthy training log the way user code talks about
failures (a logged retry rule, a print, a line of prose), and the verdict must stay
`none`. Quoted forms are refused by the quote check (`analyzer.read.lines.quoted`); prose is
caught because the same stream kept training after it (`Collector.survived`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer import analyze
from analyzer.read.lines import clean, parse_time, strip_prefix
from analyzer.rules.formats import builtin
from analyzer.rules.signatures import load_patterns

FORMS = {
    "logged-quote": '2026-11-29 10:00:00,000 - INFO - __main__ - skipping known issue: "{m}"',
    "print-quote": "[rank0]: print: will retry on '{m}'",
    "prose": "INFO:root:docs say {m} means a hardware fault",
}


def _messages() -> list[tuple[str, str]]:
    """(signature id, message) for every cause example a forger could quote cleanly.

    Left out: messages that carry quotes of their own (the quoting is then ambiguous),
    a timestamp (it would move the forged line in time) or a rank (the line would then
    belong to another rank's stream than the training that goes on).
    """
    out = []
    for sig in load_patterns().signatures:
        if sig.role != "cause" or sig.category in ("numerical_error", "hang"):
            continue
        for ex in sig.examples:
            if not ex["match"]:
                continue
            m = strip_prefix(next(iter(clean(ex["log"])))).text.strip()
            if (
                any(q in m for q in "'\"`")
                or parse_time(m, 2026)
                or "rank" in builtin().claims_of(m)
            ):
                continue
            out.append((sig.id, m))
    return out


MESSAGES = _messages()


def test_the_forged_corpus_covers_the_catalogue() -> None:
    assert len({sid for sid, _ in MESSAGES}) >= 200


@pytest.mark.parametrize("form", sorted(FORMS))
def test_quoted_or_talked_about_failures_decide_nothing(tmp_path: Path, form: str) -> None:
    log = tmp_path / "train.log"
    wrong = []
    for sid, message in MESSAGES:
        lines = [f"2026-11-29 10:00:{i:02d},000 - INFO - step {i} loss 1.9" for i in range(1, 6)]
        lines.insert(1, FORMS[form].format(m=message))
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        v = analyze([log])
        if v.category != "none":
            wrong.append(f"{sid}: {v.category}: {message[:100]}")
    assert not wrong, f"{len(wrong)} of {len(MESSAGES)} forged lines decided:\n" + "\n".join(wrong)
