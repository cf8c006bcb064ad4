"""One stream -> signature hits, reading ~1 MiB blocks and looking closely only at hit lines.

The loop over a block never touches individual lines in Python: the automaton finds the
candidate lines, `bytes.count` numbers them, and only those lines are decoded, cleaned,
checked by the exact regex and given a time, a rank and context.
"""

from __future__ import annotations

import os
import queue
import re
import stat
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from functools import partial
from typing import BinaryIO

from ..job import stacks
from ..job.correlate import ROLE_RANK, SEVERITY_RANK
from ..job.model import path_posix, who_of
from ..rules.formats import Fields, Formats
from ..rules.matcher import Matcher
from ..types import DATA_ROLES, SERIES, Hit, LogLine, LogTime, Signature, Who
from ..unknowns.region import LAST_LINES, ErrorLines
from .errors import ErrorLine, Unread
from .lines import (
    SHOWN_BYTES,
    TEXT_CAP,
    TRACEBACK,
    Message,
    clean,
    decode,
    has_year,
    parse_time,
    strip_prefix,
)
from .redact import redact_lines, shown
from .sources import OutOfTime, Stream, Unit, packed

BLOCK = 1 << 20
# A longer line is matched on its first and its last LINE_CAP bytes; the middle is only
# counted, so memory stays bounded whatever the input.
LINE_CAP = 1 << 20
_LAST_TEXT = 1024  # bytes of each last line kept for the region (20 per file, 4,096 files)
_CONTEXT_BEFORE, _CONTEXT_AFTER, _TRACEBACK_LINES = 3, 3, 40
_TAIL = 64 * 1024
_TIME_LINES = 20  # lines above a line without a time that may lend it theirs
_HEAD_BYTES = 4 * 160  # of a line, enough for its timestamp (lines._TS_WINDOW characters)
# Hits per (file, signature, segment) that get full context; later ones only count, so
# a log with a million identical warnings stays cheap. A segment is 64 MiB of a file, the
# share a worker process reads (analyzer.read.workers; a multiple of BLOCK, so a part starts
# where a whole reading starts a block): the budget must not depend on what another
# process read before.
_DETAILED = 200
SEGMENT = 64 << 20
# Progress-only lines read per block, per rank: the first few and the last few (see
# StreamScanner._progress_to_skip); and segments of a progress-only line of redraws.
_PROGRESS_HEAD, _PROGRESS_TAIL = 4, 3
# A console of more ranks than this has each rank's first step line and last two of a
# block read: every line read costs ~150 us, and 64 ranks at 4 + 3 made 448 a block.
# One line and a pair still give each rank a start, a step time and where it stopped.
# (The automaton's sample keeps 4 + 3 per rank: a superset of both.)
_FEW_RANKS = 16
_MANY_HEAD, _MANY_TAIL = 1, 2
_HEX = re.compile(rb"0x[0-9a-fA-F]+")
_MAX_FACTS_SEEN = 100_000
# A line template: the line's bytes with its time of day masked (`10:00:01,123`, the
# clock of `2026-11-29-10:00:01.123.456`) and a leading dmesg uptime dropped. Every
# other number is kept: a signature may read it (`Xid 79` is not `Xid 13`; a loss
# scale is tiny only below 1e-3), a rank or a host named in the line must stay that of
# every copy, and so must a colon-separated run longer than a clock (a NIC's address).
# Masking less than could be masked only costs copies read; masking what a signature
# or the job model reads would give a wrong verdict. The patterns lead with a literal
# (`:`, a newline), which Python's re finds ~5x faster than a digit class.
_CLOCK = re.compile(rb":\d\d:\d\d(?:[.,]\d+)*")
_UPTIME = re.compile(rb"\n\[ *\d+\.\d+\]")

_READ_COPIES = 2  # copies of a template read closely before the next are only counted
_MAX_TEMPLATES = 20_000
_TEMPLATE_BYTES = 4096  # a longer line is always read
_MAX_WHOS = 4096
_FRAME = re.compile(r'^\s*File "[^"]*", line \d+')
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b")
_CHAINED = ("During handling", "The above exception")


def _why(e: Exception) -> str:
    if isinstance(e, OutOfTime):
        return DEADLINE_REACHED
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _templates(lines: list[bytes]) -> list[bytes]:
    """The templates of many lines: one pass of each regex over the lines joined, not
    calls a line (a block of a dense log has thousands of hit lines)."""
    if not lines:
        return []
    text = _UPTIME.sub(b"\n", b"\n" + b"\n".join(lines))
    out: list[bytes] = []
    done = 0
    for m in _CLOCK.finditer(text):
        at, end = m.start() - 2, m.end()
        if (
            at >= done
            and text[at : at + 2].isdigit()
            and text[at - 1 : at] != b":"
            and text[end : end + 1] != b":"
        ):
            out += (text[done:at], b"#")
            done = end
    out.append(text[done:])
    return b"".join(out).split(b"\n")[1:]


@dataclass
class YearRef:
    """The year for timestamp formats without one (glog, syslog): the job's, from a
    full date in the head of its files (anchor), else the first full date the scan sees.
    The clock's year is only a placeholder while no full date is known: every year-less
    stamp of such a job gets the same one, so no gap can come of it."""

    year: int = field(default_factory=lambda: date.today().year)
    anchored: bool = False
    formats: Formats | None = None  # the job's timestamp forms (None: the built-in ones)
    at: float | None = None  # the anchoring full date (epoch)

    def see(self, text: str) -> None:
        if not self.anchored:
            y = has_year(text, self.formats)
            if y:
                self.year, self.anchored = y, True
                t = parse_time(text, y, self.formats)
                self.at = t.epoch if t is not None and t.absolute else None

    def place(self, t: LogTime | None) -> LogTime | None:
        """A year-less time in the year, of the anchor's and the two beside it, that
        lies nearest the anchoring date: a run across New Year keeps its order (a
        `Jan  1` after a `2025-12-31` full date is 2026, not eleven months back)."""
        if t is None or not t.inferred or self.at is None:
            return t
        at, y = self.at, self.year
        return min((t, t.with_year(y - 1), t.with_year(y + 1)), key=lambda c: abs(c.epoch - at))

    def anchor(self, units: Sequence[Unit], stop_at: float | None = None) -> None:
        """The year of the first full date in the first lines of the job's plain files
        (at most _ANCHOR_FILES files, _ANCHOR_BYTES each), before any is scanned: a
        year-less line read before the first full date must not get another year.
        Only regular files are opened (a FIFO would block), and not past `stop_at`."""
        for unit in units[:_ANCHOR_FILES]:
            if self.anchored or (stop_at is not None and time.monotonic() > stop_at):
                return
            if unit.path is None:
                continue
            try:
                if not stat.S_ISREG(os.stat(unit.path).st_mode):
                    continue
                with open(unit.path, "rb") as f:
                    head = f.read(_ANCHOR_BYTES)
            except OSError:
                continue
            if packed(head):
                continue  # compressed or a zip: the scan anchors it
            for raw in head.split(b"\n")[:200]:
                self.see(decode(raw[:512]))
                if self.anchored:
                    return


_ANCHOR_FILES, _ANCHOR_BYTES = 256, 16 << 10


DEADLINE_REACHED = "deadline reached"  # FileScan.error of a read cut by the caller's deadline


@dataclass
class FileScan:
    name: str
    lines: int = 0
    bytes: int = 0
    truncated: int = 0
    last_time: LogTime | None = None
    error: str | None = None
    start: int = 0  # where reading began: 0, or the tail of a large file under a deadline

    @property
    def read(self) -> int:
        return self.bytes - self.start

    def see_time(self, t: LogTime) -> None:
        """The file's last timestamp: the latest wall-clock time, or an uptime clock's."""
        if self.last_time is None or not t.absolute or t.epoch >= self.last_time.epoch:
            self.last_time = t


class _Block:
    """A block plus the tail of the one before it, for context that crosses the boundary."""

    def __init__(self, tail: bytes, block: bytes, formats: Formats) -> None:
        self.buf = tail + block
        self.formats = formats
        self.shift = len(tail)
        self._times: dict[int, LogTime | None] = {}  # line start in buf -> its time
        self._before: dict[int, LogTime | None] = {}  # line start -> the time it gets

    def time_before(self, start: int, year: int) -> LogTime | None:
        """The time of the nearest of the _TIME_LINES lines before `start` that has one:
        a line without its own stamp (HF Trainer dicts, tqdm bars, a traceback) gets it.
        Each line is parsed once per block, and only its head (where a stamp sits): the
        hundred redraws of one tqdm line all ask about the same lines."""
        if start not in self._before:  # every segment of a line asks the same
            self._before[start] = self._time_before(start, year)
        return self._before[start]

    def _time_before(self, start: int, year: int) -> LogTime | None:
        pos = start + self.shift
        for _ in range(_TIME_LINES):
            if pos <= 0:
                return None
            prev = self.buf.rfind(b"\n", 0, pos - 1) + 1
            if prev not in self._times:
                head = decode(self.buf[prev : min(pos - 1, prev + _HEAD_BYTES)])
                self._times[prev] = parse_time(head, year, self.formats)
            t = self._times[prev]
            if t is not None:
                return t
            pos = prev
        return None

    def lines_before(self, start: int, n: int) -> list[str]:
        out: list[str] = []
        pos = start + self.shift
        while len(out) < n and pos > 0:
            prev = self.buf.rfind(b"\n", 0, pos - 1) + 1
            out.append(decode(self.buf[prev : pos - 1][:SHOWN_BYTES]))
            pos = prev
        out.reverse()
        return out

    def time_after(self, start: int, year: int) -> LogTime | None:
        """The time of the nearest of the _TIME_LINES lines after the line at `start` that
        has one. A step line above the file's first stamp (Megatron-DeepSpeed's iteration
        lines, whose times only a monitor's later lines give) happened no later than it:
        a bound (`Hit.by`), from which a stall measured to the end is never longer than
        the real one."""
        pos = self.buf.find(b"\n", start + self.shift)
        for _ in range(_TIME_LINES):
            if pos < 0 or pos + 1 >= len(self.buf):
                return None
            nxt = pos + 1
            if nxt not in self._times:
                head = decode(self.buf[nxt : nxt + _HEAD_BYTES].split(b"\n", 1)[0])
                self._times[nxt] = parse_time(head, year, self.formats)
            t = self._times[nxt]
            if t is not None:
                return t
            pos = self.buf.find(b"\n", nxt)
        return None

    def lines_after(self, end: int, n: int) -> list[str]:
        return [text for _, text in self.spans_after(end, n)]

    def spans_after(self, end: int, n: int) -> list[tuple[int, str]]:
        """The next `n` lines after the line ending at `end`, each with its start in the
        block."""
        out: list[tuple[int, str]] = []
        pos = end + self.shift + 1
        while len(out) < n and pos < len(self.buf):
            nxt = self.buf.find(b"\n", pos)
            nxt = len(self.buf) if nxt < 0 else nxt
            out.append((pos - self.shift, decode(self.buf[pos:nxt][:SHOWN_BYTES])))
            pos = nxt + 1
        return out


def _boundary(data: bytes) -> int:
    """Bytes up to and including the first line end or carriage return in `data`; 0
    when there is none (the tail lies inside one segment: read it from where it is)."""
    ends = [i for i in (data.find(b"\n"), data.find(b"\r")) if i >= 0]
    return min(ends) + 1 if ends else 0


def _traceback_start(before: list[str], formats: Formats) -> int | None:
    """Index in `before` of the 'Traceback' line that the exception line closes, if any."""
    for i in range(len(before) - 1, -1, -1):
        msg = strip_prefix(before[i], formats).text
        if msg.startswith(TRACEBACK):
            return i
        inside = msg.startswith((" ", "\t")) or _FRAME.match(msg) or not msg.strip()
        # a chained exception ("During handling ...") keeps the earlier traceback joined
        chained = msg.startswith(_CHAINED) or _EXCEPTION.match(msg)
        if not (inside or chained):
            return None
    return None


def _read_block(reader: BinaryIO | _ReadAhead, size: int) -> bytes:
    """The next `size` bytes. At an end, once more: a stream that broke (a cut gzip or
    zip member) returns its end first, so what it decoded is kept, and its error after."""
    return reader.read(size) or reader.read(size)


class _ReadAhead:
    """A stream read by a thread, a few blocks ahead of the scan.

    Reads and zlib, zstd, bz2 and lzma decompression release the GIL, so a log is read
    at the pace of the slower of reading and scanning, not of their sum (1 GiB here:
    gzip 15.6 s -> 10.9 s, plain 11.6 s -> 10.6 s). The thread makes the very
    read(BLOCK) calls the scan would, in order, so blocks and results are the same; an
    error it meets is raised in the scan, where a stream always ends with what was read.
    """

    _DEPTH = 4

    def __init__(self, reader: BinaryIO) -> None:
        self._reader = reader
        self._queue: queue.Queue[bytes | BaseException] = queue.Queue(self._DEPTH)
        self._stop = threading.Event()
        self._ended = False  # the thread has put its last item
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                item: bytes | BaseException = _read_block(self._reader, BLOCK)
            except BaseException as e:  # re-raised in the scan
                item = e
            while not self._stop.is_set():
                try:
                    self._queue.put(item, timeout=0.05)
                    break
                except queue.Full:
                    continue
            if not isinstance(item, bytes) or not item:
                return

    def read(self, size: int) -> bytes:
        if self._ended:
            return b""
        item = self._queue.get()
        if isinstance(item, BaseException):
            self._ended = True
            raise item
        self._ended = not item
        return item

    def close(self) -> None:
        """Stop and wait: the next archive member is read from the same file."""
        self._stop.set()
        self._thread.join()


class StreamFeed:
    """One stream's scanning state: the partial last line, line number, and the tail kept
    for context, so bytes can be fed as they are read, whole file or growing log alike."""

    def __init__(
        self, scanner: StreamScanner, stream: Stream, file_index: int, start: int = 0
    ) -> None:
        self.scanner, self.stream, self.file_index = scanner, stream, file_index
        self.fs = FileScan(stream.name, bytes=start, start=start)
        self.carry = b""
        self.skipping = False
        self.skip_tail = b""
        self.long_line = 0  # where the over-long line being skipped starts
        self.lineno = 1
        self.tail = b""

    def _block(
        self, tail: bytes, block: bytes, unread: int, line_offset: int | None = None
    ) -> None:
        self.scanner._block(
            self.stream, self.file_index, self.fs, tail, block, self.lineno, unread, line_offset
        )

    def feed(self, chunk: bytes) -> None:
        fs = self.fs
        fs.bytes += len(chunk)
        fs.lines += chunk.count(b"\n")
        if self.skipping:
            k = chunk.find(b"\n")
            if k < 0:
                self.skip_tail = (self.skip_tail + chunk)[-LINE_CAP:]
                return
            # The end of an over-long line matters most: a progress bar redrawn for hours
            # with "Killed" or the error after its last redraw.
            end = (self.skip_tail + chunk[:k])[-LINE_CAP:]
            self._block(b"", end, len(chunk) - k + len(end), self.long_line)
            chunk, self.skipping, self.skip_tail = chunk[k + 1 :], False, b""
            self.lineno += 1
        data = self.carry + chunk if self.carry else chunk
        k = data.rfind(b"\n")
        if k < 0:
            if len(data) > LINE_CAP:
                self._long_line(data)
            else:
                self.carry = data
            return
        block, self.carry = data[: k + 1], data[k + 1 :]
        self._block(self.tail, block, len(data))
        self.lineno = fs.lines + 1  # carry holds no newline: all read so far precede it
        self.tail = block[-_TAIL:]
        if len(self.carry) > LINE_CAP:  # a chunk whose last line is already too long
            carry, self.carry = self.carry, b""
            self._long_line(carry)

    def _long_line(self, data: bytes) -> None:
        """A line without its end that is longer than LINE_CAP: matched on its first
        LINE_CAP bytes now, its last ones when it ends; never held whole."""
        self._block(self.tail, data[:LINE_CAP], len(data))
        self.fs.truncated += 1
        self.skipping, self.carry, self.tail = True, b"", b""
        self.skip_tail = data[LINE_CAP:][-LINE_CAP:]
        self.long_line = self.fs.bytes - len(data)

    def close(self) -> None:
        """The stream ended: its last line needs no newline to count as a line."""
        last = self.fs.lines
        if self.skipping:  # an over-long last line: its end, as when its newline comes
            self._block(b"", self.skip_tail, len(self.skip_tail), self.long_line)
            self.skipping, self.skip_tail = False, b""
            last += 1
        elif self.carry:
            self._block(self.tail, self.carry, len(self.carry))
            self.tail = (self.tail + self.carry)[-_TAIL:]
            self.carry = b""
            last += 1
        self.scanner._last_lines(self.stream, self.file_index, self.tail, last)


# error lines of counted copies waiting for StreamScanner._flush: line, start, end in
# the block, whether a signature matched
_Copied = list[tuple[int, int, int, bool]]


@dataclass
class _Template:
    """What reading a copy of a line template gave, so that the next copies need not be
    read: the signatures it hit and the hits, whether it is an error-looking line, and
    whether a copy can stand for another (`same`: one segment, no facts, not indented,
    any rank or host the message names kept in the template). `pending` copies were
    counted since the last one read or replayed; the next one carries them
    (Hit.repeats). A block's last copy is replayed (its hits again, with its line and
    time: what the findings' counts, last times and the cause's place in the timeline
    need), unless a signature cites its last line (`evidence: last`): then it is read."""

    same: bool
    sigs: tuple[int, ...]
    hits: tuple[Hit, ...]
    error: bool
    replay: bool
    read: int = 1
    pending: int = 0


class _OutOfTime(Exception):
    """The deadline passed inside a block (StreamScanner._stop_at)."""


# lines read closely between two looks at the clock under a deadline: a block of
# distinct hit lines (0.1 ms each) is cut within about 30 ms of it
_CLOCK_EVERY = 256


@dataclass(frozen=True)
class _LineAt:
    """Where a hit line sits: stream, line number, byte offset in the stream, and its
    start and end within the block being scanned."""

    stream: Stream
    file_index: int
    line: int
    offset: int
    start: int
    end: int
    ctx: _Block
    part: int  # the SEGMENT of the chunk being read: its detail budget
    repeats: int  # the copies the line stands for (Hit.repeats)


class StreamScanner:
    """Scans streams with one Matcher and reports hits to a callback."""

    def __init__(
        self,
        matcher: Matcher,
        on_hit: Callable[[Hit], None],
        year: YearRef,
        redact_secrets: bool = True,
        errors: ErrorLines | None = None,
        on_fact: Callable[[int, str, int, int, Fields, Who], None] | None = None,
    ) -> None:
        self.matcher = matcher
        self.formats = matcher.formats
        self._system_files: dict[str, bool] = {}  # stream name -> a system log by its path
        self._key = self.formats.key
        # a fact line: (file index, file name, line, fact index, fields, its claims)
        self.on_fact = on_fact
        self._facts_seen: set[tuple[int, bytes]] = set()
        fact_blocks = [f.block is not None for f in self.formats.facts]
        self._in_block = [False] * (matcher.fact_base) + fact_blocks
        self.errors = errors
        # lines leave the engine only through hits: redacting them here covers every sink
        self.clean_text: Callable[[str], str] = partial(shown, secrets=redact_secrets)
        self._redact = redact_secrets
        self.on_hit = on_hit
        self.year = year
        self._detailed: dict[tuple[int, int, int], int] = {}
        self._templates: dict[int, _Template] = {}
        self._whos: dict[tuple[object, ...], Who] = {}
        # only step and work-bar lines are sampled; a checkpoint or eval line is rare and
        # always read
        # (the error pattern and the facts come after the signatures: never steps)
        extra = [False] * (1 + len(matcher.formats.facts))
        self._step = [s.progress in SERIES for s in matcher.signatures] + extra
        # the stream being scanned: what it read so far counts in a live Stats (progress
        # of a long analysis), before the scan returns and it is accounted
        self.current: FileScan | None = None
        # when the bytes being fed arrived, for a live watch (Analyzer.feed): the time
        # of a step line that prints none, so a bare `print(step, loss)` has a cadence
        self.arrival: LogTime | None = None
        # under a deadline, from a stream's second block on: when a block stops (the
        # lines read closely so far count the looks at the clock)
        self._stop_at: float | None = None
        self._closely = 0

    def scan(
        self, stream: Stream, file_index: int, stop_at: float | None = None, tail: int = 0
    ) -> FileScan:
        """Read a stream to its end, or until the monotonic clock passes `stop_at`.

        With `tail`, a plain file larger than that is read from `tail` bytes before its
        end only (from the first line that starts there): most root causes sit at the end
        of a log. Offsets stay absolute; line numbers then count from where reading began.
        """
        reader: BinaryIO | _ReadAhead = stream.reader
        path, start = stream.path, 0
        if tail and path is not None and stream.size is not None and stream.size > tail:
            start = stream.size - tail
        feed = self.open(stream, file_index, start)
        self.current = feed.fs
        try:
            if path is not None and start:
                reader = open(path, "rb")  # noqa: SIM115 (closed below)
                reader.seek(start - 1)
                # the rest of a line that began earlier is skipped, to its end or to a
                # tqdm redraw (`\r`), whichever comes first: a bar redrawn for hours is
                # one line longer than the tail, and its last segment is the evidence
                # (reading from the byte before: a line that starts there is kept whole)
                skipped = max(_boundary(reader.read(tail + 1)) - 1, 0)
                reader.seek(start + skipped)
                feed.fs.bytes += skipped
                feed.fs.start = feed.fs.bytes
            first = True  # a stream opened is read for one block, past the deadline too:
            # its first bytes are in hand (read to sniff it; stdin's may never come again)
            while True:
                if not first and stop_at is not None and time.monotonic() > stop_at:
                    feed.fs.error = DEADLINE_REACHED
                    break
                if not first or path is not None:
                    # a block is cut at the deadline: a file's first one too (only stdin's
                    # first bytes must be read whole: they may never come again)
                    self._stop_at = stop_at
                first = False
                want = BLOCK
                if stream.size is not None:  # a plain file: as large as it was when opened
                    want = min(BLOCK, stream.size - feed.fs.bytes)
                # (the read-ahead thread reads whole blocks: what it read past the size
                # the file had is left unread, so a log that grows forever ends)
                chunk = _read_block(reader, want)[:want] if want > 0 else b""
                if not chunk:
                    break
                if reader is stream.reader and len(chunk) == BLOCK:
                    # more than a block: worth a thread (a folder of 100,000 small files
                    # would spend seconds starting them)
                    reader = _ReadAhead(stream.reader)
                feed.feed(chunk)
        except _OutOfTime:  # in a block of thousands of distinct lines
            feed.fs.error = DEADLINE_REACHED
        except Exception as e:  # truncated gzip, I/O errors, corrupt members: keep what we have
            feed.fs.error = _why(e)
        finally:
            if reader is not stream.reader:
                reader.close()
            self.current = None
            self._stop_at = None
        feed.close()
        return feed.fs

    def scan_part(
        self, stream: Stream, file_index: int, start: int, end: int, last: bool
    ) -> FileScan:
        """Read bytes [start, end) of a plain file as one process reading it whole would:
        in the same blocks (chunks end at multiples of BLOCK), with the 64 KiB before
        `start` as context. `start` and `end` begin lines whose line before is shorter
        than a block (workers.plan); the file's last part ends the stream."""
        feed = self.open(stream, file_index, start)
        reader = stream.reader
        try:
            reader.seek(max(0, start - _TAIL))
            feed.tail = reader.read(start - max(0, start - _TAIL))
            pos = start
            while pos < end:
                chunk = reader.read(min(end, (pos // BLOCK + 1) * BLOCK) - pos)
                if not chunk:
                    break
                feed.feed(chunk)
                pos += len(chunk)
        except Exception as e:  # I/O errors: keep what we have
            feed.fs.error = _why(e)
        if last:
            feed.close()
        return feed.fs

    def open(self, stream: Stream, file_index: int, start: int = 0) -> StreamFeed:
        """A feed for a stream whose bytes arrive piecemeal (a growing file under watch)."""
        return StreamFeed(self, stream, file_index, start)

    def _sample_times(self, fs: FileScan, block: bytes) -> None:
        """The year anchor from the block's first line, the file's last timestamp from its
        last lines: the end of the evidence, cheaply."""
        self.year.see(decode(block[:512].split(b"\n", 1)[0]))
        end = len(block)
        while end and block[end - 1] == 0x0A:  # not rstrip: that copies the block
            end -= 1
        for _ in range(5):
            start = block.rfind(b"\n", 0, end) + 1
            head = clean(decode(block[start : min(end, start + 512)]))[0]
            t = parse_time(head, self.year.year, self.formats)
            if t:
                fs.see_time(t)
                break
            if start == 0:
                break
            end = start - 1

    def _block(
        self,
        stream: Stream,
        file_index: int,
        fs: FileScan,
        tail: bytes,
        block: bytes,
        lineno: int,
        unread: int,
        line_offset: int | None = None,
    ) -> None:
        """Scan one block; it starts `unread` bytes before the end of what was read.

        `line_offset` is given for the tail of an over-long line: its hits report where
        that line starts, not where the kept tail starts.
        """
        base = fs.bytes - unread
        part = (fs.bytes - 1) // SEGMENT
        self._sample_times(fs, block)
        hits = self.matcher.automaton.scan(block)
        if not hits:
            return
        ctx = _Block(tail, block, self.formats)
        skip = self._progress_to_skip(block, hits)
        keys = self._template_keys(file_index, part, block, hits, skip)
        last: dict[int | None, int] = {k: i for i, k in enumerate(keys) if k is not None}
        pos, line = 0, lineno
        copied: _Copied = []
        for index, (start, end, candidates) in enumerate(hits):
            line += block.count(b"\n", pos, start)
            pos = start
            if index in skip or self._seen_fact(file_index, block, start, end, candidates):
                continue
            key = keys[index]
            known = self._templates.get(key) if key is not None else None
            offset = base + start if line_offset is None else line_offset
            if (
                known is not None
                and known.same
                and known.read >= _READ_COPIES
                and (known.replay or last[key] != index)
            ):  # a copy after the first few: counted, and replayed if the block's last
                self._count(known, file_index, part, copied, (line, start, end))
                if last[key] == index:
                    self._replay(known, ctx, start, line, offset)
                continue
            self._flush(stream, file_index, block, copied)
            repeats = known.pending + 1 if known is not None else 1
            at = _LineAt(stream, file_index, line, offset, start, end, ctx, part, repeats)
            self._closely += 1
            stop = self._stop_at
            if stop is not None and not self._closely % _CLOCK_EVERY and time.monotonic() > stop:
                raise _OutOfTime
            read = self._read_line(at, candidates)
            if key is not None and read is not None:
                self._learn(key, known, read)
        self._flush(stream, file_index, block, copied)

    def _template_keys(
        self,
        file_index: int,
        part: int,
        block: bytes,
        hits: list[tuple[int, int, tuple[int, ...]]],
        skip: set[int],
    ) -> list[int | None]:
        """Each hit line's template key (None: always read): its file and segment (the
        part a worker reads: see _DETAILED), the automaton's candidates and its masked
        bytes (launcher prefixes included). Work per distinct line, not per copy: a
        warning printed every step by every rank is read a few times and counted."""
        fact_base = self.matcher.fact_base
        keyed = [
            index
            for index, (start, end, candidates) in enumerate(hits)
            if index not in skip and end - start <= _TEMPLATE_BYTES and candidates[-1] < fact_base
        ]
        masked = _templates([block[hits[i][0] : hits[i][1]] for i in keyed])
        keys: list[int | None] = [None] * len(hits)
        for index, template in zip(keyed, masked, strict=True):
            keys[index] = hash((file_index, part, hits[index][2], template))
        return keys

    def _count(
        self,
        known: _Template,
        file_index: int,
        part: int,
        copied: _Copied,
        at: tuple[int, int, int],
    ) -> None:
        """A copy of a template that was read: counted, its error line (`at`: line,
        start, end) noted for _flush."""
        known.pending += 1
        for i in known.sigs:
            k = (file_index, i, part)
            self._detailed[k] = self._detailed.get(k, 0) + 1
        if known.error and self.errors is not None:
            copied.append((*at, bool(known.sigs)))

    def _flush(self, stream: Stream, file_index: int, block: bytes, copied: _Copied) -> None:
        """The error lines of counted copies, in order, before the next line read adds its
        own: a file keeps its first 20 and last 40 (analyzer.unknowns.region), so a warning copied
        a thousand times in a block makes at most 60 Unreads, not a thousand."""
        if not copied:
            return
        name, year, redact = stream.name, self.year.year, self._redact

        def unread(i: int) -> Unread | ErrorLine:
            line, start, end, matched = copied[i]
            return Unread.of(name, line, block[start:end], year, matched, redact)

        assert self.errors is not None
        self.errors.add_run(file_index, len(copied), unread)
        copied.clear()

    def _replay(self, known: _Template, ctx: _Block, start: int, line: int, offset: int) -> None:
        """A block's last copy of a template: the hits its first copies gave, with its
        place, time and the count of copies since the last replay."""
        year = self.year.year
        head = decode(ctx.buf[ctx.shift + start : ctx.shift + start + _HEAD_BYTES])
        when = parse_time(clean(head)[0], year, self.formats) or ctx.time_before(start, year)
        for hit in known.hits:
            at = replace(hit.log, number=line, offset=offset, time=when, repeats=known.pending)
            self.on_hit(replace(hit, log=at))
        known.pending = 0

    def _learn(self, key: int, known: _Template | None, read: _Template) -> None:
        if known is None:
            if read.same and len(self._templates) < _MAX_TEMPLATES:
                self._templates[key] = read  # a line no copy can stand for is read anyway
            return
        known.read += 1
        known.pending = 0
        known.hits = read.hits
        if (known.same, known.sigs, known.error) != (read.same, read.sigs, read.error):
            known.same = False  # copies that read differently: read every one

    def _read_line(self, at: _LineAt, candidates: tuple[int, ...]) -> _Template | None:
        """Read one hit line closely: its segments, their signatures and facts, its error
        line; what it gave (None: quoted source code, nothing)."""
        line_bytes = at.ctx.buf[at.ctx.shift + at.start : at.ctx.shift + at.end]
        raw = decode(line_bytes)
        if self._quotes_code(at.ctx, at.start, raw):
            return None
        errors_at = self.matcher.error_index
        error_line = errors_at in candidates
        segments = clean(raw)
        if len(segments) > _PROGRESS_HEAD + _PROGRESS_TAIL and all(
            self._step[c] for c in candidates
        ):  # tqdm's redraws of one bar: sampled as a block's progress-only lines are
            segments = segments[:_PROGRESS_HEAD] + segments[-_PROGRESS_TAIL:]
        facts = [c - self.matcher.fact_base for c in candidates if c > errors_at]
        candidates = tuple(c for c in candidates if c < errors_at)
        same = len(segments) == 1 and not facts
        sigs: list[int] = []
        hits: list[Hit] = []
        for segment in segments:
            msg = strip_prefix(segment, self.formats)
            same = same and not msg.text.startswith((" ", "\t"))
            best = self._best(candidates, msg.text)
            if not (facts or best):
                continue
            said = self.formats.claims_of(msg.text)
            if same and said:  # a copy stands for this one if the ranks it names are kept
                (masked,) = _templates([line_bytes])
                same = all(v.encode("utf-8", "surrogatepass") in masked for v in said.values())
            who = self._who(msg.prefix, said, at.stream.who)
            if facts:
                self._facts(at, facts, msg, who)
            for i, caps in best:
                hit = self._emit(at, i, caps, segment, msg, who)
                if hit is not None:
                    hits.append(hit)
                sigs.append(i)
                # a step line is a new point, a thread header a new stack: never a copy
                sig = self.matcher.signatures[i]
                same = same and sig.role != "progress" and sig.stack is None
        matched = bool(sigs)
        if error_line and self.errors is not None:
            name, year = at.stream.name, self.year.year
            unread = Unread.of(name, at.line, line_bytes, year, matched, self._redact)
            self.errors.add(at.file_index, unread)
        replay = all(self.matcher.signatures[i].evidence != "last" for i in sigs)
        # what a replay needs: no context (a replayed hit is never the one shown)
        kept = tuple(replace(h, context=()) for h in hits) if same else ()
        return _Template(same, tuple(sigs), kept, error_line, replay)

    def _who(self, prefix: Fields, said: Fields, path: Who) -> Who:
        """who_of, one object per distinct answer: a stream's hits share their Who, so a
        worker ships it once (pickle keeps shared objects shared) and memory holds one."""
        key = (tuple(prefix.items()), tuple(said.items()), path)
        who = self._whos.get(key)
        if who is None:
            if len(self._whos) >= _MAX_WHOS:
                self._whos.clear()
            who = self._whos[key] = who_of(prefix, said, path)
        return who

    def _last_lines(self, stream: Stream, file_index: int, tail: bytes, last: int) -> None:
        """The stream's last non-empty lines, for the classifier's failure region.

        `tail` ends with line number `last`; a first piece cut mid-line is not a line.
        """
        if self.errors is None or not tail:
            return
        pieces = tail.removesuffix(b"\n").split(b"\n")
        if len(tail) >= _TAIL:
            pieces = pieces[1:]
        out: list[ErrorLine] = []
        for k in range(len(pieces) - 1, -1, -1):
            raw = pieces[k]
            if raw.strip():
                text = shown(decode(raw[: _LAST_TEXT + TEXT_CAP]), self._redact, _LAST_TEXT)
                when = parse_time(text, self.year.year, self.formats)
                number = last - (len(pieces) - 1 - k)
                out.append(ErrorLine(stream.name, number, when, text, False))
                if len(out) == LAST_LINES:
                    break
        out.reverse()
        self.errors.set_last(file_index, out)

    def _progress_to_skip(
        self, block: bytes, hits: list[tuple[int, int, tuple[int, ...]]]
    ) -> set[int]:
        """Lines that can only be progress, beyond the first and last few of the block.

        Step lines are often a third of a log; a timeline needs the first steps (to
        align clocks and estimate the step time), the last ones (where a rank stopped)
        and consecutive pairs for intervals, not every step: the rest are skipped unread.
        """
        by_rank: dict[bytes, list[int]] = {}
        for i, (start, _, cands) in enumerate(hits):
            if all(self._step[c] for c in cands):
                # a console of many ranks interleaves their steps: sample per rank prefix
                by_rank.setdefault(self._key(block, start), []).append(i)
        skip: set[int] = set()
        head, tail = (
            (_PROGRESS_HEAD, _PROGRESS_TAIL)
            if len(by_rank) <= _FEW_RANKS
            else (_MANY_HEAD, _MANY_TAIL)
        )
        for only in by_rank.values():
            skip.update(only[head:-tail])
        return skip

    def _seen_fact(
        self, file_index: int, block: bytes, start: int, end: int, candidates: tuple[int, ...]
    ) -> bool:
        """A line that is only a fact (no signature, not error-looking, no block of a
        table) and that its file already said, pointers aside: NCCL prints the same
        communicator line for every group it builds. Read once per file, before any
        decoding: the same line says the same thing again."""
        if candidates[0] <= self.matcher.error_index or any(self._in_block[c] for c in candidates):
            return False
        key = (file_index, _HEX.sub(b"0x", block[start:end]))
        if key in self._facts_seen:
            return True
        if len(self._facts_seen) < _MAX_FACTS_SEEN:
            self._facts_seen.add(key)
        return False

    def _facts(self, at: _LineAt, facts: list[int], msg: Message, who: Who) -> None:
        """Lines that say who is who, for the job model (analyzer.job.model)."""
        if self.on_fact is None:
            return
        for k in facts:
            found = self.formats.fact(k, msg.text)
            if found:  # ids, counts and host names: no secret form, shown only resolved
                self.on_fact(at.file_index, at.stream.name, at.line, k, found, who)

    def _quotes_code(self, ctx: _Block, start: int, raw: str) -> bool:
        """An indented line right after a traceback frame is that frame's source code.

        `raise RuntimeError("CUDA out of memory")` quoted there is code, not an event. An
        unindented line after a frame is output (interleaved ranks print one into the
        other's traceback), so it stays an event.
        """
        if not strip_prefix(raw, self.formats).text.startswith((" ", "\t")):
            return False
        prev = ctx.lines_before(start, 1)
        return bool(prev) and _FRAME.match(strip_prefix(prev[0], self.formats).text) is not None

    def _best(self, candidates: tuple[int, ...], message: str) -> list[tuple[int, dict[str, str]]]:
        """The matches of one line in its best role/severity tier.

        A line is one event: when a specific signature (a fatal CUDA OOM) and a generic one
        (any `...Error:` line) both match, the generic reading adds nothing but noise.
        """
        found, progress = [], []
        for i in candidates:
            caps = self.matcher.verify(i, message)
            if caps is not None:
                sig = self.matcher.signatures[i]
                if sig.role in DATA_ROLES:  # data about the run, whatever else the line says
                    progress.append((i, caps))
                else:
                    found.append(((ROLE_RANK[sig.role], SEVERITY_RANK[sig.severity]), i, caps))
        kinds = [self.matcher.signatures[i].progress for i, _ in progress]
        if "work" in kinds:
            # a bar of the rank's own work (tokenising, an eval loop) is also a tqdm bar:
            # the specific reading is what it is, not a training step
            progress = [p for p, kind in zip(progress, kinds, strict=True) if kind != "step"]
        if not found:
            return progress
        top = min(tier for tier, _, _ in found)
        return progress + [(i, caps) for tier, i, caps in found if tier == top]

    def _emit(
        self,
        at: _LineAt,
        sig_index: int,
        caps: dict[str, str],
        segment: str,
        msg: Message,
        who: Who,
    ) -> Hit | None:
        sig = self.matcher.signatures[sig_index]
        year = self.year.year
        when = parse_time(segment, year, self.formats)
        cut = len(segment) - len(msg.text)  # the prefixes' length
        if sig.role in DATA_ROLES:
            # Step lines are many: a time and a rank, no context. A line without its own
            # timestamp (HF Trainer dicts, tqdm bars, a bare print) takes the time it
            # arrived in a live watch, else the nearest one above it; above the file's
            # first stamp, the nearest below it is a bound (Hit.by).
            if when is None:
                when = self.arrival or at.ctx.time_before(at.start, year)
            by = (
                at.ctx.time_after(at.start, year)
                if when is None and sig.progress == "step"
                else None
            )
            return self._hit(at, sig, caps, segment, who, when, (), cut=cut, by=by)
        key = (at.file_index, sig_index, at.part)
        seen = self._detailed.get(key, 0)
        self._detailed[key] = seen + 1
        detailed = seen < _DETAILED or sig.evidence == "last"
        when = when or at.ctx.time_before(at.start, year)
        if sig.stack is not None:  # a dump repeated past the detail budget says no more
            return self._snapshot(at, sig, caps, segment, who, when) if detailed else None
        before = at.ctx.lines_before(at.start, _TRACEBACK_LINES if detailed else 20)
        ctx_before = before[-_CONTEXT_BEFORE:] if detailed else []
        if detailed and _EXCEPTION.match(msg.text):
            tb = _traceback_start(before, self.formats)
            if tb is not None:
                ctx_before = before[tb:]
        context = (
            (*ctx_before, segment, *at.ctx.lines_after(at.end, _CONTEXT_AFTER)) if detailed else ()
        )
        return self._hit(at, sig, caps, segment, who, when, context, len(ctx_before), cut)

    def _snapshot(
        self,
        at: _LineAt,
        sig: Signature,
        caps: dict[str, str],
        segment: str,
        who: Who,
        when: LogTime | None,
    ) -> Hit | None:
        """A thread header of a stack dump, cited at the thread's innermost application
        frame (analyzer.job.stacks) with the header and frames as context. A started thread
        (its outermost frame is `_bootstrap`: a tensorboard writer, a pin-memory loop)
        waits in every healthy job too, and the threads of a fatal-signal report are
        where a process died, not where it waited: no hit."""
        assert sig.stack is not None
        before = at.ctx.lines_before(at.start, stacks.STACK_LINES)
        if stacks.crashed([strip_prefix(t, self.formats).text for t in before]):
            return None  # the crash line decides; its stacks are not a live process's
        spans = at.ctx.spans_after(at.end, stacks.STACK_LINES)
        snap = stacks.read([strip_prefix(t, self.formats).text for _, t in spans], sig.stack)
        if snap is None:
            return self._hit(at, sig, caps, segment, who, when, (segment,))
        if not snap.main:
            return None
        k = snap.at.code_at if snap.at.code_at is not None else snap.at.at
        start, text = spans[k]
        cited = replace(at, line=at.line + 1 + k, offset=at.offset + start - at.start)
        found = {**caps, **stacks.captures(snap)}
        last = max(max(f.at, f.code_at or 0) for f in snap.frames) + 1
        context = (segment, *(t for _, t in spans[: min(last, _TRACEBACK_LINES)]))
        return self._hit(cited, sig, found, text, who, when, context, k + 1)

    def _hit(
        self,
        at: _LineAt,
        sig: Signature,
        caps: dict[str, str],
        segment: str,
        who: Who,
        when: LogTime | None,
        context: tuple[str, ...],
        lines_before: int = 0,
        cut: int | None = None,
        by: LogTime | None = None,
    ) -> Hit:
        """The hit, with its message: the text after the `cut` characters of prefixes the
        caller already stripped from `segment` (when redaction left them as they were),
        else stripped here."""
        clean = self.clean_text
        text = clean(segment)
        if cut is not None and text.startswith(segment[:cut]):
            message = text[cut:]
        else:
            message = strip_prefix(text, self.formats).text
        when = self.year.place(when)
        system_line = self.formats.system_line(message)
        if when is not None and system_line:
            # a kernel line inside another file is dated by its own stamp (`dmesg -T`'s),
            # not by the collector's prefix in front of it
            when = self.formats.time(message, _year_of(when)) or when
        name = at.stream.name
        system = self._system_files.get(name)
        if system is None:
            system = self._system_files[name] = self.formats.system_file(path_posix(name))
        line = LogLine(
            file=name,
            file_index=at.file_index,
            number=at.line,
            offset=at.offset,
            text=text,
            message=message,
            time=when,
            who=who,
            repeats=at.repeats,
            kind="system-log" if system else "system-line" if system_line else "event",
        )
        hit = Hit(
            signature=sig,
            log=line,
            # a part of a line that showed as it was is shown as it is (a step line's
            # five numbers would cost five more passes of the redaction)
            captures={
                k: v if text is segment or (text == segment and v in segment) else clean(v)
                for k, v in caps.items()
            },
            context=redact_lines(context, self._redact),
            context_first_line=at.line - lines_before,
            by=self.year.place(by),
        )
        self.on_hit(hit)
        return hit


def _year_of(t: LogTime) -> int:
    return datetime.fromtimestamp(t.epoch, tz=timezone.utc).year
