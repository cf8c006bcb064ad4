"""The account of what a job's reading read (files, lines, bytes, notes), which becomes
Verdict.stats, and whether a job is worth reading in several processes.

The Analyzer (analyzer.analysis) keeps one; a worker process keeps its own for its share
(analyzer.read.workers) and the parent absorbs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..types import LogTime
from .scan import DEADLINE_REACHED, FileScan
from .sources import SourceNotes, Unit

if TYPE_CHECKING:
    from ..job.flight import Records
    from ..job.model import JobBuilder
    from ..unknowns.region import ErrorLines


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
        """Add what another reader read (a worker, analyzer.read.workers), its times re-dated."""
        self.notes.absorb(other.notes)
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
        note = self.notes.note
        if fs.start:
            self.tails += 1
            note(
                f"{fs.name}: only its last {fs.read:,} bytes were read (deadline); its line "
                f"numbers count from byte {fs.start:,}"
            )
        if fs.error == DEADLINE_REACHED:
            self.unread += 1
        elif fs.error:
            note(f"{fs.name}: read stopped early: {fs.error} (kept what was read)")
        if fs.last_time is not None:
            self.ends.append(fs.last_time)
        if fs.truncated:
            note(f"{fs.name}: {fs.truncated} line(s) longer than 1 MiB were cut for matching")


@dataclass(frozen=True)
class Account:
    """Everything one reader keeps besides its hits: the reading's account, the error
    lines, the job model's claims and facts, the Flight Recorder dumps and the year
    anchor. The hand-off from a worker's reader to the job's (analyzer.read.workers):
    one value, so no stage copies a reader's parts by hand."""

    reading: Reading
    errors: ErrorLines
    job: JobBuilder
    flight: Records
    # the job's first full date, if the reader found one: (its year, its epoch); values,
    # not the YearRef, which holds the compiled formats a worker must not ship back
    year: tuple[int, float | None] | None


# A job smaller than this is read in one process: forking costs more than it saves.
FORK_MIN_BYTES = 32 << 20


def worth_forking(units: Sequence[Unit]) -> bool:
    """No standard input, FORK_MIN_BYTES in all, and a platform that forks. Here, not
    in analyzer.read.workers: deciding must not cost a small job the import of
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
