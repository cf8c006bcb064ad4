"""The pipeline end to end: sources -> scan -> correlate -> verdict.

`analyze()` is what a restart controller calls: it must return a Verdict for any log
content. It raises only for a bad argument or an invalid pattern file (the caller's
mistakes); unreadable inputs become notes in `Verdict.stats`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from . import classifier
from .cascade import Rule, load_rules
from .correlate import Collector
from .matcher import Matcher
from .reading import Reading, scan_units, worth_forking
from .region import ErrorLines
from .scan import YearRef
from .signatures import builtin_dir, load_patterns
from .sources import iter_units
from .timeline import HANG_FACTOR, HANG_MIN_GAP
from .types import AnalyzerError, LogTime, Stats, Verdict
from .verdict import decide

PathArg = str | os.PathLike[str]


def _fingerprint(extra: Sequence[PathArg]) -> tuple[tuple[str, int, int], ...]:
    """The user's pattern files as (path, mtime, size): part of the cache key, so an
    edited pattern file is picked up by a long-running process."""
    out = []
    for item in extra:
        p = Path(os.fspath(item))
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
    return Matcher(load_patterns(extra, builtin=builtin), engine)


@lru_cache(maxsize=8)
def _rules(extra: tuple[str, ...], builtin: bool, _key: tuple[object, ...]) -> tuple[Rule, ...]:
    return load_rules(builtin_dir() if builtin else None, extra)


def get_rules(patterns: Sequence[PathArg] = (), *, builtin: bool = True) -> tuple[Rule, ...]:
    """Cascade rules, cached per process like the matcher."""
    return _rules(tuple(os.fspath(p) for p in patterns), builtin, _fingerprint(patterns))


def get_matcher(
    patterns: Sequence[PathArg] = (), *, builtin: bool = True, engine: str | None = None
) -> Matcher:
    """A compiled Matcher, cached per process: compiling the automaton is the slow part."""
    return _matcher(tuple(str(p) for p in patterns), builtin, engine, _fingerprint(patterns))


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
    *,
    patterns: Sequence[PathArg] = (),
    builtin_patterns: bool = True,
    signatures: bool = True,
    model: bool = True,
    engine: str | None = None,
    lang: str = "en",
    now: datetime | None = None,
    hang_factor: float = HANG_FACTOR,
    hang_min_gap: float = HANG_MIN_GAP,
    redact: bool = True,
    deadline: float | None = None,
    workers: int = 1,
) -> Verdict:
    """Analyse the logs of one job and return its root-cause verdict.

    `paths`: files, folders (read recursively), archives, or "-" for stdin.
    `patterns`: extra signature folders or files, on top of the built-in ones.
    `signatures`: False turns every signature off (built-in and extra), leaving the
    classifier alone; `model`: False turns the classifier off.
    `engine`: force an automaton backend ("hyperscan" or "re2"); default: the fastest.
    `lang`: "en" or "zh" for the summary sentence; ids stay English.
    `now`: the current time, when the logs are live (for hang detection); otherwise the
    end of the evidence is the latest timestamp in any file.
    `hang_factor`, `hang_min_gap`: a rank whose progress stopped longer ago than this many
    times its median step time, and at least this many seconds, is hung.
    `redact`: replace secrets (tokens, keys, passwords) in every line of the verdict.
    `deadline`: seconds the caller can wait. The tails of large files are read first
    (a root cause is usually near the end of the first failing rank's log), then
    everything while time remains; `stats.complete` says whether all was read.
    `workers`: processes that read the files of a large job (analyzer.workers); the
    verdict is the same for any number. One by default: forking a caller's process (a
    controller with threads) is the caller's choice to make.
    """
    if lang not in ("en", "zh"):
        raise AnalyzerError(f"lang must be 'en' or 'zh', not {lang!r}")
    if deadline is not None and not deadline > 0:
        raise AnalyzerError(f"deadline must be a positive number of seconds, not {deadline!r}")
    path_list = _normalise_paths(paths)
    if not signatures:
        patterns, builtin_patterns = (), False
    stop_at = None if deadline is None else time.monotonic() + deadline * _SCAN_SHARE
    matcher = get_matcher(patterns, builtin=builtin_patterns, engine=engine)
    if stop_at is None:
        job = scan_job(path_list, matcher, redact, workers=workers)
    else:
        job = scan_job(path_list, matcher, redact, stop_at, tail=TAIL_FIRST)
        if job.tails and time.monotonic() < stop_at:
            full = scan_job(path_list, matcher, redact, stop_at)
            if full.stats.complete:
                job = full
    end = _end_of_evidence(job.collector.latest, job.ends, now)
    rules = get_rules(patterns, builtin=builtin_patterns)
    return decide(
        job.collector.evidence(end, hang_factor, hang_min_gap),
        job.stats,
        lang,
        rules,
        job.errors,
        classifier.load() if model else None,
    )


# Under a deadline: the share of it for reading (the rest is for the verdict and the
# margin), and how much of the end of each large plain file is read first.
_SCAN_SHARE = 0.85
TAIL_FIRST = 256 << 10


@dataclass
class ScannedJob:
    collector: Collector
    errors: ErrorLines
    stats: Stats
    ends: list[LogTime]
    tails: int  # files of which only the tail was read


def scan_job(
    path_list: Sequence[str],
    matcher: Matcher,
    redact: bool = True,
    stop_at: float | None = None,
    tail: int = 0,
    workers: int = 1,
) -> ScannedJob:
    """Every stream of a job through the scanner: hits, error lines and statistics.

    `stop_at` (monotonic clock) ends reading early; `tail` reads large plain files from
    that many bytes before their end only. `workers` > 1 scans the files of a large
    job in that many processes (analyzer.workers), with the same result.
    """
    started = time.perf_counter()
    reading = Reading()
    collector = Collector()
    errors = ErrorLines()
    year = YearRef()
    units = list(iter_units(path_list, reading.notes))
    if workers > 1 and stop_at is None and worth_forking(units):
        # imported here: multiprocessing (and pickle) stay out of a controller's process
        # unless it asks for workers
        from . import workers as pool

        merger = pool.Merger(matcher, collector, errors, year, reading)
        pool.scan_tasks(pool.plan(units), merger, matcher, redact, workers)
    else:
        scan_units(units, matcher, redact, collector.add, errors, year, reading, stop_at, tail)
    if reading.unread:
        reading.notes.notes.append("deadline reached: not every file was read to its end")
    notes = reading.notes
    stats = Stats(
        files=reading.files,
        lines=reading.lines,
        bytes=reading.bytes,
        seconds=time.perf_counter() - started,
        unreadable=tuple(notes.unreadable),
        skipped=tuple(notes.skipped),
        notes=tuple(notes.notes),
        truncated_lines=reading.truncated,
        engine=matcher.automaton.name,
        complete=not (reading.unread or reading.tails),
    )
    return ScannedJob(collector, errors, stats, reading.ends, reading.tails)


def _end_of_evidence(
    latest: LogTime | None, ends: list[LogTime], now: datetime | None
) -> LogTime | None:
    """The latest wall-clock time the logs show (any line of any file), or the caller's
    `now`. File modification times are not used: copying a bundle resets them."""
    if now is not None:
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        return LogTime(now.timestamp(), True, True)
    times = [t for t in [latest, *ends] if t is not None and t.absolute]
    return max(times, key=lambda t: t.epoch) if times else None
