"""The pipeline end to end, driven by one object: `Analyzer`.

sources -> lines -> job model -> signature matches -> per-rank timelines -> culprit
rules -> verdict. `analyze()`, the worker processes (analyzer.read.workers), `watch`,
`unknowns` and training all read through an Analyzer, so every rule exists once.

`analyze()` is what a restart controller calls: it must return a Verdict for any log
content. It raises only for a bad argument or an invalid pattern file (the caller's
mistakes); unreadable inputs become notes in `Verdict.stats`.
"""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from datetime import datetime, timezone
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, TypeVar

from .decide.readiness import SCENARIOS, Readiness, Scenario, assess
from .decide.verdict import decide
from .job import flight
from .job.correlate import Collector, Evidence
from .job.model import JobBuilder, JobModel, path_who
from .job.timeline import HANG_FACTOR, HANG_MIN_GAP, Stall
from .read.reading import Account, Reading, worth_forking
from .read.scan import FileScan, StreamFeed, StreamScanner, YearRef
from .read.sources import (
    OutOfTime,
    SourceNotes,
    Stream,
    Unit,
    iter_units,
    likely_first,
    open_unit,
)
from .rules.automaton import available_engines
from .rules.cascade import Rule, load_rules
from .rules.formats import Fields, format_files
from .rules.formats import load as load_formats
from .rules.matcher import Matcher, context_only
from .rules.signatures import PatternSet, load_patterns
from .types import AnalyzerError, Hit, LogTime, Stats, Verdict, Who
from .unknowns import classifier
from .unknowns.region import ErrorLines

PathArg = str | os.PathLike[str]
T = TypeVar("T")

# Under a deadline: the share of it for reading (the rest is for the verdict and the
# margin), and how much of the end of each large plain file is read first.
_SCAN_SHARE = 0.85
TAIL_FIRST = 256 << 10
_PROGRESS_EVERY = 1.0  # seconds between progress callbacks
_VERDICT_PER_STREAM = 40e-6  # seconds the verdict spends per stream read (job model)


@dataclass(frozen=True)
class Settings:
    """How a job is analysed: one frozen object for the library, the CLI, batch,
    decide and watch, so an option exists once and means the same everywhere.

    `patterns`: extra signature folders or files on top of the built-in ones, or a
    loaded `PatternSet` (then used as it is). `signatures`: False turns every signature
    off, leaving the classifier alone; `model`: False turns the classifier off.
    `engine`: the automaton backend ("hyperscan", "re2"; default: Hyperscan where it is
    installed and finds every signature example, else RE2). `lang`: "en" or
    "zh" for the summary. `now`: the current time when the logs are live (hang
    detection); otherwise the end of the evidence is the latest timestamp in any file.
    `hang_factor`, `hang_min_gap`: a rank whose progress stopped longer ago than this
    many times its median step time, and at least this many seconds, is hung.
    `failed`: the caller knows the job failed (a non-zero exit status, a scheduler's
    job state): logs that show no cause then give `unknown`, never `none`.
    `redact`: replace secrets in every line of the verdict. `deadline`: seconds the
    caller can wait (tails of large files first, then everything while time remains;
    `stats.complete` says whether all was read). `workers`: processes that read the
    files of a large job; the verdict is the same for any number.
    """

    patterns: tuple[str, ...] | PatternSet = ()
    builtin_patterns: bool = True
    signatures: bool = True
    model: bool = True
    engine: str | None = None
    lang: str = "en"
    now: datetime | None = None
    hang_factor: float = HANG_FACTOR
    hang_min_gap: float = HANG_MIN_GAP
    failed: bool = False
    redact: bool = True
    deadline: float | None = None
    workers: int = 1

    def __post_init__(self) -> None:
        pats: Any = self.patterns
        if isinstance(pats, (str, os.PathLike)):
            pats = (os.fspath(pats),)
        elif not isinstance(pats, PatternSet):
            try:
                pats = tuple(os.fspath(p) for p in pats)
            except TypeError:
                raise AnalyzerError(
                    "patterns must be a path, paths or a PatternSet, not "
                    f"{type(self.patterns).__name__}"
                ) from None
        object.__setattr__(self, "patterns", pats)
        if self.lang not in ("en", "zh"):
            raise AnalyzerError(f"lang must be 'en' or 'zh', not {self.lang!r}")
        if self.engine is not None and self.engine not in available_engines():
            raise AnalyzerError(
                f"engine must be one of {', '.join(available_engines())}, not {self.engine!r}"
            )
        if self.deadline is not None and not _positive(self.deadline):
            raise AnalyzerError(
                f"deadline must be a positive number of seconds, not {self.deadline!r}"
            )
        if not _positive(self.hang_factor) or not _positive(self.hang_min_gap, zero=True):
            raise AnalyzerError("hang_factor must be > 0 and hang_min_gap >= 0")
        if not isinstance(self.workers, int) or self.workers < 1:
            raise AnalyzerError(f"workers must be a whole number >= 1, not {self.workers!r}")
        if self.now is not None and not isinstance(self.now, datetime):
            raise AnalyzerError(f"now must be a datetime, not {type(self.now).__name__}")

    def matcher(self) -> Matcher:
        """The compiled signatures these settings ask for (cached per process)."""
        if not self.signatures:
            return _matcher((), False, self.engine, ())
        if isinstance(self.patterns, PatternSet):
            return _pattern_set_matcher(self.patterns, self.engine)
        key = _fingerprint(self.patterns)
        return _matcher(self.patterns, self.builtin_patterns, self.engine, key)

    def rules(self) -> tuple[Rule, ...]:
        """Cascade rules (symptoms a root cause explains), cached like the matcher."""
        if not self.signatures:
            return _rules((), False, ())
        if isinstance(self.patterns, PatternSet):
            return _rules((), self.builtin_patterns, ())
        return _rules(self.patterns, self.builtin_patterns, _fingerprint(self.patterns))


def _positive(x: object, zero: bool = False) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    return x >= 0 if zero else x > 0


def _fingerprint(extra: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
    """The user's pattern files as (path, mtime, size): part of the cache key, so an
    edited pattern file is picked up by a long-running process."""
    out = []
    for item in extra:
        p = Path(item)
        files = sorted(p.rglob("*.y*ml")) if p.is_dir() else [p]
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            out.append((str(f), st.st_mtime_ns, st.st_size))
    return tuple(out)


@lru_cache(maxsize=8)
def _matcher(
    extra: tuple[str, ...], builtin: bool, engine: str | None, _key: tuple[object, ...]
) -> Matcher:
    # built-in line formats always: --no-builtin is about signatures, not about reading
    formats = load_formats(format_files(True, extra))
    return Matcher(load_patterns(extra, builtin=builtin), engine, formats)


_BY_SET: dict[tuple[int, str | None], tuple[PatternSet, Matcher]] = {}


def _pattern_set_matcher(patterns: PatternSet, engine: str | None) -> Matcher:
    """A PatternSet is compiled once per object (it is not hashable: it holds dicts)."""
    key = (id(patterns), engine)
    held = _BY_SET.get(key)
    if held is None or held[0] is not patterns:
        if len(_BY_SET) >= 8:
            _BY_SET.clear()
        held = _BY_SET[key] = (patterns, Matcher(patterns, engine))
    return held[1]


@lru_cache(maxsize=8)
def _rules(extra: tuple[str, ...], builtin: bool, _key: tuple[object, ...]) -> tuple[Rule, ...]:
    return load_rules(builtin, extra)


class Analyzer:
    """One job's analysis, fed stream by stream; `verdict()` at any moment.

    Bytes arrive by `feed(name, data)` (a growing log, a socket, an archive member the
    caller unpacks) and a stream ends with `close(name)`; `read(units)` reads whole
    inputs from disk or stdin. Hits go to the job's Collector, unless `on_hit` takes
    them instead (a worker process ships them to its parent, analyzer.read.workers).
    Not thread-safe: one Analyzer per job and thread.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        on_hit: Callable[[Hit], None] | None = None,
        matcher: Matcher | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.matcher = matcher or self.settings.matcher()
        self.collector = Collector()
        self.errors = ErrorLines()
        self.reading = Reading(SourceNotes(secrets=self.settings.redact))
        self.year = YearRef(formats=self.matcher.formats)
        self.builder = JobBuilder()
        self._listeners: list[Callable[[Hit], None]] = []
        self.scanner = StreamScanner(
            self.matcher,
            on_hit or self.collect,
            self.year,
            self.settings.redact,
            self.errors,
            self._fact,
        )
        self._feeds: dict[str, StreamFeed] = {}
        self.flight = flight.Records()
        self._dumps: dict[str, bytearray] = {}  # dumps being fed, read at close
        self._matched = 0  # dumps matched across ranks so far
        self._dump_bytes = 0  # bytes of dumps read (flight.MAX_JOB_BYTES)
        self._started = time.perf_counter()

    @property
    def account(self) -> Account:
        """What this reader keeps besides its hits (a worker's hand-off to the job)."""
        year = (self.year.year, self.year.at) if self.year.anchored else None
        return Account(self.reading, self.errors, self.builder, self.flight, year)

    def absorb(
        self, got: Account, base: int, lines: int, when: Callable[[LogTime | None], LogTime | None]
    ) -> None:
        """Another reader's account added to this job (a worker's share, whose hits came
        in already): its error lines and the job model's claims renumbered from file
        `base` and line `lines` on and re-dated by `when`, its dumps, its year anchor.
        The reading's own figures are the merger's (a file read in parts is one file)."""
        self.errors.merge(
            got.errors, base, lambda x: replace(x, line=x.line + lines, time=when(x.time))
        )
        self.builder.absorb(got.job, base, lines)
        self.flight.absorb(got.flight)
        if got.year is not None and not self.year.anchored:  # the job's first full date
            (self.year.year, self.year.at), self.year.anchored = got.year, True

    def fresh(self, on_hit: Callable[[Hit], None]) -> Analyzer:
        """A new Analyzer with these settings and this compiled matcher, its hits going to
        `on_hit`: a worker's, for one task (analyzer.read.workers)."""
        return Analyzer(self.settings, on_hit=on_hit, matcher=self.matcher)

    def collect(self, hit: Hit) -> None:
        """One hit into the job (the scanner's callback; workers' hits come here too)."""
        self.builder.see(hit.file_index, hit.file, hit.who)
        self.collector.add(hit)
        for listen in self._listeners:
            listen(hit)

    def _fact(
        self, file_index: int, name: str, line: int, k: int, fields: Fields, who: Who
    ) -> None:
        block = self.matcher.formats.facts[k].block
        self.builder.fact(file_index, name, line, block, fields, who)

    def model(self) -> JobModel:
        """The job model of what was read so far: who logged each line."""
        return self.builder.build(self.matcher.formats)

    def listen(self, callback: Callable[[Hit], None]) -> None:
        """Also call `callback` with every hit collected (watch reports new failures)."""
        self._listeners.append(callback)

    def feed(self, name: str, data: bytes, arrived: datetime | None = None) -> None:
        """Bytes of stream `name` (its path in the bundle names rank and host).
        `arrived`: when they were written, as a live watch sees them come (naive: local
        wall time, as zone-less log lines are); it times the step lines that print no
        time of their own, so a hang shows in any progress format. A stream that starts
        as a Flight Recorder dump is held and read whole at `close`."""
        _typed("name", name, str)
        _typed("data", data, (bytes, bytearray, memoryview))
        _typed("arrived", arrived, (datetime, type(None)))
        data = bytes(data)
        held = self._dumps.get(name)
        if held is not None:
            held += data[: flight.MAX_BYTES + 1 - len(held)]
            return
        feed = self._feeds.get(name)
        if feed is None:
            if flight.sniff(data[:4096]):
                self._dumps[name] = bytearray(data[: flight.MAX_BYTES + 1])
                return
            stream = Stream(
                name, io.BytesIO(), path_who(name, self.matcher.formats)
            )  # fed by the caller, never read
            index = self._next_stream()
            self.builder.names[index] = name
            feed = self._feeds[name] = self.scanner.open(stream, index)
        self.scanner.arrival = _log_time(arrived) if arrived is not None else None
        try:
            feed.feed(data)
        finally:
            self.scanner.arrival = None

    def close(self, name: str) -> None:
        """Stream `name` ended: its last line counts without a newline."""
        dump = self._dumps.pop(name, None)
        if dump is not None:
            self.read_dump(name, bytes(dump), path_who(name, self.matcher.formats).path_rank)
        feed = self._feeds.pop(name, None)
        if feed is not None:
            feed.close()
            self.reading.account(feed.fs)

    def _next_stream(self) -> int:
        index = self.reading.streams
        self.reading.streams += 1
        return index

    def read(self, units: Sequence[Unit], stop_at: float | None = None, tail: int = 0) -> None:
        """Scan every stream of `units` in order.

        `stop_at` (monotonic clock) ends reading early; `tail` reads large plain files
        from that many bytes before their end only.
        """
        try:
            for unit in units:
                if stop_at is not None and self._out_of_time(stop_at):
                    self.reading.unread += 1  # at least this one; opening the rest costs more
                    return
                formats = self.matcher.formats  # its path shapes say who wrote a stream
                for stream in open_unit(unit, self.reading.notes, stop_at, formats):
                    index = self._next_stream()
                    self.builder.names[index] = stream.name  # a file of the job, hits or not
                    if stream.dump:
                        data = stream.reader.read(flight.MAX_BYTES + 1)
                        self.read_dump(stream.name, data, stream.who.path_rank, stop_at)
                        continue
                    try:
                        fs = self.scanner.scan(stream, index, stop_at, tail)
                    except Exception as e:  # a bug must cost one file, not the restart decision
                        self.reading.notes.note(
                            f"{stream.name}: internal error, file skipped: {type(e).__name__}: {e}"
                        )
                        continue
                    self.reading.account(fs)
                    if fs.bytes == 0 and fs.error is None:
                        self.builder.empty.add(index)
                    if stop_at is not None and self._out_of_time(stop_at):
                        self.reading.unread += 1  # the archive's next members at least
                        return
        except OutOfTime:  # inside a header, a skip or a member list
            self.reading.unread += 1

    def read_dump(
        self, name: str, data: bytes, path_rank: int | None = None, stop_at: float | None = None
    ) -> None:
        """A Flight Recorder dump's bytes into the job's records (analyzer.job.flight), a
        rank's later dump replacing its earlier one; matched across ranks when the
        evidence is gathered (`match_dumps`)."""
        r = self.reading
        r.files += 1
        r.bytes += len(data)
        if len(data) > flight.MAX_BYTES:
            r.notes.skip(name, f"Flight Recorder dump larger than {flight.MAX_BYTES:,} bytes")
            return
        if stop_at is not None and len(data) > (stop_at - time.monotonic()) * flight.READ_RATE:
            r.unread += 1  # a dump is read whole or not at all: not past the deadline
            r.notes.skip(name, "Flight Recorder dump not read: it would run past the deadline")
            return
        self._dump_bytes += len(data)
        if self._dump_bytes > flight.MAX_JOB_BYTES:
            r.notes.skip(name, f"Flight Recorder dumps over {flight.MAX_JOB_BYTES:,} bytes in all")
            return
        try:
            dump = flight.load(data, name, path_rank, stop_at)
        except Exception as e:  # a bug must cost one dump, not the restart decision
            dump = f"internal error, dump skipped: {type(e).__name__}: {e}"
        if isinstance(dump, str):
            if dump == flight.DEADLINE_NOTE:
                r.unread += 1  # the job was not read whole
            r.notes.note(f"{name}: {dump}")
            return
        if dump.unread:
            r.notes.note(
                f"{name}: its oldest {dump.unread:,} entries were not read (a dump's "
                f"newest {flight.MAX_ENTRIES:,} are)"
            )
        self.flight.add(dump)

    def match_dumps(self) -> None:
        """What the ranks' Flight Recorder dumps show together, as lines of the dump of
        the rank each blames: scanned like any line, so the signatures
        (patterns/signatures/flight.yaml) and culprit rules judge them. Once per set of dumps: a
        dump read later (a live watch) has the set matched again."""
        if self._matched == self.flight.added:
            return
        self._matched = self.flight.added
        lines: dict[str, list[str]] = {}
        try:
            found = self.flight.findings()
        except Exception as e:  # a bug must cost the dumps' evidence, not the verdict
            self.reading.notes.note(f"Flight Recorder dumps not matched: internal error: {e!r}")
            found = []
        for item in found:
            lines.setdefault(item.dump, []).append(item.line)
        for name, texts in lines.items():
            data = ("\n".join(texts) + "\n").encode()
            stream = Stream(name, io.BytesIO(data), path_who(name, self.matcher.formats))
            index = self._next_stream()
            self.builder.names[index] = name
            self.scanner.scan(stream, index)

    def _out_of_time(self, stop_at: float) -> bool:
        """Past `stop_at`, less the time the verdict will take for the streams opened
        (the job model resolves each: 12,000 empty archive members cost 0.4 s)."""
        return time.monotonic() > stop_at - _VERDICT_PER_STREAM * self.reading.streams

    def read_part(self, unit: Unit, start: int, end: int, last: bool) -> FileScan:
        """Bytes [start, end) of a plain file, as a worker reads its part of one."""
        assert unit.path is not None
        path = Path(unit.path)
        self.builder.names[0] = unit.name
        with path.open("rb") as f:
            stream = Stream(unit.name, f, path_who(unit.name, self.matcher.formats), path, end)
            return self.scanner.scan_part(stream, 0, start, end, last)

    def read_paths(self, paths: Sequence[str], stop_at: float | None = None, tail: int = 0) -> None:
        """Every input under `paths`, in workers when the settings ask and it pays."""
        units: list[Unit] = []
        try:
            units.extend(iter_units(paths, self.reading.notes, stop_at))
        except OutOfTime:  # a folder too large to list in time: read what was listed
            self.reading.unread += 1
            self.reading.notes.note(
                f"deadline reached while listing the input: {len(units):,} files listed"
            )
        if stop_at is not None:  # what time allows: the files likeliest to hold the cause
            units.sort(key=likely_first)
        self.year.anchor(units, stop_at)
        workers = self.settings.workers
        if workers > 1 and stop_at is None and worth_forking(units):
            # imported here: multiprocessing (and pickle) stay out of a controller's
            # process unless it asks for workers
            from .read import workers as pool

            pool.scan_tasks(pool.plan(units), pool.Merger(self), workers)
        else:
            self.read(units, stop_at, tail)

    def stats(self) -> Stats:
        """What was read so far, and what could not be (open streams included)."""
        r = self.reading
        open_ = [f.fs for f in self._feeds.values()]
        scanning = self.scanner.current
        if scanning is not None:
            open_.append(scanning)
        notes = r.notes.shown()
        if r.unread and not any(n.startswith("deadline reached") for n in notes):
            notes.append("deadline reached: not every file was read to its end")
        return Stats(
            files=r.files + len(open_),
            lines=r.lines + sum(fs.lines for fs in open_),
            bytes=r.bytes + sum(fs.bytes for fs in open_),
            seconds=time.perf_counter() - self._started,
            unreadable=tuple(r.notes.unreadable),
            skipped=tuple(r.notes.skipped),
            notes=tuple(notes),
            truncated_lines=r.truncated,
            engine=self.matcher.automaton.name,
            complete=not (r.unread or r.tails),
        )

    def evidence(self, now: datetime | None = None) -> Evidence:
        """Everything the verdict rests on, as read so far."""
        _typed("now", now, (datetime, type(None)))
        self.match_dumps()
        s = self.settings
        ends = list(self.reading.ends)
        ends += [f.fs.last_time for f in self._feeds.values() if f.fs.last_time is not None]
        end = _end_of_evidence(self.collector.latest, ends, now or s.now)
        return self.collector.evidence(end, self.model(), s.hang_factor, s.hang_min_gap)

    @property
    def completed(self) -> bool:
        """Whether a completion marker was read (the run, or its worker group, finished)."""
        return self.collector.completed

    def stalls(self, end: LogTime, *fractions: float) -> list[list[Stall]]:
        """The streams stalled at `end`, their ranks resolved once, by each fraction of the
        hang thresholds (a live watch suspects a hang at half and looks for one at the
        full thresholds): what the timeline measures, not yet a verdict (only the culprit
        table confirms a hang)."""
        s = self.settings
        timeline = self.collector.timeline
        timeline.resolve(self.model())
        return [timeline.stalls(end, s.hang_factor * f, s.hang_min_gap * f) for f in fractions]

    def readiness(self, scenario: Scenario | None = None) -> Readiness:
        """Whether the job is set up so that recovery can work (analyzer.decide.readiness), on
        what was read so far; `scenario` None: inferred from the logs."""
        return assess(self.evidence(), self.stats(), scenario, self.settings.lang)

    def verdict(self, now: datetime | None = None) -> Verdict:
        """The root-cause verdict on everything read so far; `now` overrides the
        settings' (a live watch passes the wall clock)."""
        s = self.settings
        v = decide(
            self.evidence(now),
            self.stats(),
            s.lang,
            s.rules(),
            self.errors,
            classifier.load if s.model else None,
            s.failed,
            partial(context_only, self.matcher),
            self.matcher.formats,
        )
        # the seconds it took, deciding included: a dense log spends them there too
        return replace(v, stats=replace(v.stats, seconds=time.perf_counter() - self._started))


def _typed(name: str, value: object, kinds: type | tuple[type, ...]) -> None:
    """An argument of the wrong type is the caller's error, said as one (AnalyzerError),
    not a TypeError from deep inside the reader."""
    if not isinstance(value, kinds):
        want = " or ".join(k.__name__ for k in (kinds if isinstance(kinds, tuple) else (kinds,)))
        raise AnalyzerError(f"{name} must be {want}, not {type(value).__name__}")


def _normalise_paths(paths: PathArg | Iterable[PathArg]) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    try:
        out = [os.fspath(p) for p in paths]
    except TypeError:
        raise AnalyzerError(
            "paths must be a path or an iterable of paths (str or os.PathLike)"
        ) from None
    if not out:
        raise AnalyzerError("no paths given")
    return out


def analyze(
    paths: PathArg | Iterable[PathArg],
    settings: Settings | None = None,
    *,
    progress: Callable[[Stats], None] | None = None,
    **options: Any,
) -> Verdict:
    """Analyse the logs of one job and return its root-cause verdict.

    `paths`: files, folders (read recursively), archives, or "-" for stdin.
    `settings`: a `Settings`; keyword `options` are Settings fields (`patterns=`,
    `deadline=`, `workers=`, ...) and override it. See `Settings` for each. `workers`
    is 1 by default: forking a caller's process (a controller with threads) is the
    caller's choice to make. `progress`: called about once a second, from another
    thread, with what has been read so far (a terminal's sign of life on a long
    analysis). `stats.seconds` is the whole call, a deadline's first pass included.
    """
    started = time.perf_counter()
    v = read_job(paths, _with(settings, options), Analyzer.verdict, progress)
    return replace(v, stats=replace(v.stats, seconds=time.perf_counter() - started))


def readiness(
    paths: PathArg | Iterable[PathArg],
    scenario: Scenario | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> Readiness:
    """The HA readiness table of one job's logs: per recovery feature, what the logs
    show, with the evidence line, and a state (in_place, missing, cannot_tell).
    `scenario`: single_node, multi_node or large_model; None infers it from the logs.
    `settings` and `options` as for `analyze()`."""
    if scenario is not None and scenario not in SCENARIOS:
        raise AnalyzerError(f"scenario must be one of {', '.join(SCENARIOS)}, not {scenario!r}")
    return read_job(paths, _with(settings, options), lambda job: job.readiness(scenario))


def _with(settings: Settings | None, options: dict[str, Any]) -> Settings:
    s = settings or Settings()
    return replace(s, **_known(options)) if options else s


def read_job(
    paths: PathArg | Iterable[PathArg],
    settings: Settings,
    then: Callable[[Analyzer], T],
    progress: Callable[[Stats], None] | None = None,
) -> T:
    """`then` of an Analyzer that has read one job's inputs: everything, or under the
    settings' deadline the tails of large files first and then all that time allows
    (the fuller reading is kept only when it completed); `progress` sees the reading
    and `then` (deciding takes time too). analyze(), readiness() and batch read through
    it, so a job's verdict and its readiness table rest on one reading."""
    path_list = _normalise_paths(paths)
    job = Analyzer(settings)
    with _reporting(progress, lambda: job):
        if settings.deadline is None:
            job.read_paths(path_list)
        else:
            stop_at = time.monotonic() + settings.deadline * _SCAN_SHARE
            job.read_paths(path_list, stop_at, TAIL_FIRST)
            if job.reading.tails and time.monotonic() < stop_at:
                first, job = job, Analyzer(settings)
                job.read_paths(path_list, stop_at)
                if not job.stats().complete:
                    job = first
        return then(job)


@contextmanager
def _reporting(
    progress: Callable[[Stats], None] | None, current: Callable[[], Analyzer]
) -> Iterator[None]:
    """Call `progress` with the current analyzer's stats every second until the block
    ends; a callback that raises is dropped, never the analysis."""
    if progress is None:
        yield
        return
    done = threading.Event()

    def beat() -> None:
        while not done.wait(_PROGRESS_EVERY):
            try:
                progress(current().stats())
            except Exception:  # a broken terminal must not end the analysis
                return

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(2.0)


def _known(options: dict[str, Any]) -> dict[str, Any]:
    known = {f.name for f in fields(Settings)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise AnalyzerError(f"unknown option(s): {', '.join(unknown)}")
    return options


def _log_time(when: datetime) -> LogTime:
    """A caller's datetime as a line's time: a naive one is wall time without a zone."""
    if when.tzinfo is None:
        return LogTime(when.replace(tzinfo=timezone.utc).timestamp(), True, False)
    return LogTime(when.timestamp(), True, True)


def _end_of_evidence(
    latest: LogTime | None, ends: list[LogTime], now: datetime | None
) -> LogTime | None:
    """The latest wall-clock time the logs show (any line of any file), or the caller's
    `now`. File modification times are not used: copying a bundle resets them."""
    if now is not None:
        return _log_time(now)  # a naive `now` is local wall time, as zone-less lines are
    times = [t for t in [latest, *ends] if t is not None and t.absolute]
    return max(times, key=lambda t: t.epoch) if times else None
