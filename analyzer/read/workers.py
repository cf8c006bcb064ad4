"""A job read in several processes, with the result one process gives.

The work is cut into tasks: whole input files (sources.Unit; small ones in batches of
up to 8 MiB, as a worker's fresh Analyzer and its shipment cost ~2 ms a task: a job of
256 one-MiB rank files read two ways was 1.42x one), and 64 MiB parts of a large plain
file (scan.SEGMENT; a part begins at a line, and chunks end at the same
multiples of BLOCK as a whole reading, so every block, sample and detail budget is the
same). Workers ship back hits, error lines and reading accounts; the parent feeds them
to its one Collector in input order (Merger), so correlation sees the very sequence a
single process sees. What differs inside a worker is put right there: file indices and
line numbers (a worker counts from 0 and from the start of its part), and the year of
timestamps that carry none (glog, syslog), which one process takes from the first full
date anywhere earlier in the job (scan.YearRef).

Processes are forked, so the compiled matcher is inherited rather than rebuilt; where
fork is unavailable the job is read in one process. Shipping is bounded: a task with
more than _MAX_SHIPPED hits (a warning printed at every step of a long run) is read
again by the parent, straight into the Collector, so memory stays flat at the cost of
reading that task twice.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..types import Hit, LogTime
from .reading import Account
from .scan import LINE_CAP, SEGMENT, FileScan
from .sources import SourceNotes, Unit, open_unit

if TYPE_CHECKING:  # the driver: workers get it from their caller, never import it
    from ..analysis import Analyzer

_MAX_SHIPPED = 100_000
_BATCH_BYTES = 8 << 20  # small whole files read together by one worker, up to this
_BATCH_FILES = 64
_shared: Analyzer | None = None  # the parent job, set before forking, inherited by workers


@dataclass(frozen=True)
class Task:
    """Whole inputs (end 0), or bytes [start, end) of one plain file (units[0])."""

    units: tuple[Unit, ...]
    start: int = 0
    end: int = 0
    last: bool = True  # the file's last part: it ends the stream


@dataclass
class Shipment:
    """What a worker read for one task: its hits, its reader's account (None when it
    shipped nothing: too many hits to ship), and a part's reading."""

    task: Task
    hits: list[Hit] = field(default_factory=list)
    account: Account | None = None
    part: FileScan | None = None
    overflow: bool = False


def _plain_size(unit: Unit) -> int | None:
    """The size of an input that is one plain log file (not compressed, no archive)."""
    if unit.path is None:
        return None
    streams = open_unit(unit, SourceNotes())
    try:
        stream = next(streams, None)
    finally:
        streams.close()
    return stream.size if stream is not None and stream.path is not None else None


def _parts(unit: Unit, size: int) -> list[Task]:
    """The file cut at the line starts before each multiple of SEGMENT; a cut that would
    fall inside a line longer than LINE_CAP is left out (that line is read whole)."""
    assert unit.path is not None
    cuts = [0]
    with open(unit.path, "rb") as f:
        for at in range(SEGMENT, size, SEGMENT):
            f.seek(at - LINE_CAP)
            nl = f.read(LINE_CAP).rfind(b"\n")
            if nl >= 0 and at - LINE_CAP + nl + 1 > cuts[-1]:
                cuts.append(at - LINE_CAP + nl + 1)
    ends = [*cuts[1:], size]
    return [
        Task((unit,), a, b, last=i == len(cuts) - 1)
        for i, (a, b) in enumerate(zip(cuts, ends, strict=True))
    ]


def plan(units: Sequence[Unit]) -> list[Task]:
    """Tasks for the inputs: large plain files in parts, small files in batches (in
    input order), everything else whole."""
    tasks: list[Task] = []
    batch: list[Unit] = []
    batched = 0

    def flush() -> None:
        nonlocal batched
        if batch:
            tasks.append(Task(tuple(batch)))
            batch.clear()
            batched = 0

    for unit in units:
        try:
            on_disk = os.stat(unit.path).st_size if unit.path is not None else None
        except OSError:
            on_disk = None
        if on_disk is not None and on_disk < _BATCH_BYTES:
            if batched + on_disk > _BATCH_BYTES or len(batch) == _BATCH_FILES:
                flush()
            batch.append(unit)
            batched += on_disk
            continue
        flush()
        big = on_disk is not None and on_disk >= 2 * SEGMENT
        size = _plain_size(unit) if big else None  # opened only when it may be cut
        if size is not None and size >= 2 * SEGMENT:
            tasks += _parts(unit, size)
        else:
            tasks.append(Task((unit,)))
    flush()
    return tasks


def read(task: Task, parent: Analyzer, sink: Callable[[Hit], None]) -> Shipment:
    """Read one task with a fresh Analyzer like `parent`, as a worker does; hits go to
    `sink`."""
    job = parent.fresh(sink)
    part = None
    if not task.end:
        job.read(list(task.units))
    else:
        part = job.read_part(task.units[0], task.start, task.end, task.last)
    return Shipment(task, account=job.account, part=part)


def _work(task: Task) -> Shipment:
    assert _shared is not None
    hits: list[Hit] = []
    overflow = False

    def ship(hit: Hit) -> None:
        nonlocal overflow
        if len(hits) < _MAX_SHIPPED:
            hits.append(hit)
        else:
            overflow = True

    out = read(task, _shared, ship)
    if overflow:
        return Shipment(task, overflow=True)
    out.hits = hits
    return out


def fan_out(tasks: Sequence[Task], parent: Analyzer, workers: int) -> Iterator[Shipment]:
    """Each task read in a worker, yielded in input order.

    At most two tasks per worker are in flight: results wait in this process until the
    ones before them are merged, so a job of thousands of files must not have them all
    done and held at once (`map` submits every task up front)."""
    global _shared
    _shared = parent
    context = multiprocessing.get_context("fork")
    n = min(workers, len(tasks))
    with ProcessPoolExecutor(n, mp_context=context) as pool:
        queued = iter(tasks)
        window = deque(pool.submit(_work, t) for t in itertools.islice(queued, 2 * n))
        while window:
            shipment = window.popleft().result()
            following = next(queued, None)
            if following is not None:
                window.append(pool.submit(_work, following))
            yield shipment


class Merger:
    """Adds shipments to the job as if one process had read them just now."""

    def __init__(self, job: Analyzer) -> None:
        self.job = job
        self.year, self.reading = job.year, job.reading
        self._by_id = {s.id: s for s in job.matcher.signatures}
        self._file: FileScan | None = None  # the file whose parts are being merged
        # the current task's fixes, set by sink()
        self._base = self._lines = 0
        self._when: Callable[[LogTime | None], LogTime | None] = lambda t: t

    def sink(self, task: Task) -> Callable[[Hit], None]:
        """Where the hits of `task` go: renumbered and re-dated, into the Collector.

        Fixes the task's file number, line offset and year, which finish() applies to
        the rest of what it read.
        """
        base = self._base = self.reading.streams
        lines = self._lines = self._file.lines if task.start and self._file else 0
        # One process would have given year-less times the job's year, if it had one.
        fix = self.year.year if self.year.anchored else None

        def when(t: LogTime | None) -> LogTime | None:
            if t is None or fix is None or not t.inferred:
                return t
            return self.year.place(t.with_year(fix))

        self._when = when
        by_id, add = self._by_id, self.job.collect

        def put(hit: Hit) -> None:
            add(
                replace(
                    hit,
                    signature=by_id[hit.signature.id],
                    log=replace(
                        hit.log,
                        file_index=base + hit.file_index,
                        number=hit.line + lines,
                        time=when(hit.time),
                    ),
                    context_first_line=hit.context_first_line + lines,
                )
            )

        return put

    def finish(self, shipment: Shipment) -> None:
        """Everything but the hits (after sink): error lines, the reading account, the year."""
        when, lines, got = self._when, self._lines, shipment.account
        assert got is not None
        self.job.absorb(got, self._base, lines, when)
        if shipment.part is None:
            self.reading.absorb(got.reading, when)
            return
        part = shipment.part
        whole = self._file
        if whole is None or not part.start:
            whole = self._file = replace(part, start=0, last_time=None)
        else:
            whole.lines += part.lines
            whole.bytes = part.bytes
            whole.truncated += part.truncated
            whole.error = whole.error or part.error
        last = when(part.last_time)
        if last is not None:
            whole.see_time(last)
        if shipment.task.last:
            self.reading.account(whole)
            self.reading.streams += 1
            self._file = None


def scan_tasks(tasks: Sequence[Task], merger: Merger, workers: int) -> None:
    """Every task read by the workers and merged in order."""
    for shipment in fan_out(tasks, merger.job, workers):
        if shipment.overflow:  # too many hits to ship: read here, straight into the job
            shipment = read(shipment.task, merger.job, merger.sink(shipment.task))
        else:
            put = merger.sink(shipment.task)
            for hit in shipment.hits:
                put(hit)
        merger.finish(shipment)
