"""One recovery answer (issue 35): for every job of the corpora, the verdict's `recovery`
and `retryable` agree, and where a restart controller (`decide`, default policy) acts
otherwise the text output shows that decision and why, above the recovery
(`conftest.one_answer`; the failure excerpts and first-look cases are checked by their
own per-case tests, which analyse them anyway)."""

from __future__ import annotations

import re
import sys

from conftest import REPO, one_answer

from analyzer import Settings, analyze

sys.path.insert(0, str(REPO / "benchmarks"))
from verdicts import jobs

# analysed, and checked the same way, by their own per-case tests
# (tests/test_failures_corpus.py, tests/test_firstlook_corpus.py)
_OWN_TESTS = ("corpora/failures/", "corpora/firstlook/")


def test_every_corpus_job_gives_one_answer() -> None:
    checked = differ = 0
    for name, path, failed in jobs():
        if name.startswith(_OWN_TESTS):
            continue
        v = analyze(path, Settings(failed=failed, model=False))
        checked += 1
        differ += one_answer(name, v)
    assert checked > 150 and differ > 0  # the corpora hold guesses a controller restarts


def test_readme_s_controller_examples_act_on_the_decision() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    acting = [b for b in blocks if "cordon(" in b]
    assert acting and all("decide(Attempt.of(verdict)" in b for b in acting)
    assert not any('verdict.recovery == "isolate' in b for b in blocks)
