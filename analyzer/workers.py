"""A job's files scanned in several processes, with the result one process gives.

Each worker scans whole input files (sources.Unit) and ships back their hits, error
lines and reading account; the parent feeds them to its one Collector in file order,
so correlation sees the very sequence a single process sees. Two things differ inside
a worker and are put right in merge_into: file indices (a worker counts from 0) and
the year of timestamps that carry none (glog, syslog), which one process takes from the
first full date anywhere earlier in the job (scan.YearRef).

Processes are forked, so the compiled matcher is inherited rather than rebuilt; where
fork is unavailable the job is read in one process. Shipping is bounded: a file with
more than _MAX_SHIPPED hits (a warning printed at every step of a long run) is read
again by the parent instead, so memory stays flat at the cost of reading it twice.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from .correlate import Collector
from .matcher import Matcher
from .reading import Reading, scan_units
from .region import ErrorLines
from .scan import YearRef
from .sources import Unit
from .types import Hit, LogTime

# A job smaller than this is read in one process: forking costs more than it saves.
FORK_MIN_BYTES = 32 << 20
_MAX_SHIPPED = 100_000
_shared: tuple[Matcher, bool] | None = None  # set before forking, inherited by workers


@dataclass
class UnitScan:
    """One input file as a worker read it."""

    unit: Unit
    hits: list[Hit] = field(default_factory=list)
    errors: ErrorLines = field(default_factory=ErrorLines)
    year: YearRef = field(default_factory=YearRef)
    reading: Reading = field(default_factory=Reading)
    overflow: bool = False

    def merge_into(
        self,
        collector: Collector,
        errors: ErrorLines,
        year: YearRef,
        reading: Reading,
        matcher: Matcher,
    ) -> None:
        """Add this file to the job as if one process had just read it."""
        base = reading.streams
        # One process would have given year-less times the job's year, if it had one.
        fix_year = year.year if year.anchored else None
        if fix_year is None and self.year.anchored:
            year.year, year.anchored = self.year.year, True

        def when(t: LogTime | None) -> LogTime | None:
            if t is None or fix_year is None or not t.inferred:
                return t
            return t.with_year(fix_year)

        by_id = {s.id: s for s in matcher.signatures}
        for hit in self.hits:
            collector.add(
                replace(
                    hit,
                    signature=by_id[hit.signature.id],
                    file_index=base + hit.file_index,
                    time=when(hit.time),
                )
            )
        errors.merge(self.errors, base, lambda x: replace(x, time=when(x.time)))
        mine, theirs = reading, self.reading
        mine.notes.unreadable += theirs.notes.unreadable
        mine.notes.skipped += theirs.notes.skipped
        mine.notes.notes += theirs.notes.notes
        mine.files += theirs.files
        mine.lines += theirs.lines
        mine.bytes += theirs.bytes
        mine.truncated += theirs.truncated
        mine.streams += theirs.streams
        mine.ends += [t for t in map(when, theirs.ends) if t is not None]


def _scan(unit: Unit) -> UnitScan:
    assert _shared is not None
    matcher, redact = _shared
    out = UnitScan(unit)

    def ship(hit: Hit) -> None:
        if len(out.hits) < _MAX_SHIPPED:
            out.hits.append(hit)
        else:
            out.overflow = True

    scan_units([unit], matcher, redact, ship, out.errors, out.year, out.reading)
    if out.overflow:
        return UnitScan(unit, overflow=True)
    return out


def worth_forking(units: Sequence[Unit]) -> bool:
    """Two or more files (no standard input) holding FORK_MIN_BYTES in all, on a
    platform that forks."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    files = [u.path for u in units if u.path is not None]
    if len(files) < len(units):
        return False  # standard input is the parent's to read
    total = 0
    for path in files:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue
    return len(files) > 1 and total >= FORK_MIN_BYTES


def fan_out(
    units: Sequence[Unit], matcher: Matcher, redact: bool, workers: int
) -> Iterator[UnitScan]:
    """Each unit scanned in a worker, yielded in input order."""
    global _shared
    _shared = (matcher, redact)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(min(workers, len(units)), mp_context=context) as pool:
        yield from pool.map(_scan, units)
