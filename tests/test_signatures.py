"""Loader validation, and every signature's examples run as tests on every engine."""

from __future__ import annotations

import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import DEMO_PATTERNS

from analyzer.analysis import Settings
from analyzer.rules import automaton, signatures
from analyzer.rules.automaton import available_engines
from analyzer.rules.matcher import Matcher, kind_of
from analyzer.rules.signatures import KEY_ORDER, load_patterns
from analyzer.types import PatternError

BUILTIN = load_patterns()
_MATCHERS = {e: Settings(engine=e).matcher() for e in available_engines()}


def _example_cases() -> list[tuple[str, str, int]]:
    return [
        (engine, s.id, i)
        for engine in _MATCHERS
        for s in BUILTIN.signatures
        for i in range(len(s.examples))
    ]


@pytest.mark.parametrize(("engine_name", "sig_id", "index"), _example_cases())
def test_builtin_example(engine_name: str, sig_id: str, index: int) -> None:
    """One test per example line of every built-in signature, on every backend."""
    matcher = _MATCHERS[engine_name]
    sig = BUILTIN.get(sig_id)
    assert sig is not None
    ex = sig.examples[index]
    got = {s.id: caps for s, caps in matcher.match_line(ex["log"])[0]}
    if ex["match"]:
        assert sig_id in got, f"should match: {ex['log']}"
        want = {k: str(v) for k, v in (ex.get("captures") or {}).items()}
        assert got[sig_id] == want, "captures must be asserted exactly"
        others = {
            o
            for o in set(got) - {sig_id} - set(sig.overlaps)
            if kind_of(BUILTIN.get(o)) == kind_of(sig)  # type: ignore[arg-type]
        }
        assert not others, f"collides with {sorted(others)}"
    else:
        assert sig_id not in got, f"should not match: {ex['log']}"


def test_catalogue_covers_every_category() -> None:
    from analyzer.rules.taxonomy import CATEGORIES

    covered = {s.category for s in BUILTIN.signatures if s.role == "cause"} | {
        s.category for s in BUILTIN.signatures
    }
    missing = set(CATEGORIES) - covered - {"unknown"}
    assert not missing, f"no signature for {sorted(missing)}"
    assert len(BUILTIN.signatures) >= 400


def test_every_builtin_file_is_one_family_with_prefixed_ids() -> None:
    for f in BUILTIN.files:
        doc = yaml.safe_load(Path(f).read_text(encoding="utf-8"))
        prefix = doc["family"].replace("_", "-") + "-"
        assert all(s["id"].startswith(prefix) for s in doc["signatures"]), f


def _write(tmp_path: Path, body: dict) -> Path:  # type: ignore[type-arg]
    d = tmp_path / "pats"
    d.mkdir(exist_ok=True)
    (d / "mine.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return d


def _sig(**over: object) -> dict:  # type: ignore[type-arg]
    base = yaml.safe_load((DEMO_PATTERNS / "demo.yaml").read_text(encoding="utf-8"))["signatures"][
        0
    ]
    base = dict(base, id="mine-oom")
    base.update(over)
    return {k: v for k, v in base.items() if v is not None}


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"category": "gpu_oom"}, "category: 'gpu_oom' is not a taxonomy category"),
        ({"role": "root"}, "role: must be one of"),
        ({"title": None}, "title: missing"),
        ({"id": "other-oom"}, "id: must start with the family prefix 'mine-'"),
        ({"match": ["(?<=x)CUDA"]}, "lookaround is not allowed"),
        ({"match": ["(a)\\1"]}, "backreference is not allowed"),
        ({"match": ["(?s)CUDA"]}, "only a leading '(?i)'"),
        ({"match": ["x*"]}, "matches the empty string"),
        ({"match": ["CUDA out of memory(?: \\w+)+ x"]}, "nested quantifiers"),
        ({"match": ["CUDA out of memory.{0,5000}x"]}, "RE2 cannot run"),
        ({"match": ["(?P<a>\\d+).*(?P<b>\\d+)"]}, "unbounded '.*' between two captures"),
        ({"literals": ["nowhere"]}, "literals: no literal occurs in the positive example"),
        ({"description": "text"}, "description: needs the heading(s)"),
        ({"message": "{nope}"}, "placeholder {nope} is not a named capture"),
        (
            {"match": ["CUDA out of memory", "never in any example"], "message": None},
            "no positive example exercises",
        ),
        ({"bogus": 1}, "bogus: unknown field"),
        ({"recovery": "reboot"}, "recovery: 'reboot' is not a recovery id"),
    ],
)
def test_invalid_signatures_name_file_id_and_field(tmp_path: Path, over: dict, needle: str) -> None:  # type: ignore[type-arg]
    d = _write(tmp_path, {"family": "mine", "signatures": [_sig(**over)]})
    with pytest.raises(PatternError) as e:
        load_patterns([d], builtin=False)
    assert str(d / "mine.yaml") in str(e.value)
    assert needle in str(e.value)


def test_examples_need_a_positive_and_a_negative(tmp_path: Path) -> None:
    sig = _sig()
    sig["examples"] = [e for e in sig["examples"] if e["match"]]
    d = _write(tmp_path, {"family": "mine", "signatures": [sig]})
    with pytest.raises(PatternError, match="at least one positive and one negative"):
        load_patterns([d], builtin=False)


def test_user_id_clash_needs_override(tmp_path: Path) -> None:
    victim = BUILTIN.signatures[0]
    d = _write(tmp_path, {"family": victim.family, "signatures": [_sig(id=victim.id)]})
    with pytest.raises(PatternError, match=r"clashes with .*add 'override: true'"):
        load_patterns([d])
    # Between two user folders there is nothing to override: always an error.
    d2 = _write(tmp_path, {"family": "demo", "signatures": [_sig(id="demo-oom", override=True)]})
    with pytest.raises(PatternError, match="clashes with"):
        load_patterns([DEMO_PATTERNS, d2], builtin=False)


def test_user_override_replaces_builtin(tmp_path: Path) -> None:
    victim = BUILTIN.signatures[0]
    fam = victim.family
    d = _write(tmp_path, {"family": fam, "signatures": [_sig(id=victim.id, override=True)]})
    pset = load_patterns([d])
    got = pset.get(victim.id)
    assert got is not None and got.source == str(d / "mine.yaml")
    assert len(pset.signatures) == len(BUILTIN.signatures)


def test_invalid_yaml_is_a_pattern_error(tmp_path: Path) -> None:
    d = tmp_path / "p"
    d.mkdir()
    (d / "x.yaml").write_text("family: [unclosed\n")
    with pytest.raises(PatternError, match="invalid YAML"):
        load_patterns([d], builtin=False)


def test_demo_examples_pass_on_every_engine(engine: str) -> None:
    from analyzer.rules.matcher import run_examples

    checked, failures = run_examples(Matcher(load_patterns([DEMO_PATTERNS], builtin=False), engine))
    assert checked == 16
    assert failures == []


def test_every_regex_stays_fast_on_a_pathological_64k_line() -> None:
    """A generous budget (100x the usual time), so a noisy machine cannot fail it but a
    backtracking regex does. Each regex sees its own examples repeated without a newline,
    the input most likely to make it retry at every position."""
    import re
    import time

    slow = []
    for s in BUILTIN.signatures:
        seed = "".join(e["log"] for e in s.examples) or "x"
        line = (seed * (65536 // len(seed) + 1))[:65536]
        for rx in s.match:
            c = re.compile(rx, re.ASCII)
            t = time.perf_counter()
            c.search(line + "\x00")
            elapsed = time.perf_counter() - t
            if elapsed > 0.5:
                slow.append(f"{s.id}: {elapsed:.2f}s {rx}")
    assert not slow, "\n".join(slow)


def test_builtin_files_use_the_canonical_key_order() -> None:
    """One layout for every signature, so files read and diff alike."""
    for f in BUILTIN.files:
        doc = yaml.safe_load(Path(f).read_text(encoding="utf-8"))
        assert list(doc)[:2] == ["family", "vendor"], f
        for sig in doc["signatures"]:
            keys = list(sig)
            assert keys == sorted(keys, key=KEY_ORDER.index), f"{f}: {sig['id']}: {keys}"


def test_validated_files_are_cached_and_equal(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HA_ANALYZE_CACHE", str(tmp_path))
    first = load_patterns([DEMO_PATTERNS], builtin=False)
    assert list(tmp_path.glob("patterns-*.json"))
    second = load_patterns([DEMO_PATTERNS], builtin=False)
    assert second.signatures == first.signatures
    for f in tmp_path.glob("patterns-*.json"):
        f.write_text("not json")
    assert load_patterns([DEMO_PATTERNS], builtin=False).signatures == first.signatures


@pytest.mark.parametrize(
    "rx",
    [r"(a+)+b", r"(\w+\s?)+$", r"(.*a){12}", r"((ab)*)+c", r"(\d+)*\."],
    ids=["a-plus-plus", "word-space", "dot-star-counted", "nested-star", "digits-star"],
)
def test_known_redos_user_patterns_are_refused_by_name(tmp_path: Path, rx: str) -> None:
    sig = _sig(id="mine-redos", match=["CUDA out of memory" + rx], message=None)
    d = _write(tmp_path, {"family": "mine", "signatures": [sig]})
    with pytest.raises(PatternError) as e:
        load_patterns([d], builtin=False)
    assert "mine-redos" in str(e.value)
    assert "backtrack" in str(e.value) or "not allowed" in str(e.value) or "empty" in str(e.value)


def test_polynomial_backtracking_patterns_run_in_linear_time(tmp_path: Path) -> None:
    """`.*a.*a.*c` has no nested quantifier, so no load-time check refuses it, yet Python's
    re needs O(n^3) steps to fail on a line of a's: minutes at a thousand characters.
    The exact check runs on RE2, so a 200 KB hostile line costs milliseconds. The
    subprocess timeout is a hang guard, far above any normal run, not a speed check.
    """
    sig = _sig(
        id="mine-poly",
        match=[r"CUDA out of memory\. Tried.*a.*a.*b"],
        exclude=[r".*a.*a.*c"],
        message=None,
        examples=[
            {"log": "CUDA out of memory. Tried a a b", "match": True},
            {"log": "CUDA out of memory. Tried a a c b", "match": False},
        ],
    )
    d = _write(tmp_path, {"family": "mine", "signatures": [sig]})
    log = tmp_path / "hostile.log"
    log.write_text("CUDA out of memory. Tried " + "a" * 200_000 + "b\n", encoding="ascii")
    code = (
        "import sys; from analyzer import analyze; "
        f"v = analyze([{str(log)!r}], patterns=[{str(d)!r}], builtin_patterns=False); "
        "print(v.category)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.strip() == "device_oom", done.stderr


def test_a_user_signature_an_installed_engine_refuses_is_refused_at_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert automaton.refusal(r"CUDA out of memory\. Tried to allocate (?P<size>\S+)") is None
    # no regex the loader accepts is known to fail on an installed engine: simulate one
    refused = "Tried to allocate"
    monkeypatch.setattr(
        signatures,
        "refusal",
        lambda rx: "Hyperscan cannot compile it: too large" if refused in rx else None,
    )
    with pytest.raises(PatternError, match=r"demo\.yaml: demo-oom: match: Hyperscan cannot"):
        load_patterns([DEMO_PATTERNS], builtin=False)


@pytest.mark.parametrize("key", ["raised_in", "raised_between"])
@pytest.mark.parametrize(
    "raised_in, why",
    [
        ({"not_a_category": "load"}, "not a taxonomy category"),
        ({"checkpoint_corrupt": ""}, "non-empty regex"),
        ("load_checkpoint", "must be a mapping"),
        ({"environment_error": "(?!x)y"}, "lookaround is not allowed"),
    ],
)
def test_raised_in_is_validated(tmp_path: Path, key: str, raised_in: object, why: str) -> None:
    doc = yaml.safe_load(
        """
family: demo
signatures:
  - id: demo-error
    title: t
    category: user_code_error
    role: cause
    severity: error
    blame: user
    literals: [Boom]
    match: ['^Boom: ']
    description: |
      ### What it matches
      x
      ### Why it happens
      x
      ### What to do
      x
    references: ['https://example.com']
    examples:
      - {log: 'Boom: x', match: true}
      - {log: 'no', match: false}
"""
    )
    doc["signatures"][0][key] = raised_in
    f = tmp_path / "demo.yaml"
    f.write_text(yaml.safe_dump(doc))
    with pytest.raises(PatternError, match=why):
        load_patterns([str(f)], builtin=False)


def test_every_deciding_signature_has_its_message_in_chinese() -> None:
    """Issue 17, point 7: `--lang zh` summaries quote the signature's message; every
    built-in signature that can decide has one in Chinese, with the same placeholders."""

    def names(text: str) -> list[str]:
        return sorted(n for _, n, _, _ in string.Formatter().parse(text) if n)

    for sig in load_patterns().signatures:
        if sig.role == "progress":
            continue
        assert re.search(r"[\u4e00-\u9fff]", sig.message_zh), sig.id
        assert names(sig.message_zh) == names(sig.message), sig.id
