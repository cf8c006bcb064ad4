"""Per-rank progress timelines and hang detection from the logs alone.

Progress lines (trainer step lines, checkpoint saves, evaluations) are signatures with
`role: progress`. For every stream (file and rank) this keeps the first and last
progress and a bounded sample of step intervals, so memory does not grow with the
length of the run. A hang is a stream whose last progress lies far before the end of
the evidence: further than `factor` times its own median step time and at least
`min_gap` seconds, with a longer allowance while a checkpoint save or an evaluation
was under way (they are legitimately slow). Time after the last progress must be shown
by the logs themselves (later lines in any file) or given by the caller (`now`): file
modification times are not evidence in a copied bundle.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..types import Hit, LogTime, Who, epoch_or

if TYPE_CHECKING:
    from .model import JobModel

# Defaults, documented in README ("Hangs"): a step 10x slower than usual is rare in a
# healthy run, and NCCL's own watchdog fires after 10 or 30 minutes.
HANG_FACTOR = 10.0
HANG_MIN_GAP = 300.0
SLOW_PHASE_GAP = 1800.0
# own work that ran this share of the collective timeout outlasted it: the others' wait
# began a little after the work did, and bars redraw only every few seconds
BUSY_SHARE = 0.9
# a bar whose own remaining clock ran out this long (seconds) and more before the
# others timed out, with no line since, had stopped: not busy (Stream._overdue)
_OVERDUE_SLACK = 60.0
_MIN_POINTS = 3
_INTERVALS = 256
_MARKS = 512  # step -> time of the first steps, enough to align clocks
_IDLE_FRAMES = 16  # input-loop frames kept per file: each failing worker prints one
# An input-loop frame this many lines from a timeout belongs to its traceback (the
# frames come before the exception, or after a message that ends in "Traceback")
IDLE_NEAR = 40
_MIN_COMMON = 3


# a path of a run's own rolling checkpoints: the step it holds
STEP_IN_PATH = re.compile(r"(?:global_step|checkpoint-|iter_|step[_=-]?|ckpt[_-])(\d+)", re.I)


def checkpoint_step(hit: Hit) -> int | None:
    """The step a saved checkpoint holds: captured, or read from its path."""
    step = hit.captures.get("step")
    if step and step.isdigit():
        return int(step)
    found = STEP_IN_PATH.findall(hit.captures.get("path", ""))
    return int(found[-1]) if found else None


@dataclass
class Stream:
    """Progress of one file and rank."""

    file: str
    file_index: int
    rank: int | None
    count: int = 0
    last: Hit | None = None
    last_step: int | None = None
    last_phase: Hit | None = None  # a checkpoint save, eval or own work after the last step
    phase_start: Hit | None = None  # the first line of that phase
    finished: bool = False  # the last step was the last one (step == total)
    intervals: deque[float] = field(default_factory=lambda: deque(maxlen=_INTERVALS))
    marks: dict[int, float] = field(default_factory=dict)
    mark_lines: dict[int, int] = field(default_factory=dict)  # step -> line, first steps
    host: str | None = None
    who: Who = field(default_factory=Who)  # what its lines claim: rank, host resolve from it

    @property
    def key(self) -> tuple[int, str]:
        return (self.file_index, self.who.slot)

    def add(self, hit: Hit) -> None:
        kind = hit.signature.progress
        if kind != "step":
            if kind in ("checkpoint_save", "eval", "work"):
                self.phase_start = self.phase_start or hit
                self.last_phase = hit
            elif (
                kind == "checkpoint_saved"
                and self.last_phase is not None
                and self.last_phase.signature.progress == "checkpoint_save"
            ):
                self.last_phase = self.phase_start = None  # the save it began is done
            return
        prev = self.last
        if (
            prev is not None
            and (prev.file_index, prev.line) == (hit.file_index, hit.line)
            and prev.captures.get("step") == hit.captures.get("step")
        ):
            return  # one line, two step signatures (a generic one and a trainer's own);
            # a later step on the same line is tqdm's next redraw of its bar
        self.count += 1
        if prev is not None and prev.time and hit.time and prev.time.absolute == hit.time.absolute:
            delta = hit.time.epoch - prev.time.epoch
            # Progress lines are sampled per block: a span of several steps counts per step.
            a, b = prev.captures.get("step", ""), hit.captures.get("step", "")
            steps = int(b) - int(a) if a.isdigit() and b.isdigit() and int(b) > int(a) else 1
            if delta > 0:
                self.intervals.append(delta / steps)
        self.last = hit
        self.last_phase = self.phase_start = None
        step, total = hit.captures.get("step"), hit.captures.get("total")
        if step is not None and step.isdigit():
            self.last_step = int(step)
            if len(self.mark_lines) < _MARKS:
                self.mark_lines.setdefault(int(step), hit.line)
            t = hit.time
            if t is not None and t.absolute and len(self.marks) < _MARKS:
                self.marks.setdefault(int(step), t.epoch)
            self.finished = total is not None and total.isdigit() and int(step) >= int(total) > 0
        self.host = self.host or hit.host

    def busy_for(self, until: LogTime | None) -> float:
        """Seconds the rank had spent in its current phase of own work (an eval, a save,
        a tokenising bar) by `until` (when the others timed out): the bar's own clock
        where it prints one (`[29:02<35:12`), else the phase's timestamps, from its first
        line to its last or, as it never ended, to `until`; 0 when it is training."""
        if self.last_phase is None or self.phase_start is None:
            return 0.0
        if self._overdue(until):
            return 0.0
        clock = _clock_seconds(self.last_phase.captures.get("elapsed", ""))
        first = self.phase_start.time
        if first is None or not first.absolute:
            return clock
        ends = [t.epoch for t in (self.last_phase.time, until) if t is not None and t.absolute]
        return max(clock, max(ends, default=first.epoch) - first.epoch)

    def _overdue(self, until: LogTime | None) -> bool:
        """Whether the work's own bar had said it would end long before `until`: by its
        last line, printed at the phase's start plus its elapsed clock (a bar with no time
        of its own takes an earlier line's), its remaining clock (`[00:58<01:31`) ran out
        by more than that much again and a minute, with no line since. Such a bar had
        stopped; the rank was not busy with it when the others timed out."""
        last, first = self.last_phase, self.phase_start
        assert last is not None and first is not None
        remaining = _clock_seconds(last.captures.get("remaining", ""))
        end, at, began = until, last.time, first.time
        if not remaining or end is None or at is None or began is None:
            return False
        if not (end.absolute and at.absolute and began.absolute):
            return False
        elapsed = _clock_seconds(last.captures.get("elapsed", ""))
        printed = max(at.epoch, began.epoch + elapsed)
        return at.until(end) - (printed - at.epoch + remaining) > max(remaining, _OVERDUE_SLACK)

    def step_time(self) -> float | None:
        """Median seconds between progress lines: robust to the slow first steps and
        the odd checkpoint pause. Too few timed lines to measure it: the step time the
        last step line states itself (Megatron's `elapsed time per iteration (s): 111.0`),
        the trainer's own measure."""
        if self.count < _MIN_POINTS or len(self.intervals) < _MIN_POINTS - 1:
            return _stated(self.last)
        return statistics.median(self.intervals)


def _stated(hit: Hit | None) -> float | None:
    """Seconds per step a step line states (captures `step_s` or `step_ms`), if any."""
    if hit is None:
        return None
    for key, scale in (("step_s", 1.0), ("step_ms", 1e-3)):
        try:
            seconds = float(hit.captures.get(key) or "nan") * scale
        except ValueError:
            continue
        if seconds > 0:  # nan and 0 are no measure
            return seconds
    return None


def _clock_seconds(text: str) -> float:
    """tqdm's elapsed clock, `MM:SS` or `H:MM:SS`, in seconds (0 when there is none)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
        return 0.0
    seconds = 0.0
    for p in parts:
        seconds = seconds * 60 + int(p)
    return seconds


def same_process(a: str, b: str) -> bool:
    """Channels without a launcher prefix ("" or "gN") name one process unless they name
    two different ranks; a launcher's channel is only itself."""
    if a == b:
        return True
    if "/" in a or "/" in b:
        return False
    return not a or not b


@dataclass(frozen=True)
class Stall:
    """A stream that stopped progressing long before the end of the evidence."""

    stream: Stream
    last: Hit
    gap: float
    step_time: float
    # "stalled": no progress for far longer than its step time; "silent": the only
    # ranks without the timeout the others reported (they waited for it); "together":
    # every rank stopped at the same step at once (which one hung is not in the logs)
    reason: str = "stalled"
    threshold: float = 0.0  # the gap that made it a stall (seconds)
    ranks: int = 1  # "together": how many ranks stopped at once


@dataclass(frozen=True)
class Busy:
    """A rank whose own work (an eval, a save, tokenising a dataset) ran about as long as
    the collective timeout while the other ranks waited: a restart times out the same way."""

    stream: Stream
    last: Hit  # its last line of that work
    seconds: float  # how long the work had run
    timeout: float  # the collective timeout it outlasted (seconds)


_SAVES = 1000  # checkpoint lines kept for their cadence and paths


class Timeline:
    """All progress streams of a job."""

    def __init__(self) -> None:
        self.streams: dict[tuple[int, str], Stream] = {}
        self._by_file: dict[int, list[Stream]] = {}
        self.resumed = False  # a checkpoint was loaded: the run did not start from scratch
        # the newest checkpoint the logs show complete, and its step where known
        self.saved: tuple[int | None, Hit] | None = None
        # checkpoint saves begun and completed, and loads, as read (the first _SAVES):
        # their cadence and paths (analyzer.decide.readiness)
        self.saves: list[Hit] = []
        # frames of serving workers' input loops (the first few per file), and the
        # serving engines' load reports (the latest per file): where a collective timeout
        # was an idle wait for the next request
        self.idle: dict[int, list[Hit]] = {}
        self.load: dict[int, Hit] = {}

    def step_at(self, file_index: int, line: int) -> int | None:
        """The last step a file reported at or before `line`, among its first steps."""
        steps = [
            step
            for s in self.streams.values()
            if s.file_index == file_index
            for step, at in s.mark_lines.items()
            if at <= line
        ]
        return max(steps) if steps else None

    def add(self, hit: Hit) -> None:
        kind = hit.signature.progress
        if kind == "idle":
            frames = self.idle.setdefault(hit.file_index, [])
            if len(frames) < _IDLE_FRAMES:
                frames.append(hit)
            return
        if kind == "load":
            self.load[hit.file_index] = hit
            return
        if (
            kind in ("checkpoint_save", "checkpoint_saved", "checkpoint_load")
            and len(self.saves) < _SAVES
        ):
            self.saves.append(hit)
        if hit.signature.progress == "checkpoint_load":
            self.resumed = True
        elif hit.signature.progress == "checkpoint_saved":
            step = checkpoint_step(hit)
            if self.saved is None or (step or -1, epoch_or(hit.time, -math.inf)) >= (
                self.saved[0] or -1,
                epoch_or(self.saved[1].time, -math.inf),
            ):
                self.saved = (step, hit)
        if hit.signature.progress != "step":
            # a save or eval line names no rank where its step lines do (`[rank 0] step
            # 27`, then a bare `Saving latest checkpoint`): it is a phase of their process
            steps = [s for s in self.of_process(hit.file_index, hit.who.slot) if s.count]
            if steps:
                for stream in steps:
                    stream.add(hit)
                return
        key = hit.stream_key
        own = self.streams.get(key)
        if own is None:
            own = self.streams[key] = Stream(hit.file, hit.file_index, hit.rank, who=hit.who)
            self._by_file.setdefault(hit.file_index, []).append(own)
        own.add(hit)

    def idle_wait(self, hit: Hit) -> Hit | None:
        """The input-loop frame of the traceback around `hit` (a serving worker's
        collective timeout), unless a load report at or before it shows requests
        running or queued: then the driver was stuck with work, not idle."""
        frames = [
            f
            for f in self.idle.get(hit.file_index, ())
            if abs(f.line - hit.line) <= IDLE_NEAR and same_process(f.who.slot, hit.who.slot)
        ]
        if not frames:
            return None
        for load in self.load.values():
            held = any(load.captures.get(k, "0") not in ("", "0") for k in ("running", "waiting"))
            before = load.time is None or hit.time is None or load.time.epoch <= hit.time.epoch
            if held and before:
                return None
        return frames[0]

    def of_process(self, file_index: int, slot: str) -> list[Stream]:
        """The streams of the file that are the process of channel `slot`: its own, and
        for a line no launcher prefix names (a torch `[rank3]:` traceback, a bare line)
        the file's unprefixed streams that name no other rank (a rank's own file)."""
        return [s for s in self._by_file.get(file_index, ()) if same_process(s.who.slot, slot)]

    def trained_past(
        self, file_index: int, slot: str, then: dict[tuple[int, str], tuple[int | None, int]]
    ) -> bool:
        """Whether the process of channel `slot` logged two more steps than it had when a
        line was logged (`then`: each of its streams' last step and count at the time;
        a stream not there yet had none). Step numbers when known: a progress bar that
        redraws the same step is no progress."""
        for s in self.of_process(file_index, slot):
            step, count = then.get(s.key, (None, 0))
            if step is not None and s.last_step is not None:
                if s.last_step >= step + 2:
                    return True
            elif s.count >= count + 2:
                return True
        return False

    def resolve(self, job: JobModel) -> None:
        """Every stream's rank and host as the job model resolves them."""
        for s in self.streams.values():
            line = s.last.line if s.last is not None else None
            ident = job.identity(s.file_index, s.who, line)
            s.rank, s.host = ident.rank, ident.host
            if s.last is not None:
                s.last = replace(s.last, identity=ident)
            if s.last_phase is not None:
                at = job.identity(s.file_index, s.who, s.last_phase.line)
                s.last_phase = replace(s.last_phase, identity=at)

    def stalls(
        self,
        end: LogTime | None,
        factor: float = HANG_FACTOR,
        min_gap: float = HANG_MIN_GAP,
        offsets: dict[tuple[int, str], float] | None = None,
    ) -> list[Stall]:
        """Streams that stopped, the earliest-stopped first (on corrected clocks)."""
        if end is None or not end.absolute:
            return []
        out = []
        for s in self.streams.values():
            last, step_time = s.last, s.step_time()
            if last is None or step_time is None:
                continue
            at = last.time or last.by  # a step with no time: its bound
            if at is None or not at.absolute:
                continue
            if s.finished:
                continue
            threshold = max(factor * step_time, min_gap)
            if s.last_phase is not None:
                threshold = max(threshold, SLOW_PHASE_GAP)
            gap = at.until(end)
            if gap > threshold:
                out.append(Stall(s, last, gap, step_time, threshold=threshold))
        offsets = offsets or {}

        def stopped(st: Stall) -> tuple[float, int]:
            key = st.stream.key
            epoch = st.last.time.epoch if st.last.time else 0.0
            return epoch - offsets.get(key, 0.0), st.stream.file_index

        out.sort(key=stopped)
        return out

    def busy(self, timeout: float, until: LogTime | None) -> list[Busy]:
        """Streams whose current own work had run for most of `timeout` seconds by
        `until` (the others waited that long in a collective, then timed out), the
        longest first."""
        out = [
            Busy(s, s.last_phase, seconds, timeout)
            for s in self.streams.values()
            if s.last_phase is not None and (seconds := s.busy_for(until)) >= BUSY_SHARE * timeout
        ]
        return sorted(out, key=lambda b: (-b.seconds, b.stream.file_index))

    def silent(
        self, waited: Callable[[int | None, str | None], bool], end: LogTime | None
    ) -> Stall | None:
        """The stream of a rank that did not report the timeout the others reported:
        the rank they waited for. `waited(rank, host)`: whether a stream's rank (or, where
        its lines name none, its host: one pod per rank) reported it. None unless the
        others are the majority (otherwise the missing reports say more about which
        files were collected)."""
        placed = [
            s
            for s in self.streams.values()
            if s.last is not None and (s.rank is not None or s.host is not None)
        ]
        quiet = [s for s in placed if not waited(s.rank, s.host)]
        if not quiet or len(quiet) * 2 >= len(placed):
            return None
        first = min(quiet, key=lambda s: s.last.time.epoch if s.last and s.last.time else 0.0)
        assert first.last is not None
        last_time = first.last.time
        gap = last_time.until(end) if end and last_time and last_time.absolute else 0.0
        return Stall(first, first.last, max(gap, 0.0), first.step_time() or 0.0, "silent")

    def clock_offsets(self) -> dict[tuple[int, str], float]:
        """Per-stream clock offsets (seconds ahead of the reference stream).

        Ranks finish the same step within a fraction of a step of each other, since
        every step ends in a collective; a stream whose timestamps for the same steps sit
        consistently earlier or later runs on a skewed clock. The median over common
        steps is robust to the odd slow rank. The reference is the stream with the most
        steps."""
        streams = [s for s in self.streams.values() if len(s.marks) >= _MIN_COMMON]
        if len(streams) < 2:
            return {}
        ref = max(streams, key=lambda s: (len(s.marks), -s.file_index))
        out: dict[tuple[int, str], float] = {}
        for s in streams:
            common = [step for step in s.marks if step in ref.marks]
            if s is ref or len(common) < _MIN_COMMON:
                continue
            out[s.key] = statistics.median(s.marks[step] - ref.marks[step] for step in common)
        return out
