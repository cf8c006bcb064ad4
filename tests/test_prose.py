"""Every sentence for a person is in one table (analyzer.sinks.prose), in both languages,
and a verdict's summary is the sentences of its reasons."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from conftest import REPO

from analyzer import analyze
from analyzer.rules.taxonomy import CATEGORIES, RECOVERIES
from analyzer.sinks.prose import TEXT, category_name, recovery_meaning, say

PACKAGE = REPO / "analyzer"
_CJK = re.compile(r"[\u4e00-\u9fff]")
# modules whose Chinese is log text they match, not words they say: a secret's name
# (密码) the redactor looks for, an error word (错误) the error region knows
_MATCHES_CHINESE = {"analyzer/read/redact.py", "analyzer/unknowns/region.py"}


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("code", sorted(TEXT))
def test_chinese_says_nothing_the_english_does_not_know(code: str) -> None:
    """The Chinese may leave a value out (a detail its sentence does not need), never
    name one the English is not given: both render from the same values."""
    en, zh = TEXT[code]
    assert _fields(zh) <= _fields(en), code


def test_no_other_module_holds_chinese_words() -> None:
    found = [
        str(p.relative_to(REPO))
        for p in PACKAGE.rglob("*.py")
        if p.name != "prose.py"
        and str(p.relative_to(REPO)) not in _MATCHES_CHINESE
        and _CJK.search(p.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_source_check_can_fail() -> None:
    assert _CJK.search('summary = "作业卡死"') and not _CJK.search("summary = 'hung'")
    assert _fields("{a} and {b:.2f}") == {"a", "b"}


def test_every_id_has_a_name_in_both_languages() -> None:
    for c in [*CATEGORIES, "none"]:
        assert category_name(c) and _CJK.search(category_name(c, "zh")), c
    for r in RECOVERIES:
        assert say(f"recovery.{r}") and _CJK.search(say(f"recovery.{r}", "zh")), r
        assert recovery_meaning(r).endswith(".") and recovery_meaning(r, "zh").endswith("。")


def _job(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rank0.log").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_verdicts_summary_is_its_reasons_said(tmp_path: Path, lang: str) -> None:
    """The summary is the sentences of the verdict's reasons, in order: a program reads
    the codes, a person the words."""
    job = _job(
        tmp_path / "oom",
        "2026-03-01 10:00:00 INFO step 1 loss 2.0\n"
        "2026-03-01 10:00:05 ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to "
        "allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB\n",
    )
    v = analyze(job, lang=lang)
    assert v.reasons[0] == "found", v.reasons
    assert all(f"reason.{r}" in TEXT for r in v.reasons)
    healthy = analyze(
        _job(tmp_path / "ok", "2026-03-01 10:00:00 INFO step 1 loss 2.0\n"), lang=lang
    )
    assert healthy.reasons == ("healthy",)
    assert healthy.summary == say("reason.healthy", lang)
    assert v.to_dict()["reasons"] == list(v.reasons)


def _top_reasons() -> set[str]:
    """The reason codes a verdict may carry: `reason.*` entries that are not a part of
    another (`reason.found.where` is a part of `reason.found`)."""
    codes = {k for k in TEXT if k.startswith("reason.")}
    return {k.removeprefix("reason.") for k in codes if k.rsplit(".", 1)[0] not in codes}


def test_readme_names_every_reason_and_why() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    said = readme[readme.index("`reasons` are the codes") :][:1200]
    assert {r for r in _top_reasons() if f"`{r}`" not in said} == set()
    whys = {
        k.removeprefix("policy.") for k in TEXT if k.count(".") == 1 and k.startswith("policy.")
    }
    assert {w for w in whys if f"`{w}`" not in readme} == set()
