"""One recovery answer (issue 35): for every job of the corpora, the verdict's `recovery`
and `retryable` agree, and where a restart controller (`decide`, default policy) acts
otherwise the text output shows that decision and why, above the recovery."""

from __future__ import annotations

import re
import sys

import click
from conftest import REPO

from analyzer import Settings, analyze
from analyzer.ops.history import Attempt
from analyzer.ops.policy import decide
from analyzer.sinks.text import render

sys.path.insert(0, str(REPO / "benchmarks"))
from verdicts import jobs


def test_every_corpus_job_gives_one_answer() -> None:
    checked = differ = 0
    for name, path, failed in jobs():
        v = analyze(path, Settings(failed=failed, model=False))
        checked += 1
        if v.recovery == "fix_and_resubmit":
            assert v.retryable is False, name
        elif v.recovery != "none":
            assert v.retryable is not False, (name, v.recovery)
        d = decide(Attempt.of(v))
        text = click.unstyle(render(v))
        if d.recovery != v.recovery:
            differ += 1
            said = f"would {d.action} ({d.recovery}, exit {d.exit_code})"
            assert said in " ".join(text.split()), (name, d)
    assert checked > 500 and differ > 0  # the corpora hold guesses a controller restarts


def test_readme_s_controller_examples_act_on_the_decision() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    acting = [b for b in blocks if "cordon(" in b]
    assert acting and all("decide(Attempt.of(verdict)" in b for b in acting)
    assert not any('verdict.recovery == "isolate' in b for b in blocks)
