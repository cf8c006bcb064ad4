"""Live watch: follow growing log files and report failures and hangs as they happen.

`tail -F` semantics: files appearing later in a watched folder are picked up, a file
that is replaced (new inode) or truncated is read again from its start. Each file keeps
its scanning state between polls, so a line split across two writes is read once, whole.
Memory stays bounded: findings collapse by template, timelines keep a fixed window.
"""

from __future__ import annotations

import calendar
import io
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .analysis import PathArg, get_matcher, get_rules
from .correlate import Collector
from .scan import StreamFeed, StreamScanner, YearRef
from .sources import Stream, path_hints
from .timeline import HANG_FACTOR, HANG_MIN_GAP
from .types import Hit, LogTime, Stats, Verdict
from .verdict import decide

_READ_CAP = 64 << 20  # per file and poll: one huge burst cannot stall the others


@dataclass(frozen=True)
class WatchEvent:
    """One thing a controller may act on; printed as one JSON line."""

    kind: str  # failure | hang_suspected | hang_confirmed | finished
    time: str
    detail: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "time": self.time, **self.detail}


@dataclass
class _Followed:
    inode: int
    offset: int
    feed: StreamFeed


@dataclass
class _Reported:
    failures: set[tuple[str, int | None]] = field(default_factory=set)
    suspected: set[tuple[int, int | None]] = field(default_factory=set)
    confirmed: set[tuple[int, int | None]] = field(default_factory=set)
    finished: bool = False


def _local_naive_now(now: float) -> float:
    """Log lines without a zone carry local wall time; compare them with local time."""
    return now + (calendar.timegm(time.localtime(now)) - int(now))


class Watcher:
    """Follows paths and turns new lines into events; `verdict()` at any moment."""

    def __init__(
        self,
        paths: Sequence[PathArg],
        *,
        patterns: Sequence[PathArg] = (),
        engine: str | None = None,
        hang_factor: float = HANG_FACTOR,
        hang_min_gap: float = HANG_MIN_GAP,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.paths = [Path(os.fspath(p)) for p in paths]
        self.matcher = get_matcher(patterns, engine=engine)
        self.rules = get_rules(patterns)
        self.collector = Collector()
        self.scanner = StreamScanner(self.matcher, self._on_hit, YearRef())
        self.hang_factor, self.hang_min_gap = hang_factor, hang_min_gap
        self.clock = clock
        self._files: dict[Path, _Followed] = {}
        self._new_hits: list[Hit] = []
        self._reported = _Reported()
        self._next_index = 0

    def _on_hit(self, hit: Hit) -> None:
        self.collector.add(hit)
        if hit.signature.role != "progress":
            self._new_hits.append(hit)

    def _discover(self) -> Iterator[Path]:
        for p in self.paths:
            if p.is_dir():
                for dirpath, dirnames, filenames in os.walk(p):
                    dirnames.sort()
                    for fn in sorted(filenames):
                        yield Path(dirpath) / fn
            else:
                yield p

    def _name(self, path: Path) -> str:
        for root in self.paths:
            if root.is_dir() and path.is_relative_to(root):
                return path.relative_to(root).as_posix()
        return str(path)

    def _read(self, path: Path) -> None:
        try:
            st = path.stat()
        except OSError:
            return
        followed = self._files.get(path)
        if followed is None or followed.inode != st.st_ino or st.st_size < followed.offset:
            if followed is not None:  # rotated or truncated: finish the old one, start over
                followed.feed.close()
            name = self._name(path)
            rank, host = path_hints(name)
            stream = Stream(name, io.BytesIO(), rank, host)  # fed by us, never read
            followed = _Followed(st.st_ino, 0, self.scanner.open(stream, self._next_index))
            self._next_index += 1
            self._files[path] = followed
        if st.st_size == followed.offset:
            return
        try:
            with path.open("rb") as f:
                f.seek(followed.offset)
                data = f.read(min(st.st_size - followed.offset, _READ_CAP))
        except OSError:
            return
        followed.offset += len(data)
        followed.feed.feed(data)

    def poll(self) -> list[WatchEvent]:
        """Read what was appended since the last poll and return the new events."""
        for path in self._discover():
            self._read(path)
        now = self.clock()
        stamp = datetime.fromtimestamp(now, tz=timezone.utc).isoformat(timespec="seconds")
        events = [self._failure_event(h, stamp) for h in self._new_failures()]
        self._new_hits = []
        if self.collector.completed and not self._reported.finished:
            self._reported.finished = True
            events.append(WatchEvent("finished", stamp, {}))
        end = LogTime(_local_naive_now(now))
        for kind, factor, seen in (
            ("hang_suspected", 0.5, self._reported.suspected),
            ("hang_confirmed", 1.0, self._reported.confirmed),
        ):
            if self.collector.completed:
                break
            for st in self.collector.timeline.stalls(
                end, self.hang_factor * factor, self.hang_min_gap * factor
            ):
                key = (st.stream.file_index, st.stream.rank)
                if key in seen:
                    continue
                seen.add(key)
                events.append(
                    WatchEvent(
                        kind,
                        stamp,
                        {
                            "file": st.stream.file,
                            "rank": st.stream.rank,
                            "line": st.last.line,
                            "last_progress": st.last.time.iso() if st.last.time else None,
                            "stalled_seconds": round(st.gap, 1),
                            "step_seconds": round(st.step_time, 3),
                        },
                    )
                )
        return events

    def _new_failures(self) -> Iterator[Hit]:
        for h in self._new_hits:
            sig = h.signature
            deciding = sig.role == "cause" and sig.severity in ("fatal", "error")
            if not (deciding or (sig.role == "symptom" and sig.severity == "fatal")):
                continue
            key = (sig.id, h.rank)
            if key not in self._reported.failures:
                self._reported.failures.add(key)
                yield h

    @staticmethod
    def _failure_event(h: Hit, stamp: str) -> WatchEvent:
        sig = h.signature
        return WatchEvent(
            "failure",
            stamp,
            {
                "category": sig.category,
                "role": sig.role,
                "signature": sig.id,
                "file": h.file,
                "line": h.line,
                "rank": h.rank,
                "text": h.text,
            },
        )

    def verdict(self) -> Verdict:
        """The verdict on everything read so far, with the wall clock as the end of time."""
        lines = sum(f.feed.fs.lines for f in self._files.values())
        nbytes = sum(f.feed.fs.bytes for f in self._files.values())
        stats = Stats(len(self._files), lines, nbytes, 0.0, (), engine=self.matcher.automaton.name)
        now = LogTime(_local_naive_now(self.clock()))
        evidence = self.collector.evidence(now, self.hang_factor, self.hang_min_gap)
        return decide(evidence, stats, rules=self.rules)
