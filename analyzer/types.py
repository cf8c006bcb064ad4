"""Frozen value types shared by every pipeline stage.

This module imports nothing from the package so that any stage (and any caller) can use
these types without pulling in the rest of the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from enum import Enum
from functools import cached_property
from typing import Any, Literal

Role = Literal["cause", "symptom", "confirmation", "progress", "setting"]
# What kind of text a line is: an event a process of the job logged; a line of the
# kernel's or the system's own log inside another file (a console's dmesg, an excerpt's
# syslog lines: patterns/formats `system:`); or a line of a kernel or system log file
# (kern.log, dmesg-*.txt: formats `paths:`). A kernel or system line's time may lie outside
# the job's span. Text quoted inside another line (a dict's value, a JSON record's other
# field, a quoted log line) is none of these: it never becomes a hit.
TextKind = Literal["event", "system-line", "system-log"]
Severity = Literal["fatal", "error", "warning", "info"]
Blame = Literal["node", "rank", "job", "user"]

ROLES: tuple[Role, ...] = ("cause", "symptom", "confirmation", "progress", "setting")
# Lines that are data about the run, not events of a failure: progress (the timelines)
# and settings (how the job is set up for recovery: analyzer.decide.readiness). Never a
# candidate, wherever they sit (in quotes, beside a failure on the same line).
DATA_ROLES: tuple[Role, ...] = ("progress", "setting")
# what a setting line states (analyzer.decide.readiness reads each kind)
Setting = Literal[
    "restarts_allowed", "restarted", "collective_timeout", "op_retry", "saved_state",
    "fresh_start", "not_reentrant", "model_size", "save_config", "weights_only", "watchdog",
    "elastic",
]  # fmt: skip
SETTING_KINDS: tuple[Setting, ...] = (
    "restarts_allowed",
    "restarted",
    "collective_timeout",
    "op_retry",
    "saved_state",
    "fresh_start",
    "not_reentrant",
    "model_size",
    "save_config",
    "weights_only",
    "watchdog",
    "elastic",
)
# checkpoint_save: a save began (a pause is expected); checkpoint_saved: it is complete;
# work: a bar of the rank's own work that is not a training step (tokenising a dataset,
# an evaluation loop): the other ranks wait in a collective while it runs;
# idle: a frame of a serving worker's input loop (it waits in a collective for the
# driver's next request); load: a serving engine's report of the requests it holds
Progress = Literal[
    "step", "checkpoint_save", "checkpoint_saved", "checkpoint_load", "eval", "work", "idle", "load"
]
PROGRESS_KINDS: tuple[Progress, ...] = (
    "step",
    "checkpoint_save",
    "checkpoint_saved",
    "checkpoint_load",
    "eval",
    "work",
    "idle",
    "load",
)
# the kinds that come as a series of lines, of which a block's first and last few tell all
SERIES: tuple[Progress, ...] = ("step", "work")
SEVERITIES: tuple[Severity, ...] = ("fatal", "error", "warning", "info")
BLAMES: tuple[Blame, ...] = ("node", "rank", "job", "user")

SCHEMA = "ha-analyze/verdict/1"


class _Id(str, Enum):
    """An id that is a str (the JSON, a caller's comparisons with strings and formatting
    are unchanged: `str()` is the value on every Python this supports)."""

    def __str__(self) -> str:
        return str(self.value)

    # a member is found where its string is a key (and the other way round)
    __hash__ = str.__hash__


class CategoryId(_Id):
    """A root-cause category of the taxonomy (docs/taxonomy.md): extend, never
    rename."""

    DEVICE_OOM = "device_oom"
    HOST_OOM = "host_oom"
    COLLECTIVE_TIMEOUT = "collective_timeout"
    NETWORK_FAULT = "network_fault"
    DEVICE_FAULT = "device_fault"
    HANG = "hang"
    STORAGE_FAULT = "storage_fault"
    CHECKPOINT_CORRUPT = "checkpoint_corrupt"
    NUMERICAL_ERROR = "numerical_error"
    USER_CODE_ERROR = "user_code_error"
    ENVIRONMENT_ERROR = "environment_error"
    PREEMPTED = "preempted"
    UNKNOWN = "unknown"
    NONE = "none"  # no failure found


class RecoveryId(_Id):
    """A recovery feature of the platform (the taxonomy's table), or what a person must
    do (`fix_and_resubmit`), or nothing (`none`)."""

    CHECKPOINT_RESUME = "checkpoint_resume"
    AUTO_RESTART = "auto_restart"
    UNCONDITIONAL_RESTART = "unconditional_restart"
    HANG_DETECTION = "hang_detection"
    HANG_RESTART = "hang_restart"
    OPERATOR_RETRY = "operator_retry"
    POD_RESCHEDULE = "pod_reschedule"
    ISOLATE_AND_RESCHEDULE = "isolate_and_reschedule"
    FIX_AND_RESUBMIT = "fix_and_resubmit"
    NONE = "none"


class AnalyzerError(Exception):
    """Base class of every error ha-analyze raises on purpose (bad arguments, bad patterns)."""


class PatternError(AnalyzerError):
    """A signature file is invalid; the message names the file, the id and the field."""


@dataclass(frozen=True)
class LogTime:
    """A parsed timestamp.

    `absolute` is False for clocks that only order lines within one file (dmesg uptime),
    so such times never get compared with wall-clock times of other files.
    """

    epoch: float
    absolute: bool = True
    has_zone: bool = False
    # The line carried no year (glog, syslog): it came from the job (scan.YearRef), and a
    # worker that scanned without the job's year gives it later (with_year).
    inferred: bool = False

    def with_year(self, year: int) -> LogTime:
        dt = datetime.fromtimestamp(self.epoch, tz=timezone.utc)
        try:
            moved = dt.replace(year=year)
        except ValueError:  # 29 February in a year without one
            moved = dt.replace(year=year, day=28)
        return replace(self, epoch=moved.timestamp())

    def wall(self) -> float:
        """This time on the local wall clock, as an epoch read as UTC: how a zone-less
        line states time (local wall time), so that it compares with one."""
        if not self.has_zone:
            return self.epoch
        return datetime.fromtimestamp(self.epoch).replace(tzinfo=timezone.utc).timestamp()

    def until(self, later: LogTime) -> float:
        """Seconds from this time to `later`: as instants where both state their zone
        (`...Z`, `+08:00`), on the local wall clock where one does not (a zone-less line,
        or a live watch's clock, is local wall time): a zone-stated stamp is never
        compared with local time as if it were UTC."""
        if self.has_zone == later.has_zone:
            return later.epoch - self.epoch
        return later.wall() - self.wall()

    def iso(self) -> str | None:
        if not self.absolute:
            return None
        dt = datetime.fromtimestamp(self.epoch, tz=timezone.utc)
        if self.has_zone:
            return dt.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return dt.replace(tzinfo=None).isoformat(timespec="milliseconds")


def epoch_or(t: LogTime | None, missing: float) -> float:
    """A time's epoch where it is a wall-clock time, else `missing`: the one rule for a
    line with no time (+inf to rank it last among the earliest, -inf among the latest)."""
    return t.epoch if t is not None and t.absolute else missing


@dataclass(frozen=True)
class Signature:
    """One compiled signature from a pattern file."""

    id: str
    family: str
    title: str
    category: str
    role: Role
    severity: Severity
    blame: Blame
    literals: tuple[str, ...]
    match: tuple[str, ...]
    exclude: tuple[str, ...]
    message: str
    description: str
    references: tuple[str, ...]
    examples: tuple[dict[str, Any], ...]
    source: str
    message_zh: str = ""  # the message in Chinese (--lang zh), with the same placeholders
    recovery: str | None = None
    retryable: bool | None = None
    retryable_set: bool = False
    evidence: Literal["first", "last"] = "first"
    overlaps: tuple[str, ...] = ()
    vendor: str = "other"
    min_count: int = 1
    completion: bool = False
    # an `unknown` reading that is the taxonomy's own (a lost node whose logs say nothing):
    # the classifier never overrules it
    final: bool = False
    progress: Progress | None = None
    setting: Setting | None = None
    # (category, frame regex): the more specific reading of a line raised inside such a
    # frame (a FileNotFoundError while loading a checkpoint is checkpoint_corrupt)
    raised_in: tuple[tuple[str, str], ...] = ()
    # (category, line regex): the reading of a matching line raised where one installed
    # package called another (the innermost frames, all in site-packages, span two or
    # more packages): two packages that disagree about an API, a version mismatch
    raised_between: tuple[tuple[str, str], ...] = ()
    # a thread header of a stack dump: which printed end of its frames is the innermost
    # (analyzer.job.stacks reads them; the hit cites the application's innermost frame)
    stack: Literal["first", "last"] | None = None


@dataclass(frozen=True)
class Who:
    """What one line, and its file's path, say about who logged it: unresolved."""

    prefix_rank: int | None = None  # torch's [rank3]:, mpirun's [1,3]<stdout>: (global)
    prefix_local: int | None = None  # torchrun --tee [default3]: (local)
    task: int | None = None  # srun --label (a rank or a node)
    said_rank: int | None = None  # the message names a global rank ([rank 3], RankID:3)
    said_local: int | None = None  # ... or a local one (local_rank: 3)
    host: str | None = None  # the line names its host (pdsh prefix, syslog, NCCL header)
    prefix_host: str | None = None  # ... in a launcher's prefix (pdsh, torchrun --role)
    pid: int | None = None
    device: str | None = None
    busid: str | None = None
    path_rank: int | None = None  # rank_3.log (global)
    path_local: int | None = None  # attempt_0/3/stdout.log (local)
    path_device: str | None = None  # device-3/ (an NPU id, CANN device logs)

    @cached_property
    def slot(self) -> str:
        """The line's channel within its file: one process of a merged console.

        A launcher's prefixes make the channel (srun's task, torchrun's local rank, a
        pdsh host), and a task or host that holds several processes behind their own
        `[rankN]:` (no local rank) a channel per rank; without them, the global rank the
        line names of itself (torch's `[rank3]:` and a trainer's `[rank 3]` are one
        process). The key by which a file's lines are told apart before the job model
        resolves them.
        """
        if self.prefix_local is not None or self.task is not None or self.prefix_host:
            node = f"{self.prefix_host or ''}/t{_s(self.task)}/l{_s(self.prefix_local)}"
            if self.prefix_local is None and self.prefix_rank is not None:
                # a node's task holding many processes, each behind its `[rankN]:`
                # (torchrun --role rank --tee under srun --label, or pdsh)
                return f"{node}/g{self.prefix_rank}"
            return node
        rank = self.prefix_rank if self.prefix_rank is not None else self.said_rank
        return "" if rank is None else f"g{rank}"

    @property
    def rank(self) -> int | None:
        """The rank the line names of itself, before the job model: the best claim."""
        for r in (self.prefix_rank, self.said_rank, self.prefix_local, self.task):
            if r is not None:
                return r
        return self.path_rank if self.path_rank is not None else self.path_local


def _s(x: int | None) -> str:
    return "" if x is None else str(x)


@dataclass(frozen=True)
class Identity:
    """Who logged a line, resolved: what every stage after the job model sees."""

    rank: int | None
    local_rank: int | None
    host: str | None
    device: str | None
    busid: str | None = None


@dataclass(frozen=True)
class LogLine:
    """One line as the reader made it, once: where it sits, its text cleaned and
    redacted (the prefixes, then the message), its message without any prefix the
    job's formats know (built-in and the user's), its time, what it and its path claim
    about who logged it, and what kind of text it is. No later stage strips, dates or
    cleans a line again."""

    file: str
    file_index: int
    number: int
    offset: int
    text: str
    message: str
    time: LogTime | None
    who: Who = field(default_factory=Who)
    # the lines it stands for: itself and the copies of it before it that the scan only
    # counted (same signatures, masked text and prefix; see scan._Templates)
    repeats: int = 1
    kind: TextKind = "event"


@dataclass(frozen=True)
class Hit:
    """A line that a signature matched (`rules/`), and who logged it once the job model
    has resolved it (`job/`: `identity`, the one writer of rank, host and device).
    Before that, `rank` and `host` are what the line claims of itself."""

    signature: Signature
    log: LogLine
    captures: dict[str, str] = field(default_factory=dict)
    context: tuple[str, ...] = ()
    context_first_line: int = 0
    identity: Identity | None = None
    # a step line with no time of its own nor above it (a file's lines before its first
    # stamp): the time of the next stamped line, which it came no later than. A bound, not
    # a time: only a stall is measured from it (never shorter than the real one)
    by: LogTime | None = None

    @property
    def file(self) -> str:
        return self.log.file

    @property
    def file_index(self) -> int:
        return self.log.file_index

    @property
    def line(self) -> int:
        return self.log.number

    @property
    def offset(self) -> int:
        return self.log.offset

    @property
    def text(self) -> str:
        return self.log.text

    @property
    def message(self) -> str:
        return self.log.message

    @property
    def time(self) -> LogTime | None:
        return self.log.time

    @property
    def who(self) -> Who:
        return self.log.who

    @property
    def repeats(self) -> int:
        return self.log.repeats

    @property
    def kind(self) -> TextKind:
        return self.log.kind

    @property
    def rank(self) -> int | None:
        return self.identity.rank if self.identity is not None else self.log.who.rank

    @property
    def host(self) -> str | None:
        return self.identity.host if self.identity is not None else self.log.who.host

    @property
    def stream_key(self) -> tuple[int, str]:
        """The stream the line belongs to: its file and its channel in the file."""
        return (self.file_index, self.who.slot)


@dataclass(frozen=True)
class Finding:
    """Hits of one signature with the same text template, collapsed across ranks and files."""

    first: Hit
    count: int
    ranks: tuple[int, ...]
    files: int
    last_time: LogTime | None

    @property
    def signature(self) -> Signature:
        return self.first.signature

    def to_dict(self) -> dict[str, Any]:
        h = self.first
        return {
            "category": h.signature.category,
            "signature": h.signature.id,
            "role": h.signature.role,
            "severity": h.signature.severity,
            "file": h.file,
            "line": h.line,
            "offset": h.offset,
            "rank": h.rank,
            "host": h.host,
            "time": h.time.iso() if h.time else None,
            "text": h.text,
            "count": self.count,
            "ranks": list(self.ranks),
            "files": self.files,
            "last_time": self.last_time.iso() if self.last_time else None,
        }


@dataclass(frozen=True)
class RootCause:
    file: str
    line: int
    offset: int
    rank: int | None
    host: str | None
    time: str | None
    signature: str | None
    text: str
    message: str
    context: tuple[str, ...]
    context_first_line: int
    captures: Mapping[str, str] = field(default_factory=dict)  # the signature's named groups

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "offset": self.offset,
            "rank": self.rank,
            "host": self.host,
            "time": self.time,
            "signature": self.signature,
            "text": self.text,
            "message": self.message,
            "context": list(self.context),
            "context_first_line": self.context_first_line,
            "captures": dict(self.captures),
        }


@dataclass(frozen=True)
class Stats:
    files: int
    lines: int
    bytes: int
    seconds: float
    unreadable: tuple[str, ...]
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    truncated_lines: int = 0
    engine: str = ""
    complete: bool = True  # every stream was read to its end (False: a deadline cut it)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "lines": self.lines,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 4),
            "unreadable": list(self.unreadable),
            "skipped": list(self.skipped),
            "notes": list(self.notes),
            "truncated_lines": self.truncated_lines,
            "engine": self.engine,
            "complete": self.complete,
        }


@dataclass(frozen=True)
class RankProgress:
    """Where one stream (file and rank) stood when the logs end."""

    file: str
    rank: int | None
    steps: int
    last_step: int | None
    last_line: int | None
    last_time: str | None
    step_seconds: float | None
    stalled_seconds: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RankEvent:
    """The most telling line of one stream (file and rank): what that rank went through."""

    file: str
    rank: int | None
    host: str | None
    line: int
    time: str | None
    signature: str
    role: str
    category: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ClockSkew:
    """A stream whose clock runs ahead (positive) or behind the reference stream's."""

    file: str
    rank: int | None
    host: str | None
    offset: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "rank": self.rank,
            "host": self.host,
            "offset_seconds": round(self.offset, 3),
        }


@dataclass(frozen=True)
class Reported:
    """A rank's first report of the failure, on the reference clock."""

    rank: int
    host: str | None
    device: str | None
    time: str | None  # ISO, clock-corrected
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Spread:
    """How a failure spread across ranks: the first and last rank to report it (clocks
    corrected by the bundle's estimated skew), who waited for whom (the wait graph the
    ranks' lines name), and for a failed link its two ends. Shown when two or more ranks
    reported, so that a reader sees the order the clocks alone would hide."""

    first: Reported
    last: Reported
    ranks: int  # how many ranks reported
    waits: tuple[tuple[int, int], ...] = ()  # (waiting rank, rank waited for)
    link: tuple[int, int] | None = None  # the root line's own rank and its remote rank

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": self.first.to_dict(),
            "last": self.last.to_dict(),
            "ranks": self.ranks,
            "waits": [list(w) for w in self.waits],
            "link": list(self.link) if self.link else None,
        }


@dataclass(frozen=True)
class Explained:
    """A finding that the root cause accounts for, and the cascade rule that says how."""

    signature: str
    category: str
    count: int
    ranks: int
    rule: str
    delay: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature,
            "category": self.category,
            "count": self.count,
            "ranks": self.ranks,
            "rule": self.rule,
            "delay_seconds": None if self.delay is None else round(self.delay, 1),
        }


@dataclass(frozen=True)
class Checkpoint:
    """The newest checkpoint the logs show completely saved: where a restart resumes."""

    path: str | None
    step: int | None
    steps_lost: int | None  # steps trained after it, which a restart repeats
    file: str
    line: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ActOn:
    """What a recovery acts on: the hosts to cordon or move, the ranks and devices."""

    hosts: tuple[str, ...] = ()
    ranks: tuple[int, ...] = ()
    devices: tuple[str, ...] = ()  # as the root-cause line names them, e.g. "pci=0000:3b:00"

    def to_dict(self) -> dict[str, Any]:
        return {"hosts": list(self.hosts), "ranks": list(self.ranks), "devices": list(self.devices)}


@dataclass(frozen=True)
class ModelOpinion:
    """What the classifier made of the failure region, whether or not it decided."""

    category: str
    probability: float
    alternatives: tuple[tuple[str, float], ...]
    decided: bool  # True when the verdict's category is the model's

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "probability": round(self.probability, 4),
            "alternatives": [{"category": c, "probability": p} for c, p in self.alternatives],
            "decided": self.decided,
        }


@dataclass(frozen=True)
class Verdict:
    """The answer: one root-cause category mapped to one recovery feature."""

    category: CategoryId
    recovery: RecoveryId
    retryable: bool | None
    confidence: float
    summary: str
    root_cause: RootCause | None
    findings: tuple[Finding, ...]
    stats: Stats
    decided_by: str = "signature"
    progress: tuple[RankProgress, ...] = ()
    events: tuple[RankEvent, ...] = ()
    explained: tuple[Explained, ...] = ()  # findings the root cause accounts for
    clock_skew: tuple[ClockSkew, ...] = ()
    model: ModelOpinion | None = None  # the classifier's opinion, when it was asked
    act_on: ActOn = ActOn()
    checkpoint: Checkpoint | None = None
    spread: Spread | None = None
    # the id of the culprit table's row that chose the root (analyzer.decide.culprit
    # RULES); None when no row did (the classifier, the caller, nothing found)
    culprit_rule: str | None = None
    # the codes of the sentences the summary is made of, in order (analyzer.sinks.prose
    # `reason.*`): `found`, `hang.stalled`, `weak-evidence`, `set-aside`, ...
    reasons: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "category": self.category,
            "recovery": self.recovery,
            "retryable": self.retryable,
            "confidence": round(self.confidence, 3),
            "summary": self.summary,
            "decided_by": self.decided_by,
            "culprit_rule": self.culprit_rule,
            "reasons": list(self.reasons),
            "root_cause": self.root_cause.to_dict() if self.root_cause else None,
            "findings": [f.to_dict() for f in self.findings],
            "stats": self.stats.to_dict(),
            "progress": [p.to_dict() for p in self.progress],
            "events": [e.to_dict() for e in self.events],
            "explained": [e.to_dict() for e in self.explained],
            "clock_skew": [c.to_dict() for c in self.clock_skew],
            "model": self.model.to_dict() if self.model else None,
            "act_on": self.act_on.to_dict(),
            "checkpoint": self.checkpoint.to_dict() if self.checkpoint else None,
            "spread": self.spread.to_dict() if self.spread else None,
        }
