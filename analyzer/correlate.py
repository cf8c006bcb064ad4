"""Hits across ranks and files -> deduplicated findings and root-cause candidates.

A 1,000-rank job prints the same timeout 1,000 times; people want one finding with a
rank set and a count. Lines are grouped by signature and text template (numbers and
hex masked), and for each signature, file and rank the earliest hit is kept as a
root-cause candidate, so memory stays bounded by signatures x files, not by lines.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from .lines import strip_prefix
from .timeline import HANG_FACTOR, HANG_MIN_GAP, Stall, Timeline
from .types import ClockSkew, Finding, Hit, LogTime, RankEvent, RankProgress

_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+")
_MAX_RANKS = 100_000
_MAX_GROUPS = 10_000

ROLE_RANK = {"cause": 0, "symptom": 1, "confirmation": 2, "progress": 3}
SEVERITY_RANK = {"fatal": 0, "error": 1, "warning": 2, "info": 3}


def time_key(hit: Hit) -> float:
    """Wall-clock seconds, or +inf where only file order is known."""
    return hit.time.epoch if hit.time and hit.time.absolute else math.inf


def order_key(hit: Hit, shift: float = 0.0) -> tuple[int, int, float, int, int]:
    """How root-cause candidates rank: role, then severity, then time (less the clock
    offset of the hit's stream), then file order."""
    sig = hit.signature
    return (
        ROLE_RANK[sig.role],
        SEVERITY_RANK[sig.severity],
        time_key(hit) - shift,
        hit.file_index,
        hit.line,
    )


def template(text: str) -> str:
    return _MASK.sub("#", strip_prefix(text).text)[:300]


@dataclass(frozen=True)
class Evidence:
    """What the verdict is decided from."""

    candidates: list[Hit]  # root-cause candidates, best first
    findings: list[Finding]
    counts: Mapping[str, int]  # hits per signature id
    completed: bool  # a completion marker was seen
    stalls: list[Stall]  # streams that stopped progressing, earliest first
    progress: tuple[RankProgress, ...]
    events: tuple[RankEvent, ...]  # per stream, its best-ranked non-info line
    timeline: Timeline
    end: LogTime | None  # the end of the evidence in time
    clock_skew: tuple[ClockSkew, ...]  # streams whose clocks disagree by a second or more
    # Files whose lines name exactly one rank: it beats a rank read from the path, which
    # may be a local rank (torchrun's attempt_0/<local_rank>/ folders)
    file_rank: Mapping[int, int]
    # Candidates (signature id, file, rank) after every one of whose lines the same stream
    # went on training: whatever the line said, it did not stop the run
    survived: frozenset[tuple[str, int, int | None]] = frozenset()


@dataclass
class _Group:
    first: Hit
    count: int = 0
    ranks: set[int] = field(default_factory=set)
    files: set[int] = field(default_factory=set)
    last_time: LogTime | None = None


# Categories whose evidence sits beside progress by nature: a NaN loss is printed in the
# step line, a hang's last progress is the evidence itself.
_GO_ON = frozenset({"numerical_error", "hang"})
_MAX_WAITING = 256


class Collector:
    """Receives hits as the scan produces them."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], _Group] = {}
        self._candidates: dict[tuple[str, int, int | None], Hit] = {}
        self.counts: Counter[str] = Counter()
        self.completed = False
        self.timeline = Timeline()
        self._named: dict[int, set[int]] = {}  # ranks the lines of each file name
        # per progress stream: cause lines still waiting to see whether training went on,
        # with the stream's step and step count when they appeared
        self._waiting: dict[
            tuple[int, int | None], list[tuple[tuple[str, int, int | None], int | None, int]]
        ] = {}
        self._unsurvived: Counter[tuple[str, int, int | None]] = Counter()
        self.latest: LogTime | None = None  # the latest wall-clock time any hit carries

    def add(self, hit: Hit) -> None:
        if (
            hit.time
            and hit.time.absolute
            and (self.latest is None or hit.time.epoch > self.latest.epoch)
        ):
            self.latest = hit.time
        if hit.rank is not None and not hit.rank_from_path:
            named = self._named.setdefault(hit.file_index, set())
            if len(named) < 2:
                named.add(hit.rank)
        if hit.signature.role == "progress":
            self.timeline.add(hit)
            self._went_on(hit)
            return
        self.counts[hit.signature.id] += 1
        self.completed = self.completed or hit.signature.completion
        key = (hit.signature.id, template(hit.text))
        if key not in self._groups and len(self._groups) >= _MAX_GROUPS:
            key = (hit.signature.id, "*")  # memory stays bounded on endless unique lines
        g = self._groups.get(key)
        if g is None:
            g = self._groups[key] = _Group(hit)
        elif (time_key(hit), hit.file_index, hit.line) < (
            time_key(g.first),
            g.first.file_index,
            g.first.line,
        ) and hit.context:
            g.first = hit
        g.count += 1
        if hit.rank is not None and len(g.ranks) < _MAX_RANKS:
            g.ranks.add(hit.rank)
        g.files.add(hit.file_index)
        if (
            hit.time
            and hit.time.absolute
            and (g.last_time is None or hit.time.epoch > g.last_time.epoch)
        ):
            g.last_time = hit.time
        ckey = (hit.signature.id, hit.file_index, hit.rank)
        if ckey not in self._candidates or hit.signature.evidence == "last":
            self._candidates[ckey] = hit
        if hit.signature.role == "cause" and hit.signature.category not in _GO_ON:
            skey = (hit.file_index, hit.rank)
            waiting = self._waiting.setdefault(skey, [])
            if len(waiting) < _MAX_WAITING:
                s = self.timeline.streams.get(skey)
                waiting.append((ckey, s.last_step if s else None, s.count if s else 0))
                self._unsurvived[ckey] += 1
            else:
                self._unsurvived[ckey] += 1 << 20  # not tracked: never counts as survived

    def _went_on(self, progress: Hit) -> None:
        """Settle the cause lines this stream has now trained past.

        Two more steps, not one: data-parallel ranks move in lockstep, so a rank may log
        the step it had finished when a peer failed, but never two.
        """
        skey = (progress.file_index, progress.rank)
        waiting = self._waiting.get(skey)
        if not waiting:
            return
        s = self.timeline.streams[skey]
        keep = []
        for ckey, step, count in waiting:
            if (step is not None and s.last_step is not None and s.last_step >= step + 2) or (
                step is None and s.count >= count + 2
            ):
                self._unsurvived[ckey] -= 1
            else:
                keep.append((ckey, step, count))
        self._waiting[skey] = keep

    def evidence(
        self,
        end: LogTime | None,
        hang_factor: float = HANG_FACTOR,
        hang_min_gap: float = HANG_MIN_GAP,
    ) -> Evidence:
        """Everything the verdict rests on; `end` is the end of the evidence in time."""
        offsets = self.timeline.clock_offsets()
        by_host: dict[str, list[float]] = {}
        for (file_index, rank), off in offsets.items():
            host = self.timeline.streams[(file_index, rank)].host
            if host:
                by_host.setdefault(host, []).append(off)
        host_offset = {h: statistics.median(v) for h, v in by_host.items()}

        def shift(h: Hit) -> float:
            return offsets.get((h.file_index, h.rank), host_offset.get(h.host or "", 0.0))

        stalls = self.timeline.stalls(end, hang_factor, hang_min_gap, offsets)
        stalled = {id(st.stream): st.gap for st in stalls}
        progress = tuple(
            RankProgress(
                file=s.file,
                rank=s.rank,
                steps=s.count,
                last_step=s.last_step,
                last_line=s.last.line if s.last else None,
                last_time=s.last.time.iso() if s.last and s.last.time else None,
                step_seconds=s.step_time(),
                stalled_seconds=stalled.get(id(s)),
            )
            for s in sorted(
                self.timeline.streams.values(), key=lambda s: (s.file_index, s.rank or 0)
            )
        )
        candidates = sorted(self._candidates.values(), key=lambda h: order_key(h, shift(h)))
        best: dict[tuple[int, int | None], Hit] = {}
        for h in candidates:
            if h.signature.severity != "info":
                best.setdefault((h.file_index, h.rank), h)
        events = tuple(
            RankEvent(
                file=h.file,
                rank=h.rank,
                host=h.host,
                line=h.line,
                time=h.time.iso() if h.time else None,
                signature=h.signature.id,
                role=h.signature.role,
                category=h.signature.category,
                text=h.text,
            )
            for h in sorted(
                best.values(), key=lambda h: (time_key(h) - shift(h), h.file_index, h.line)
            )
        )
        return Evidence(
            candidates=candidates,
            findings=self.findings(),
            counts=self.counts,
            completed=self.completed,
            stalls=stalls,
            progress=progress,
            events=events,
            timeline=self.timeline,
            end=end,
            file_rank={i: next(iter(r)) for i, r in self._named.items() if len(r) == 1},
            survived=frozenset(k for k, n in self._unsurvived.items() if n == 0),
            clock_skew=tuple(
                ClockSkew(s.file, s.rank, s.host, offsets[key])
                for key, s in self.timeline.streams.items()
                if abs(offsets.get(key, 0.0)) >= 1.0
            ),
        )

    def findings(self) -> list[Finding]:
        """Every finding, in the order a reader should see them (best candidates first)."""
        out = [
            Finding(g.first, g.count, tuple(sorted(g.ranks)), len(g.files), g.last_time)
            for g in self._groups.values()
        ]
        out.sort(key=lambda f: order_key(f.first))
        return out
