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
from dataclasses import dataclass, field, replace

from ..read.lines import TRACEBACK
from ..types import (
    ClockSkew,
    Finding,
    Hit,
    LogTime,
    RankEvent,
    RankProgress,
    Signature,
    Who,
    epoch_or,
)
from . import stacks
from .model import JobModel
from .timeline import HANG_FACTOR, HANG_MIN_GAP, Stall, Timeline

_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+")
_MAX_RANKS = 100_000
_MAX_GROUPS = 10_000

ROLE_RANK = {"cause": 0, "symptom": 1, "confirmation": 2, "progress": 3, "setting": 4}
_MAX_SETTINGS = 2000  # setting lines kept (the first of each signature and text)
SEVERITY_RANK = {"fatal": 0, "error": 1, "warning": 2, "info": 3}


def time_key(hit: Hit) -> float:
    """Wall-clock seconds, or +inf where only file order is known."""
    return epoch_or(hit.time, math.inf)


def order_key(hit: Hit, shift: float = 0.0) -> tuple[int, int, bool, float, int, int]:
    """How root-cause candidates rank: role, then severity, then whether the line says
    what kind of failure it echoes (of two symptoms as severe, one that names a category
    before one that reads `unknown`: the `Last error:` that says the peer refused the
    connection before NCCL's `internal error` summary above it), then time (less the
    clock offset of the hit's stream), then file order."""
    sig = hit.signature
    return (
        ROLE_RANK[sig.role],
        SEVERITY_RANK[sig.severity],
        sig.role == "symptom" and sig.category == "unknown",
        time_key(hit) - shift,
        hit.file_index,
        hit.line,
    )


def resolve(hit: Hit, job: JobModel) -> Hit:
    """The hit with the identity the job model gives it (rank, host, device). An
    exception is placed where its traceback begins: inside torchelastic's failure table
    (`traceback : Traceback ...` under `rank : 4`) that is the table's record, however
    long the traceback."""
    begins = hit.context_first_line if hit.context and TRACEBACK in hit.context[0] else hit.line
    ident = job.identity(hit.file_index, hit.who, begins)
    return replace(hit, identity=ident)


def template(hit: Hit) -> str:
    """The line's message with its numbers masked: lines of one template are one finding."""
    return _MASK.sub("#", hit.message)[:300]


@dataclass(frozen=True)
class Clocks:
    """How far each stream's clock is off the reference (analyzer.job.timeline): a line
    outside any progress stream shares its file's clock, else its host's."""

    streams: Mapping[tuple[int, str], float]
    files: Mapping[int, float]
    hosts: Mapping[str, float]

    def shift(self, hit: Hit) -> float:
        if hit.stream_key in self.streams:
            return self.streams[hit.stream_key]
        return self.files.get(hit.file_index, self.hosts.get(hit.host or "", 0.0))

    def corrected(self, hit: Hit) -> float:
        """The hit's time on the reference clock (+inf when it has none)."""
        return time_key(hit) - self.shift(hit)


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
    clocks: Clocks
    job: JobModel  # who is who: every hit, stream and finding here is resolved through it
    # Candidates (signature id, file, channel) after every one of whose lines the same
    # stream went on training: whatever the line said, it did not stop the run
    survived: frozenset[tuple[str, int, str]] = frozenset()
    # setting lines (how the job is set up for recovery: analyzer.decide.readiness), resolved
    settings: tuple[Hit, ...] = ()
    # the job's span: the first and last time its processes' own lines carry (wall clock);
    # None when none carries one
    span: tuple[float, float] | None = None
    # per file, the line and step of its first step line, and the line of its last
    # but one: where its training began and how far it went
    trained: Mapping[int, tuple[int, int, int]] = field(default_factory=dict)

    def in_span(self, hit: Hit) -> bool:
        """Whether a line may be an event of this job by its place in time (taxonomy:
        "Evidence: which lines may decide"): a process's own line always; a kernel or
        system log's line only within the span, from a minute before it to a teardown
        window after in a kernel log's own file (a kernel log collected whole holds old
        Xids, a sidecar's copy later ones; a kernel line printed into the job's own output
        after its timed lines, as `dmesg -T` after `Killed`, tells how it ended). A line
        with no wall-clock time (dmesg's uptime) printed before its file's training began
        and went on (a pre-flight check's dmesg, then steps from the first ones) is not
        this job's either."""
        if hit.kind == "event":
            return True
        if not (hit.time and hit.time.absolute):
            first, step, second_last = self.trained.get(hit.file_index, (-1, 0, -1))
            return not (first > hit.line and step <= _EARLY_STEP and second_last > hit.line)
        if self.span is None:
            return True
        t = hit.time.epoch - self.clocks.shift(hit)
        late = hit.kind == "system-log" and t > self.span[1] + SPAN_AFTER
        return self.span[0] - SPAN_BEFORE <= t and not late


@dataclass
class _Group:
    first: Hit
    count: int = 0
    whos: set[tuple[int, Who]] = field(default_factory=set)  # who logged its lines
    files: set[int] = field(default_factory=set)
    last_time: LogTime | None = None


# Categories whose evidence sits beside progress by nature: a NaN loss is printed in the
# step line, a hang's last progress is the evidence itself.
_GO_ON = frozenset({"numerical_error", "hang"})


def _may_survive(sig: Signature) -> bool:
    """Whether a line is set aside when its process went on training past it: a cause
    (not a NaN or a stall, which training goes on through), and a collective or store
    timeout (a client that retried and got in: its rank then trained)."""
    if sig.role == "cause":
        return sig.category not in _GO_ON
    return sig.role == "symptom" and sig.category == "collective_timeout"


def _more_telling(hit: Hit, held: Hit) -> bool:
    """A stack dump outside any collective says more than the same stream's earlier dump
    inside one: two processes dumped into one file (py-spy of rank 8, then of rank 15)
    are one stream until something tells them apart, and the one the other waits for is
    the evidence."""
    return (
        hit.signature.stack is not None
        and stacks.waits_outside(hit.captures)
        and not stacks.waits_outside(held.captures)
    )


# how far before the first and after the last line of the job's own processes a kernel
# or system log's line may still be an event of the job (clocks of the kernel log and the
# processes differ; a node's kernel reports a fault a little after the ranks stop)
SPAN_BEFORE = 60.0
SPAN_AFTER = 120.0
# a first step line at most this far into a run shows where the run began
_EARLY_STEP = 100


class Collector:
    """Receives hits as the scan produces them."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], _Group] = {}
        self._candidates: dict[tuple[str, int, str], Hit] = {}
        self.counts: Counter[str] = Counter()
        self.completed = False
        self.timeline = Timeline()
        # each cause candidate's last line: where its process's streams stood then
        self._cause_at: dict[tuple[str, int, str], dict[tuple[int, str], tuple[int | None, int]]]
        self._cause_at = {}
        self.latest: LogTime | None = None  # the latest wall-clock time any hit carries
        self._span: tuple[float, float] | None = None  # of the processes' own lines
        self._trained: dict[int, tuple[int, int, int]] = {}  # file -> Evidence.trained
        self._last_step: dict[int, int] = {}  # file -> its last step line
        self._settings: dict[tuple[str, str], Hit] = {}  # how the job is set up (readiness)

    def add(self, hit: Hit) -> None:
        if (
            hit.time
            and hit.time.absolute
            and (self.latest is None or hit.time.epoch > self.latest.epoch)
        ):
            self.latest = hit.time
        if hit.kind == "event" and hit.time and hit.time.absolute:
            t, span = hit.time.epoch, self._span
            self._span = (t, t) if span is None else (min(span[0], t), max(span[1], t))
        if hit.signature.progress == "step":
            self._stepped(hit)
        if hit.signature.role == "progress":
            self.timeline.add(hit)
            return
        if hit.signature.role == "setting":
            key = (hit.signature.id, hit.text)
            if key not in self._settings and len(self._settings) < _MAX_SETTINGS:
                self._settings[key] = hit
            return
        self.counts[hit.signature.id] += hit.repeats
        self.completed = self.completed or hit.signature.completion
        key = (hit.signature.id, template(hit))
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
        g.count += hit.repeats
        if len(g.whos) < _MAX_RANKS:
            g.whos.add((hit.file_index, hit.who))
        g.files.add(hit.file_index)
        if (
            hit.time
            and hit.time.absolute
            and (g.last_time is None or hit.time.epoch > g.last_time.epoch)
        ):
            g.last_time = hit.time
        ckey = (hit.signature.id, *hit.stream_key)
        held = self._candidates.get(ckey)
        if held is None or hit.signature.evidence == "last" or _more_telling(hit, held):
            self._candidates[ckey] = hit
        if _may_survive(hit.signature):
            streams = self.timeline.of_process(hit.file_index, hit.who.slot)
            self._cause_at[ckey] = {st.key: (st.last_step, st.count) for st in streams}

    def _stepped(self, hit: Hit) -> None:
        i, last = hit.file_index, self._last_step.get(hit.file_index, -1)
        if hit.line <= last:
            return
        self._last_step[i] = hit.line
        had = self._trained.get(i)
        if had is None:
            step = hit.captures.get("step", "")
            self._trained[i] = (hit.line, int(step) if step.isdigit() else _EARLY_STEP + 1, -1)
        else:
            self._trained[i] = (had[0], had[1], last)

    def _survived(self) -> frozenset[tuple[str, int, str]]:
        """The cause candidates whose process logged two more steps after their last line.

        Two, not one: data-parallel ranks move in lockstep, so a rank may log the step it
        had finished when a peer failed, but never two.
        """
        return frozenset(
            ckey
            for ckey, then in self._cause_at.items()
            if self.timeline.trained_past(ckey[1], ckey[2], then)
        )

    def evidence(
        self,
        end: LogTime | None,
        job: JobModel,
        hang_factor: float = HANG_FACTOR,
        hang_min_gap: float = HANG_MIN_GAP,
    ) -> Evidence:
        """Everything the verdict rests on, every line resolved through the job model;
        `end` is the end of the evidence in time."""
        self.timeline.resolve(job)
        offsets = self.timeline.clock_offsets()
        # A clock is a file's (its writer's node), so a line of the file outside any
        # progress stream (a traceback the trainer's step lines do not name) shares it.
        by_file: dict[int, list[float]] = {}
        by_host: dict[str, list[float]] = {}
        for key, off in offsets.items():
            by_file.setdefault(key[0], []).append(off)
            host = self.timeline.streams[key].host
            if host:
                by_host.setdefault(host, []).append(off)
        clocks = Clocks(
            offsets,
            {f: statistics.median(v) for f, v in by_file.items()},
            {h: statistics.median(v) for h, v in by_host.items()},
        )
        shift = clocks.shift

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
        resolved = [resolve(h, job) for h in self._candidates.values()]
        candidates = sorted(resolved, key=lambda h: order_key(h, shift(h)))
        best: dict[tuple[int, str], Hit] = {}
        for h in candidates:
            if h.signature.severity != "info":
                best.setdefault(h.stream_key, h)
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
            findings=self.findings(job),
            counts=self.counts,
            completed=self.completed,
            stalls=stalls,
            progress=progress,
            events=events,
            timeline=self.timeline,
            end=end,
            job=job,
            survived=self._survived(),
            span=self._span,
            trained=dict(self._trained),
            settings=tuple(resolve(h, job) for h in self._settings.values()),
            clocks=clocks,
            clock_skew=tuple(
                ClockSkew(s.file, s.rank, s.host, offsets[key])
                for key, s in self.timeline.streams.items()
                if abs(offsets.get(key, 0.0)) >= 1.0
            ),
        )

    def findings(self, job: JobModel) -> list[Finding]:
        """Every finding, in the order a reader should see them (best candidates first)."""
        out = []
        for g in self._groups.values():
            ranks = {job.identity(i, who).rank for i, who in g.whos}
            known = tuple(sorted(r for r in ranks if r is not None))
            out.append(Finding(resolve(g.first, job), g.count, known, len(g.files), g.last_time))
        out.sort(key=lambda f: order_key(f.first))
        return out
