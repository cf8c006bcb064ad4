"""Secrets out of evidence: verdicts are pasted into tickets and chat.

Training logs print environments and config dumps, so tokens and keys sit next to the
errors. Every line that leaves the engine (evidence, context, findings) goes through
`redact()` first, unless the caller asks for raw lines (`--no-redact`). Matching runs on
the raw line, so redaction never changes a verdict.
"""

from __future__ import annotations

import re

MASK = "[REDACTED]"

# (pattern, replacement): specific token formats first, then key=value forms.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # private key blocks: the marker line and base64 body lines
    (
        re.compile(r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----.*"),
        f"-----BEGIN PRIVATE KEY----- {MASK}",
    ),
    (re.compile(r"^(\s*)(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])[A-Za-z0-9+/]{60,}={0,2}$"), rf"\1{MASK}"),
    # credentials in URLs: scheme://user:password@host
    (
        re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^/\s:@]{1,256}):[^/\s@]{1,256}@"),
        rf"\1:{MASK}@",
    ),
    # AWS access key ids (AKIA long-term, ASIA temporary, ...)
    (re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b"), MASK),
    # Hugging Face, GitHub, GitLab, Slack and OpenAI-style tokens
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"), MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"), MASK),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b"), MASK),
    (re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}\b"), MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{20,}\b"), MASK),
    # Authorization headers
    (re.compile(r"(?i)\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/-]{8,}=*"), rf"\1 {MASK}"),
    # key=value, key: value, "key": "value" for secret-looking keys, including the
    # Huawei Cloud / OBS AK-SK and AWS secret forms (HUAWEICLOUD_SDK_SK=..., OBS_SK=...)
    (
        re.compile(
            r"(?i)(\b[\w.-]{0,40}(?:password|passwd|pwd|token|secret|api[_-]?key|apikey|"
            r"access[_-]?key(?:[_-]?id)?|private[_-]?key|credential|_ak|_sk)\b[\"']?\s*[=:]\s*[\"']?)"
            r"([^\s\"',;}]{3,})"
        ),
        rf"\1{MASK}",
    ),
)


def redact(text: str) -> str:
    """The line with every secret-looking value replaced by [REDACTED]."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text
