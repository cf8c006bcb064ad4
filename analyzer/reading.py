"""Reading a job's input files in order: streams through the scanner, and the account
of what was read (files, lines, bytes, notes) that becomes Verdict.stats.

One process calls scan_units on the whole job; a worker process calls it on its share
(analyzer.workers), so both read every file the same way.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .matcher import Matcher
from .region import ErrorLines
from .scan import DEADLINE_REACHED, FileScan, StreamScanner, YearRef
from .sources import SourceNotes, Unit, open_unit
from .types import Hit, LogTime


@dataclass
class Reading:
    """What was read so far, and what could not be."""

    notes: SourceNotes = field(default_factory=SourceNotes)
    files: int = 0
    lines: int = 0
    bytes: int = 0
    truncated: int = 0
    tails: int = 0  # files of which only the tail was read (deadline)
    unread: int = 0  # files the deadline left unread or unfinished
    streams: int = 0  # streams opened: the next stream's file index
    ends: list[LogTime] = field(default_factory=list)  # each file's last timestamp

    def absorb(self, other: Reading, when: Callable[[LogTime | None], LogTime | None]) -> None:
        """Add what another reader read (a worker, analyzer.workers), its times re-dated."""
        self.notes.unreadable += other.notes.unreadable
        self.notes.skipped += other.notes.skipped
        self.notes.notes += other.notes.notes
        self.files += other.files
        self.lines += other.lines
        self.bytes += other.bytes
        self.truncated += other.truncated
        self.streams += other.streams
        self.ends += [t for t in map(when, other.ends) if t is not None]

    def account(self, fs: FileScan) -> None:
        self.files += 1
        self.lines += fs.lines
        self.bytes += fs.read
        self.truncated += fs.truncated
        notes = self.notes.notes
        if fs.start:
            self.tails += 1
            notes.append(
                f"{fs.name}: only its last {fs.read:,} bytes were read (deadline); its line "
                f"numbers count from byte {fs.start:,}"
            )
        if fs.error == DEADLINE_REACHED:
            self.unread += 1
        elif fs.error:
            notes.append(f"{fs.name}: read stopped early: {fs.error} (kept what was read)")
        if fs.last_time is not None:
            self.ends.append(fs.last_time)
        if fs.truncated:
            notes.append(
                f"{fs.name}: {fs.truncated} line(s) longer than 1 MiB were cut for matching"
            )


def scan_units(
    units: Sequence[Unit],
    matcher: Matcher,
    redact: bool,
    on_hit: Callable[[Hit], None],
    errors: ErrorLines,
    year: YearRef,
    reading: Reading,
    stop_at: float | None = None,
    tail: int = 0,
) -> None:
    """Scan every stream of `units` in order; file indices continue from `reading`."""
    scanner = StreamScanner(matcher, on_hit, year, redact, errors)
    for unit in units:
        for stream in open_unit(unit, reading.notes):
            index = reading.streams
            reading.streams += 1
            if stop_at is not None and time.monotonic() > stop_at:
                reading.unread += 1  # at least this one; opening the rest would cost more time
                return
            try:
                fs = scanner.scan(stream, index, stop_at, tail)
            except Exception as e:  # a bug must cost one file, not the restart decision
                reading.notes.notes.append(
                    f"{stream.name}: internal error, file skipped: {type(e).__name__}: {e}"
                )
                continue
            reading.account(fs)


# A job smaller than this is read in one process: forking costs more than it saves.
FORK_MIN_BYTES = 32 << 20


def worth_forking(units: Sequence[Unit]) -> bool:
    """No standard input, FORK_MIN_BYTES in all, and a platform that forks. Here, not
    in analyzer.workers: deciding must not cost a small job the import of
    multiprocessing."""
    if not hasattr(os, "fork"):
        return False
    total = 0
    for unit in units:
        if unit.path is None:
            return False  # standard input is the parent's to read
        try:
            total += os.stat(unit.path).st_size
        except OSError:
            continue
    return total >= FORK_MIN_BYTES
