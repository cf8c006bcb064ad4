"""Error-looking lines as the reader makes them: the values the failure region is made
of (analyzer.unknowns.region keeps them bounded per file; the classifier and the template
miner read their messages). A line is kept as its bytes until it is kept for good, so a
repeated warning costs a tuple, not a decode, a redaction and a timestamp parse."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.formats import Formats
from ..types import LogTime
from .lines import SHOWN_BYTES, TEXT_CAP, decode, message_of, parse_time
from .redact import shown


@dataclass(frozen=True)
class ErrorLine:
    """An error-looking line (or one of a file's last lines) as the reader made it once:
    its text as shown, its time, and its message (what the classifier and the template
    miner read: redraws split, prefixes removed)."""

    file: str
    line: int
    time: LogTime | None
    text: str
    matched: bool  # a signature (progress included) matched it

    def message(self, formats: Formats | None = None) -> str:
        """The line's message by the job's `formats` (default the built-in ones): made
        when asked, not when kept, since most kept lines are never read by the classifier
        (a signature decides), and a worker ships lines, not formats."""
        return message_of(self.text, formats)


# Bytes of a line kept unread: a longer one is read at once (it is rare, and its first
# TEXT_CAP characters could not be told from a cut of its bytes).
_UNREAD_CAP = 4 * TEXT_CAP


@dataclass(frozen=True)
class Unread:
    """An error-looking line as its bytes: decoded, redacted and timed only if it is
    kept. A file's tail holds its last 40 such lines; most lines added are pushed out
    unread, and a repeated warning costs a tuple, not a decode, a redaction and a
    timestamp parse."""

    file: str
    line: int
    raw: bytes
    year: int  # for timestamps without one, as the scan knew it then
    matched: bool
    redacted: bool

    def read(self) -> ErrorLine:
        text = shown(decode(self.raw[:SHOWN_BYTES]), self.redacted)
        return ErrorLine(self.file, self.line, parse_time(text, self.year), text, self.matched)

    @classmethod
    def of(
        cls, file: str, line: int, raw: bytes, year: int, matched: bool, redacted: bool
    ) -> Unread | ErrorLine:
        unread = cls(file, line, raw, year, matched, redacted)
        return unread if len(raw) <= _UNREAD_CAP else unread.read()
