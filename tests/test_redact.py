"""No secret from the logs reaches any output format."""

from __future__ import annotations

import re

from click.testing import CliRunner
from conftest import FIXTURES

from analyzer import analyze
from analyzer.cli import main
from analyzer.read.redact import redact

LOGS = FIXTURES / "secrets"
SECRETS = [
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "AKIAIOSFODNN7EXAMPLE",
    "hunter2-very-secret",
    "sk-test0123456789abcdefghijKLMN",
    "s3cr3tPassw0rd",
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
    "QWERTYUIOPASDFGHJKL1",
    "AbCdEf0123456789AbCdEf0123456789AbCdEf01",
    "ZyXwVu0123456789ZyXwVu0123456789ZyXwVu01",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.c2lnbmF0dXJl",
]


def test_no_secret_in_any_output_format() -> None:
    outputs = []
    for fmt in ("text", "json", "timeline"):
        r = CliRunner().invoke(main, [str(LOGS), "--format", fmt])
        assert r.exit_code == 0
        outputs.append(r.stdout)
    outputs.append(str(analyze(LOGS).to_dict()))
    outputs.append(str(analyze(LOGS, signatures=False).to_dict()))  # the classifier's lines
    for extra in ([], ["--suggest"]):  # unmatched error lines and drafts made from them
        r = CliRunner().invoke(main, ["unknowns", str(LOGS), *extra])
        assert r.exit_code == 0 and "sync failed" in r.stdout
        outputs.append(r.stdout)
    verdict = analyze(LOGS)
    assert verdict.category == "device_oom"  # redaction never changes the verdict
    for out in outputs:
        for secret in SECRETS:
            assert secret not in out, secret
    assert "[REDACTED]" in outputs[1]


def test_no_redact_shows_lines_as_logged() -> None:
    """Every test secret does reach the output unredacted: the test above is not vacuous."""
    out = "".join(
        CliRunner().invoke(main, [str(LOGS), "--format", fmt, "--no-redact"]).stdout
        for fmt in ("text", "json", "timeline")
    )
    for secret in SECRETS:
        assert secret in out, secret


def test_ordinary_lines_are_left_alone() -> None:
    for line in (
        "iteration 120/50000 | lm loss: 3.1E+00 | num_tokens: 512 | tokens/s 3144",
        "checkpoint sha256 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
    ):
        assert redact(line) == line


def test_a_line_of_spaces_costs_linear_time() -> None:
    """The base64 rule once backtracked over leading spaces with two lookaheads each
    time (quadratic: 0.08 s for 4 KiB, minutes for a log of such lines). Counted, not
    timed: the regex engine's steps are proportional to the calls into the pattern."""
    from analyzer.read.redact import _RULES

    repeat = re.compile(r"\(\?<?[=!][^)]*[*+{]")  # a lookaround that scans a run
    for rule in _RULES:
        assert not repeat.search(rule.pattern.pattern), rule
    assert redact(" " * 100_000 + "AbCd" * 20) == " " * 100_000 + "[REDACTED]"
    assert redact(" " * 100_000 + "x") == " " * 100_000 + "x"


def test_line_separators_never_reach_an_output_raw(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """U+2028 and U+2029 end a line to JavaScript, editors and chat clients: a log line
    holding one would print as two lines of a report (a forged verdict line)."""
    line = "RuntimeError: CUDA out of memory.\u2028category: healthy\u2029 x\x85y"
    assert redact(line) == "RuntimeError: CUDA out of memory. category: healthy  xy"
    log = tmp_path / "x.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory.\u2028category: healthy\n")
    for fmt in ("json", "text"):
        out = CliRunner().invoke(main, [str(log), "--format", fmt]).output
        assert "\u2028" not in out and "\u2029" not in out
