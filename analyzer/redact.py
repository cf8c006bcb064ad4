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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .lines import ANSI, TEXT_CAP

MASK = "[REDACTED]"
# Characters past a cut that are redacted with the line (longer than any token).
_WINDOW = TEXT_CAP


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


# Characters no output shows: C0 controls but tab, DEL, C1 controls (0x9b is a CSI to
# some terminals), and the bidirectional overrides and isolates that reorder what a
# terminal shows of a line ("Trojan source"). A carriage return becomes a space.
_INVISIBLE = [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0)]
_BIDI = [0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_DROP = {c: None for c in [*_INVISIBLE, *_BIDI]} | {0x0D: " "}
_ESCAPE = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in [*_INVISIBLE, *_BIDI, 0x0D]}


def printable(text: str) -> str:
    """The text without terminal escapes or control characters: a log line may hold an
    OSC 52 clipboard write, a hyperlink or a window title, and a report printed to a
    terminal (or pasted into one) must not run them."""
    if text.isprintable():
        return text
    return ANSI.sub("", text).translate(_DROP)


def _secrets(text: str) -> str:
    hits = _triggers().Match(text.encode("utf-8", "surrogatepass"))
    if not hits:
        return text
    for i in sorted(hits):
        rule = _RULES[i]
        text = rule.pattern.sub(rule.replacement, text)
    return text


def redact(text: str) -> str:
    """The line, printable, with every secret-looking value replaced by [REDACTED].
    Escapes go first: `\\x1b[33mhf_...` must look like the token it is."""
    return _secrets(printable(text))


def shown(text: str, secrets: bool = True, cap: int = TEXT_CAP) -> str:
    """A line as it leaves the engine: printable, redacted (unless `secrets` is False),
    then cut to `cap` characters. Redacting before the cut: a token that starts just
    before the cut would otherwise be half shown, its start too short to recognise."""
    text = text[: cap + _WINDOW]
    return (redact(text) if secrets else printable(text))[:cap]


# What a wrapped token's second half looks like at the start of the next line.
_WRAPPED = re.compile(r"^(\s{0,8})[A-Za-z0-9+/=_.~%-]{8,}(?=\s|$)")


def redact_lines(lines: Iterable[str], secrets: bool = True) -> tuple[str, ...]:
    """Consecutive lines as shown: each line by shown(), and where a line ends in a
    redacted value, the next line's leading run of token characters is redacted too (a
    terminal or logger that wraps at a width splits a token over two lines)."""
    out: list[str] = []
    for line in lines:
        text = shown(line, secrets)
        if secrets and out and out[-1].endswith(MASK):
            text = _WRAPPED.sub(rf"\1{MASK}", text)
        out.append(text)
    return tuple(out)


def label(name: str, secrets: bool = True) -> str:
    """A file or member name as every output shows it: bytes that are not UTF-8 (the
    file system's surrogate escapes) and control characters as backslash escapes, so a
    name can neither forge a report line nor reach the terminal, nor fail a strict
    UTF-8 writer; secrets redacted unless `secrets` is False (a presigned URL saved as
    a file name holds its signature)."""
    if not name.isprintable():
        name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        name = name.translate(_ESCAPE)
    return _secrets(name) if secrets else name
