"""Raw line bytes -> text the signatures see, plus what a line says about time and rank.

Only lines the automaton hit (and a few sampled lines per block) come through here, so
these functions may use Python regexes freely; they never run over every line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..rules.formats import Fields, Formats
from ..rules.formats import builtin as builtin_formats
from ..types import LogTime

ANSI = re.compile(
    r"\x9b[0-?]*[ -/]*[@-~]|\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])"
)

TEXT_CAP = 4096  # characters of a line kept as evidence
# bytes of a line decoded to show it: enough for redact.shown to redact past the cut
SHOWN_BYTES = 3 * TEXT_CAP
# the header of a Python traceback (the exception line that closes it follows)
TRACEBACK = "Traceback (most recent call last):"


def decode(raw: bytes) -> str:
    """UTF-8, else GB18030 (CANN and Chinese locales), else UTF-8 with replacements."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start >= len(raw) - 3 and e.reason == "unexpected end of data":
            return raw[: e.start].decode("utf-8")  # a line cut inside its last character
    try:
        return raw.decode("gb18030")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


@dataclass(frozen=True)
class Message:
    """A line as the signatures see it: its launcher prefixes removed, and what they
    said (fields of analyzer.rules.formats: rank, local_rank, task, host, pid)."""

    text: str
    prefix: Fields


def clean(raw: str) -> list[str]:
    """Strip ANSI escapes and split tqdm-style carriage-return redraws into segments.

    Only the segments that carry text are kept, so a progress bar redrawn 500 times on one
    physical line does not hide the error printed after its last redraw.
    """
    text = ANSI.sub("", raw).rstrip("\r\n")
    if "\r" not in text:
        return [text]
    return [s for s in text.split("\r") if s.strip()] or [""]


def strip_prefix(text: str, formats: Formats | None = None) -> Message:
    """Remove launcher and collector prefixes (stacked); return what they name."""
    rest, found = (formats or builtin_formats()).strip(text)
    return Message(rest, found)


def message_of(raw: str, formats: Formats | None = None) -> str:
    """A raw line's message as the signatures see its last segment: ANSI escapes gone,
    tqdm's redraws split (the last one speaks), launcher prefixes removed."""
    segments = clean(raw)
    return strip_prefix(segments[-1] if segments else "", formats).text


# --- timestamps ---------------------------------------------------------------------


def parse_time(text: str, year: int, formats: Formats | None = None) -> LogTime | None:
    """The first timestamp in a line's header, by the timestamp forms of `formats` (the
    job's; default the built-in ones: patterns/formats/formats.yaml, `timestamps:`).

    `year` fills forms that carry none (glog, syslog): the caller passes the year of a
    full timestamp seen elsewhere in the job, so that mixed formats still order correctly.
    """
    return (formats or builtin_formats()).time(text, year)


def has_year(text: str, formats: Formats | None = None) -> int | None:
    """The year of a full-date timestamp in the line, used to anchor year-less formats."""
    return (formats or builtin_formats()).year(text)


_QUOTE_WINDOW = 4096
_CLOSING = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
# What may stand before a quote that the framework itself writes: nothing (the whole
# message is quoted), a key (`Message: "`, `"reason": "`, `(message='`, `reason="`), a
# bracket, comma or arrow (JSON, klog's `file.go:12] "msg"`, `=> "`), an exception's repr
# (`RuntimeError('CUDA error: ...')`, as Ray reports it). Prose before a quote is a
# person quoting: `skipping known issue: "...`, `retry on '...`.
# Where a quotation is the line's own message, not text it quotes: at the start of the
# message, after a framework's bracket (klog's `] "..."`), inside an exception's repr
# (`RuntimeError('...')`), an assignment (logfmt's `err="..."`), and as the value of a
# record's MESSAGE key (JSON-lines `"msg":`, Kubernetes' `Message:`, a platform's
# `"overview":`). Any other key's value (a dataset sample's `'text':`, a JSON record's
# `"sample":`) is data the program printed.
_MESSAGE_KEYS = (
    r"msg|message|log|error|err|exception|exc|event|reason|detail|details|what|overview"
    r"|methodName"
)
_OWN_QUOTE = re.compile(
    rf"""(?:^|[>\]=]|(?:^|[{{,(\[\s])["']?(?i:{_MESSAGE_KEYS})["']?\s*:|[A-Za-z](?:Error|Exception|Exit|Warning)\()\s*$"""
)


def quoted(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] sits inside a quotation the line opens itself.

    `logger.info(f'retry on "{msg}"')` quotes a failure message without the failure
    happening; a signature that fires on it would send a healthy node to isolation.
    An apostrophe inside a word (can't) is not a quote. Only the first 4 KiB are read:
    a quoting print is short, and a megabyte line must not cost a character loop.
    """
    if start > _QUOTE_WINDOW:
        return False
    # A match that begins with an opening quote (`\S+: page allocation failure`) is inside
    # it too, unless the regex itself spans a quoted token of the format (the device
    # plugin's `'nvidia.com/gpu' device marked unhealthy`).
    q = text[start : start + 1]
    if q in _CLOSING:
        inner = text.find(_CLOSING[q], start + 1, end)
        if 0 <= inner < end - 1:
            return False
        start += 1
    opened: tuple[str, int] | None = None
    for i in range(start):
        ch = text[i]
        if opened is not None:
            if ch == _CLOSING[opened[0]] and _closes(text, i):
                opened = None
        elif ch in _CLOSING and (ch != "'" or i == 0 or not text[i - 1].isalnum()):
            opened = (ch, i)
    if opened is None or _OWN_QUOTE.search(text, 0, opened[1]):
        return False
    close = _CLOSING[opened[0]]
    j = text.find(close, start)
    while j != -1 and not _closes(text, j):
        j = text.find(close, j + 1)
    # a match that runs past the closing quote is not inside it (`{'eval_loss': nan}`)
    return j != -1 and j >= end - 1


def _closes(text: str, i: int) -> bool:
    return text[i] != "'" or i + 1 == len(text) or not text[i + 1].isalnum()
