"""Live watch: follow growing log files and report failures and hangs as they happen.

`tail -F` semantics: files appearing later in a watched folder are picked up, a file
that is replaced (new inode) or truncated is read again from its start. Each file keeps
its scanning state between polls, so a line split across two writes is read once, whole.
Memory stays bounded: findings collapse by template, timelines keep a fixed window.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, BinaryIO

from ..analysis import Analyzer, PathArg, Settings
from ..job import flight
from ..job.model import path_who
from ..job.timeline import Stall
from ..read.sources import SourceNotes, Unit, iter_units, open_regular
from ..types import DATA_ROLES, Hit, LogTime, Verdict

_READ_CAP = 64 << 20  # per file and poll: one huge burst cannot stall the others
_POLL_CAP = 256 << 20  # per poll, all files: a poll is bounded whatever the files do
_BLOCK = 1 << 20


@dataclass(frozen=True)
class WatchEvent:
    """One thing a controller may act on; printed as one JSON line."""

    kind: str  # failure | hang_suspected | hang_confirmed | finished
    time: str
    detail: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, "time": self.time, **self.detail}


# Bytes of a followed file compared at each poll to tell a rewrite from an append: its
# first bytes and the ones just before the offset reached.
_PROBE = 256
_SNIFF = 4096  # bytes a new file is sniffed by for a Flight Recorder dump


@dataclass
class _Followed:
    inode: int
    offset: int
    head: bytes = b""  # the file's first _PROBE bytes, as first read
    last: bytes = b""  # the _PROBE bytes before `offset`
    dump: bool = False  # a Flight Recorder dump: read whole once it stops growing
    seen: int = -1  # the dump's size at the last poll

    def same(self, f: BinaryIO) -> bool:
        """The file still begins, and still holds at `offset`, what was read: a
        copytruncate rotation that regrew past the offset between two polls does not."""
        if not self.offset:
            return True
        f.seek(0)
        if f.read(len(self.head)) != self.head:
            return False
        f.seek(self.offset - len(self.last))
        return f.read(len(self.last)) == self.last

    def advance(self, data: bytes) -> None:
        if len(self.head) < _PROBE:
            self.head = (self.head + data)[:_PROBE]
        self.last = (self.last + data)[-_PROBE:]
        self.offset += len(data)


@dataclass
class _Reported:
    failures: set[tuple[str | None, str, int]] = field(default_factory=set)
    suspected: set[tuple[str, int | None]] = field(default_factory=set)
    confirmed: set[tuple[str, int | None]] = field(default_factory=set)
    finished: bool = False


class Watcher:
    """Follows paths and turns new lines into events; `verdict()` at any moment.

    The job is one Analyzer fed as the files grow: the same signatures, rules,
    classifier and verdict as `analyze`, and the same listing of inputs (a symbolic link
    inside a watched folder is not followed, sources.iter_units). A `failure` event is a
    new root cause of the verdict, so watch and analyze never disagree on what failed.
    """

    def __init__(
        self,
        paths: Sequence[PathArg],
        settings: Settings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        **options: Any,
    ) -> None:
        self.paths = [os.fspath(p) for p in paths]
        self.job = Analyzer(replace(settings or Settings(), **options))
        self.job.listen(self._on_hit)
        self.clock = clock
        self._files: dict[str, _Followed] = {}
        self._fresh = False  # a hit other than progress since the last poll
        self._budget = _POLL_CAP  # bytes this poll may still read
        self._polls = 0
        self._reported = _Reported()

    def _on_hit(self, hit: Hit) -> None:
        if hit.signature.role not in DATA_ROLES:
            self._fresh = True

    def _read(self, unit: Unit) -> None:
        """Read what was appended to one file: opened as analyze opens it (no link out of
        the folder, no FIFO), and started over when it was replaced, truncated, or
        rewritten in place (copytruncate)."""
        if unit.path is None:
            return
        try:
            f, st = open_regular(unit.path, unit.named)
        except OSError:
            return
        with f:
            followed = self._files.get(unit.name)
            try:
                # the content probe only when the file grew: an idle file costs a stat
                fresh = (
                    followed is None
                    or followed.inode != st.st_ino
                    or st.st_size < followed.offset
                    or (st.st_size > followed.offset and not followed.same(f))
                )
                if fresh:
                    if followed is not None:  # rotated or rewritten: finish it, start over
                        self.job.close(unit.name)
                    followed = self._files[unit.name] = _Followed(st.st_ino, 0)
                assert followed is not None
                if st.st_size == followed.offset:
                    return
                if followed.dump or (not followed.offset and flight.sniff(f.read(_SNIFF))):
                    self._read_dump(unit, f, st.st_size, followed)
                    return
                f.seek(followed.offset)
                left = min(st.st_size - followed.offset, _READ_CAP, self._budget)
                while left > 0:  # in blocks: a burst is never held whole
                    data = f.read(min(left, _BLOCK))
                    if not data:
                        break
                    left -= len(data)
                    self._budget -= len(data)
                    followed.advance(data)
                    self.job.feed(unit.name, data, arrived=self._now())
            except OSError:
                return

    def _read_dump(self, unit: Unit, f: BinaryIO, size: int, followed: _Followed) -> None:
        """A Flight Recorder dump, read whole once its size held for a poll (a rank may
        still be writing it), and again whenever it changes: its records replace the
        rank's earlier dump."""
        followed.dump = True
        if size != followed.seen:
            followed.seen = size
            return
        f.seek(0)
        data = f.read(flight.MAX_BYTES + 1)
        self.job.read_dump(unit.name, data, path_who(unit.name, self.job.matcher.formats).path_rank)
        followed.offset = size
        self._fresh = True

    def _forget(self, listed: set[str]) -> None:
        """Files gone since the last poll are finished and forgotten: a watch over days
        of rotated logs must not hold every file it ever saw."""
        for name in [n for n in self._files if n not in listed]:
            del self._files[name]
            self.job.close(name)

    def _now(self) -> datetime:
        """Log lines without a zone carry local wall time: compare them with local time."""
        return datetime.fromtimestamp(self.clock())

    def poll(self) -> list[WatchEvent]:
        """Read what was appended since the last poll and return the new events."""
        units = list(iter_units(self.paths, SourceNotes(secrets=self.job.settings.redact)))
        self._budget = _POLL_CAP
        # from a different file each poll: files that grow without end cannot starve
        # the ones listed after them
        self._polls += 1
        start = self._polls % len(units) if units else 0
        for unit in units[start:] + units[:start]:
            self._read(unit)
        self._forget({unit.name for unit in units})
        now = self.clock()
        stamp = datetime.fromtimestamp(now, tz=timezone.utc).isoformat(timespec="seconds")
        events = []
        asked: list[Verdict] = []  # the verdict of this poll, made once when asked

        def verdict() -> Verdict:
            if not asked:
                asked.append(self.verdict())
            return asked[0]

        if self._fresh:
            self._fresh = False
            failure = self._failure_event(verdict(), stamp)
            if failure is not None:
                events.append(failure)
        completed = self.job.completed
        if completed and not self._reported.finished:
            self._reported.finished = True
            events.append(WatchEvent("finished", stamp, {}))
        if not completed:
            events += self._hang_events(stamp, verdict)
        return events

    def _hang_events(self, stamp: str, verdict: Callable[[], Verdict]) -> list[WatchEvent]:
        """A stream stalled for half the hang thresholds is a suspicion; a hang is
        confirmed when the verdict says so (the one definition of a hang: the culprit
        table's), naming the rank the verdict names, the one that stopped first, or none
        when the ranks stopped together and the logs cannot tell."""
        end = LogTime(self._now().replace(tzinfo=timezone.utc).timestamp())
        out = []
        seen = self._reported.suspected
        suspected, stalls = self.job.stalls(end, 0.5, 1.0)
        for st in suspected:
            key = (st.stream.file, st.stream.rank)  # by name: a rotated log is the same
            if key not in seen:
                seen.add(key)
                out.append(WatchEvent("hang_suspected", stamp, _stalled(st)))
        if not stalls or self._reported.confirmed:
            return out
        v = verdict()
        rc = v.root_cause
        if v.category != "hang" or rc is None:
            return out
        self._reported.confirmed.add((rc.file, rc.rank))
        named = next(
            (st for st in stalls if (st.stream.file, st.stream.rank) == (rc.file, rc.rank)), None
        )
        fields = _stalled(named or stalls[0])
        fields.update(file=rc.file, rank=rc.rank, line=rc.line)
        out.append(WatchEvent("hang_confirmed", stamp, fields))
        return out

    def _failure_event(self, v: Verdict, stamp: str) -> WatchEvent | None:
        """The verdict's root cause, if it is a failure not reported before (a hang is
        reported by the hang events)."""
        rc = v.root_cause
        if rc is None or v.category in ("none", "hang"):
            return None
        key = (rc.signature, rc.file, rc.line)
        if key in self._reported.failures:
            return None
        self._reported.failures.add(key)
        return WatchEvent(
            "failure",
            stamp,
            {
                "category": v.category,
                "recovery": v.recovery,
                "decided_by": v.decided_by,
                "signature": rc.signature,
                "file": rc.file,
                "line": rc.line,
                "rank": rc.rank,
                "host": rc.host,
                "text": rc.text,
            },
        )

    def verdict(self) -> Verdict:
        """The verdict on everything read so far, with the wall clock as the end of time."""
        return self.job.verdict(self._now())


def _stalled(st: Stall) -> dict[str, object]:
    return {
        "file": st.stream.file,
        "rank": st.stream.rank,
        "line": st.last.line,
        "last_progress": st.last.time.iso() if st.last.time else None,
        "stalled_seconds": round(st.gap, 1),
        "step_seconds": round(st.step_time, 3),
    }
