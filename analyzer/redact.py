"""Secrets out of evidence: verdicts are pasted into tickets and chat.

Training logs print environments and config dumps, so tokens and keys sit next to the
errors. Every line that leaves the engine (evidence, context, findings) goes through
`redact()` first, unless the caller asks for raw lines (`--no-redact`). Matching runs on
the raw line, so redaction never changes a verdict.

Cost: one RE2 Set pass over the line says which rules can apply at all (each rule has a
trigger, a linear-time superset of where it matches; ~1 us a line), and only those rules
run. Almost no line holds a secret, so a line costs one DFA pass, not a dozen Python
regexes (~45 us). No rule backtracks more than linearly: a line of spaces or of
base64-looking bytes costs time in proportion to its length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

MASK = "[REDACTED]"


def _mixed_case(m: re.Match[str]) -> str:
    """A long base64 body is a key only if it mixes cases (a hex digest or a row of
    dashes is not)."""
    body = m.group(2)
    if any(c.islower() for c in body) and any(c.isupper() for c in body):
        return m.group(1) + MASK
    return m.group(0)


@dataclass(frozen=True)
class _Rule:
    """`trigger` (RE2 syntax) matches wherever `pattern` can: it is tested first."""

    trigger: str
    pattern: re.Pattern[str]
    replacement: str | Callable[[re.Match[str]], str]


_TOKEN = r"[A-Za-z0-9_-]"
# Specific token formats first, then key=value forms.
_RULES: tuple[_Rule, ...] = (
    # private key blocks: the marker line and base64 body lines
    _Rule(
        r"PRIVATE KEY-----",
        re.compile(r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----.*"),
        f"-----BEGIN PRIVATE KEY----- {MASK}",
    ),
    _Rule(
        r"[A-Za-z0-9+/]{60}",
        re.compile(r"^(\s*)([A-Za-z0-9+/]{60,}={0,2})$"),
        _mixed_case,
    ),
    # credentials in URLs: scheme://user:password@host
    _Rule(
        r"://[^/\s:@]+:[^/\s@]+@",
        re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^/\s:@]{1,256}):[^/\s@]{1,256}@"),
        rf"\1:{MASK}@",
    ),
    # AWS access key ids (AKIA long-term, ASIA temporary, ...)
    _Rule(
        r"(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}",
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b"),
        MASK,
    ),
    # Hugging Face, GitHub, GitLab, Slack and OpenAI-style tokens
    _Rule(r"hf_[A-Za-z0-9]{30}", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), MASK),
    _Rule(r"gh[pousr]_[A-Za-z0-9]{36}", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"), MASK),
    _Rule(r"github_pat_", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"), MASK),
    _Rule(r"glpat-", re.compile(rf"\bglpat-{_TOKEN}{{20,}}\b"), MASK),
    _Rule(r"xox[abpr]-", re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}\b"), MASK),
    _Rule(r"sk-", re.compile(rf"\bsk-{_TOKEN}{{20,}}\b"), MASK),
    # Authorization headers
    _Rule(
        r"(?i)bearer|basic|token",
        re.compile(r"(?i)\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/-]{8,}=*"),
        rf"\1 {MASK}",
    ),
    # key=value, key: value, "key": "value" for secret-looking keys, including the
    # Huawei Cloud / OBS AK-SK and AWS secret forms (HUAWEICLOUD_SDK_SK=..., OBS_SK=...)
    _Rule(
        r"(?i)password|passwd|pwd|token|secret|api[_-]?key|apikey|access[_-]?key|"
        r"private[_-]?key|credential|_ak|_sk",
        re.compile(
            r"(?i)(\b[\w.-]{0,40}(?:password|passwd|pwd|token|secret|api[_-]?key|apikey|"
            r"access[_-]?key(?:[_-]?id)?|private[_-]?key|credential|_ak|_sk)\b[\"']?\s*[=:]\s*[\"']?)"
            r"([^\s\"',;}]{3,})"
        ),
        rf"\1{MASK}",
    ),
)


@cache
def _triggers() -> Any:
    """The rules' triggers as one RE2 Set (built on first use: importing stays cheap)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    triggers = re2.Set.SearchSet(options)
    for rule in _RULES:
        triggers.Add(rule.trigger)
    triggers.Compile()
    return triggers


def redact(text: str) -> str:
    """The line with every secret-looking value replaced by [REDACTED]."""
    hits = _triggers().Match(text.encode("utf-8", "surrogatepass"))
    if not hits:
        return text
    for i in sorted(hits):
        rule = _RULES[i]
        text = rule.pattern.sub(rule.replacement, text)
    return text
