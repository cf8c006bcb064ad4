"""Property-based tests: no input makes a stage raise, and results are deterministic.

CI runs a bounded number of examples; a long run is:
    HYPOTHESIS_PROFILE=long python3 -m pytest tests/test_fuzz.py
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer import analyze
from analyzer.read.lines import clean, parse_time, strip_prefix
from analyzer.read.redact import redact
from analyzer.rules.formats import builtin

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("long", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Log-like text: the characters logs are made of, plus control and non-ASCII ones.
log_text = st.text(
    alphabet=st.sampled_from(list("0123456789:-.,[]() _=/|abcdefrankERROR\r\t\x1b\x00é磁")),
    max_size=300,
)
log_bytes = st.binary(max_size=4000) | log_text.map(lambda t: t.encode("utf-8", "surrogatepass"))


@given(log_text)
def test_line_stages_never_raise(text: str) -> None:
    for segment in clean(text):
        msg = strip_prefix(segment)
        builtin().claims_of(msg.text)
        parse_time(segment, 2026)
        assert redact(redact(segment)) == redact(segment)  # idempotent


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(log_bytes, min_size=1, max_size=4))
def test_analyze_never_raises_and_is_deterministic(tmp_path: Path, blobs: list[bytes]) -> None:
    job = tmp_path / f"job{abs(hash(tuple(blobs)))}"
    job.mkdir(exist_ok=True)
    for i, blob in enumerate(blobs):
        (job / f"rank_{i}.log").write_bytes(blob)
    first, second = analyze(job).to_dict(), analyze(job).to_dict()
    for v in (first, second):
        v["stats"].pop("seconds")
    assert first == second
    skipped = set(first["stats"]["skipped"])
    expected = sum(b.count(b"\n") for i, b in enumerate(blobs) if f"rank_{i}.log" not in skipped)
    assert first["stats"]["lines"] == expected  # wc -l of everything that was read


# Timestamp headers of every format, with noise before and after: what the clock-first
# search must find exactly as the full alternation does.
stamps = st.sampled_from(
    [
        "2026-11-29 10:00:01,123",
        "2026-11-29T10:00:01.5+08:00",
        "2026-11-29-10:00:01.123.456",
        "I1129 10:00:01.123456",
        "Tue Nov 10 10:05:04 2020",
        "Nov 29 10:00:01",
        "[12345.678901]",
        "1764410401.5",
        "CRITICAL 05-12 10:00:01",
        "10:00:01",
        "",
    ]
)


@given(log_text, stamps, log_text)
def test_the_clock_first_search_finds_what_the_full_search_finds(
    before: str, stamp: str, after: str
) -> None:
    from analyzer.rules.formats import _TS_WINDOW, _stamp, builtin

    compiled = builtin()._stamps
    assert compiled is not None
    rx = compiled[0]
    for text in (before[:30] + stamp + after, stamp + after, before + stamp):
        full, fast = rx.search(text, 0, _TS_WINDOW), _stamp(rx, text)
        assert (full and (full.span(), full.group(0))) == (fast and (fast.span(), fast.group(0)))


secret_text = st.text(
    alphabet=st.sampled_from(
        list("AKIASbcdefhxo_-:/@=\"' \t\v\u00a0\u2003ĸK0123456789+ghpstokenpasswordsecret")
    ),
    max_size=200,
) | st.sampled_from(
    [
        "  " + "AbCd0123" * 9,
        "\v" + "AbCd0123" * 9 + "==",
        "password:\u2003hunter22",
        "password\u3000= hunter22",  # Python's \s is Unicode's; RE2's is ASCII
        "api_key\u00a0\u2028: abcdef12",
        "OBS_SK' => 'abcdefgh",
        "https://user:p4ss@host/x",
        "Authorization: BEARER abcdefghijkl",
        "OBS_SK=abcdefgh",
        "-----BEGIN RSA PRIVATE KEY----- MIIE",
        "pa\u017f\u017fword=hunter22",  # Python's (?i) folds long s and the Kelvin sign
        "api_\u212aey=abcdef12",
    ]
)


@given(secret_text)
def test_every_redaction_rule_is_tried_wherever_it_matches(text: str) -> None:
    """A trigger is a superset of its rule: a rule that could match is never skipped."""
    from analyzer.read.redact import _RULES, _triggers

    tried = set(_triggers().Match(text.encode("utf-8", "surrogatepass")) or ())
    for i, rule in enumerate(_RULES):
        if rule.pattern.search(text):
            assert i in tried, (rule.trigger, text)
