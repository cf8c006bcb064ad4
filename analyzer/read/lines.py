"""Raw line bytes -> text the signatures see, plus what a line says about time and rank.

Only lines the automaton hit (and a few sampled lines per block) come through here, so
these functions may use Python regexes freely; they never run over every line.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ..rules.formats import Fields, Formats
from ..rules.formats import builtin as builtin_formats
from ..types import LogTime

ANSI = re.compile(
    r"\x9b[0-?]*[ -/]*[@-~]|\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])"
)

_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
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


# --- timestamps -----------------------------------------------------------------------

_TS = re.compile(
    # ISO-8601 / Python logging: 2026-11-29T10:00:01.123+08:00, 2026-11-29 10:00:01,123;
    # MMEngine and many others: 2026/11/29 10:00:01
    r"(?P<iso>(?P<Y>\d{4})(?P<sep>[-/])(?P<M>\d\d)(?P=sep)(?P<D>\d\d)"
    r"[T ](?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d)"
    r"(?:[.,](?P<f>\d{1,9}))?(?P<z>Z|[+-]\d\d:?\d\d)?)"
    # CANN plog: 2026-11-29-10:00:01.123.456
    r"|(?P<plog>(?P<pY>\d{4})-(?P<pM>\d\d)-(?P<pD>\d\d)-(?P<ph>\d\d):(?P<pm>\d\d):(?P<ps>\d\d)"
    r"(?:\.(?P<pms>\d{3})(?:\.(?P<pus>\d{3}))?)?)"
    # glog: I1129 10:00:01.123456 (no year); torch's c10 logging does not pad the month
    # (E218 10:48:25 is 18 February)
    r"|(?P<glog>\b[IWEF](?P<gM>1[0-2]|0?[1-9])(?P<gD>\d\d) (?P<gh>\d\d):(?P<gm>\d\d):(?P<gs>\d\d)"
    r"(?:\.(?P<gf>\d{1,9}))?)"
    # ctime: Tue Nov 10 10:05:04 2020
    r"|(?P<ctime>\b[A-Z][a-z]{2} (?P<cMon>[A-Z][a-z]{2}) +(?P<cD>\d{1,2}) "
    r"(?P<ch>\d\d):(?P<cm>\d\d):(?P<cs>\d\d) (?P<cY>\d{4}))"
    # syslog: Nov 29 10:00:01 (no year)
    r"|(?P<syslog>\b(?P<sMon>[A-Z][a-z]{2}) +(?P<sD>\d{1,2}) "
    r"(?P<sh>\d\d):(?P<sm>\d\d):(?P<ss>\d\d)\b)"
    # dmesg: [12345.678901] (seconds since boot)
    r"|(?P<dmesg>^\[ *(?P<up>\d{1,9}\.\d{6})\])"
    # epoch seconds at the start of a line: 1764410401 or 1764410401.123
    r"|(?P<epoch>^(?P<ep>1[0-9]{9})(?:\.(?P<epf>\d{1,6}))?\b)"
)

# Only the first part of a line is searched: timestamps sit in the header.
_TS_WINDOW = 160
# Every form but the two anchored at the line start (dmesg, epoch) has a clock after a
# `T`, a space or a dash, and its date stands at most _LEAD characters before it. The
# alternation above costs ~20 us on a line without a timestamp (it is tried at every
# position); finding the clock first and searching only around it costs ~1 us, and step
# lines, rank-prefixed lines and tqdm bars (`[00:01<298:41:58`) carry no time.
_CLOCK = re.compile(r"(?<![\d:])\d\d:\d\d:\d\d")
_LEAD = 40
_TRAIL = 32  # a match ends at most 24 characters after its clock starts (fraction, zone)


def _stamp(text: str) -> re.Match[str] | None:
    """The first timestamp of the header: what `_TS.search(text, 0, _TS_WINDOW)` finds."""
    m = _TS.match(text, 0, _TS_WINDOW)
    if m is not None:
        return m
    for clock in _CLOCK.finditer(text, 0, _TS_WINDOW):
        c = clock.start()
        if c > 1 and text[c - 1] in "T -":
            m = _TS.search(text, max(1, c - _LEAD), min(_TS_WINDOW, c + _TRAIL))
            if m is not None:
                return m
    return None


def _frac(digits: str | None) -> float:
    return int(digits) / 10 ** len(digits) if digits else 0.0


def _epoch(
    year: int,
    month: int,
    day: int,
    h: int,
    m: int,
    s: int,
    frac: float,
    zone: str | None = None,
    inferred: bool = False,
) -> LogTime | None:
    try:
        dt = datetime(year, month, day, h, m, s, tzinfo=timezone.utc)
    except ValueError:
        return None
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        dt -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return LogTime(dt.timestamp() + frac, True, zone is not None, inferred)


def parse_time(text: str, year: int) -> LogTime | None:
    """Parse the first timestamp in a line's header.

    `year` fills formats that carry none (glog, syslog): the caller passes the year of a
    full timestamp seen elsewhere in the job, so that mixed formats still order correctly.
    """
    m = _stamp(text)
    if not m:
        return None
    g = m.group
    if g("iso"):
        return _epoch(
            int(g("Y")),
            int(g("M")),
            int(g("D")),
            int(g("h")),
            int(g("m")),
            int(g("s")),
            _frac(g("f")),
            g("z"),
        )
    if g("plog"):
        frac = int(g("pms") or 0) / 1e3 + int(g("pus") or 0) / 1e6
        return _epoch(
            int(g("pY")), int(g("pM")), int(g("pD")), int(g("ph")), int(g("pm")), int(g("ps")), frac
        )
    if g("glog"):
        return _epoch(
            year,
            int(g("gM")),
            int(g("gD")),
            int(g("gh")),
            int(g("gm")),
            int(g("gs")),
            _frac(g("gf")),
            inferred=True,
        )
    if g("ctime"):
        mon = _MONTHS.get(g("cMon"))
        if mon is None:
            return None
        return _epoch(
            int(g("cY")), mon, int(g("cD")), int(g("ch")), int(g("cm")), int(g("cs")), 0.0
        )
    if g("syslog"):
        mon = _MONTHS.get(g("sMon"))
        if mon is None:
            return None
        return _epoch(
            year, mon, int(g("sD")), int(g("sh")), int(g("sm")), int(g("ss")), 0.0, inferred=True
        )
    if g("dmesg"):
        return LogTime(float(g("up")), absolute=False)
    return LogTime(int(g("ep")) + _frac(g("epf")), True, True)


def has_year(text: str) -> int | None:
    """The year of a full-date timestamp in the line, used to anchor year-less formats."""
    m = _stamp(text)
    if not m:
        return None
    y = m.group("Y") or m.group("pY") or m.group("cY")
    return int(y) if y else None


_QUOTE_WINDOW = 4096
_CLOSING = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
# What may stand before a quote that the framework itself writes: nothing (the whole
# message is quoted), a key (`Message: "`, `"reason": "`, `(message='`, `reason="`), a
# bracket, comma or arrow (JSON, klog's `file.go:12] "msg"`, `=> "`), an exception's repr
# (`RuntimeError('CUDA error: ...')`, as Ray reports it). Prose before a quote is a
# person quoting: `skipping known issue: "...`, `retry on '...`.
_OWN_QUOTE = re.compile(
    r"""(?:^|[=(\[{,>\]]|(?:^|[{,(\[])\s*["']?[\w.-]+["']?\s*[:=]|[A-Za-z](?:Error|Exception|Exit|Warning)\()\s*$"""
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
    return j != -1


def _closes(text: str, i: int) -> bool:
    return text[i] != "'" or i + 1 == len(text) or not text[i + 1].isalnum()
