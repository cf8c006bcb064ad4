"""Culprit rules: which line of the job is the root cause, and which rank failed first.

Every line reaching here is resolved (analyzer.job.model): its rank and host are global.
The rules are one ordered table, `RULES`, that `choose` walks: `filter` rows narrow the
lines that may decide, `decides` rows end the walk with a culprit, `refines` rows move
the root to a better line and go on. Each row's function docstring says what it does;
README's list ("How the root cause is chosen") is that table, checked by a test, and
every row has a minimal-bundle test named after its id in tests/test_culprit.py (or
tests/test_stacks.py). The id of the row that chose the root is the verdict's
`culprit_rule`.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from ..job import stacks
from ..job.correlate import ROLE_RANK, Evidence, time_key
from ..job.model import Node, Record, path_attempts, placed, short
from ..job.timeline import Busy, Stall, Stream, same_process
from ..types import Hit, Identity, Reported, Spread

# teardown signals a launcher sends to the survivors (SIGTERM, SIGINT, SIGHUP)
_TEARDOWN_EXITS = frozenset({-15, -2, -1, 143, 130, 129})


@dataclass(frozen=True)
class Lag:
    """A rank behind the others of its process group: its last enqueued collective, and
    the ranks that enqueued the next and wait in it (rule `lags`)."""

    rank: int
    enqueued: int
    ahead: tuple[int, ...]
    ahead_enqueued: int


@dataclass(frozen=True)
class Culprit:
    """The root cause: a line (`hit`, as its process logged it), a stalled rank
    (`stall`) or a busy one (`busy`), and the id of the rule that chose it; `blamed`:
    who is at fault where that is not who logged the line (rank 0's `Rank 5 failed to
    pass`, a kernel line placed on the rank it struck), as the job model knows them;
    `final` when no classifier may overrule it (a rule read the logs to the end); `lag`
    when the line's rank is behind its process group (the verdict is then a hang)."""

    hit: Hit | None
    stall: Stall | None
    rule: str
    final: bool = False
    busy: Busy | None = None
    lag: Lag | None = None
    lost: Lost | None = None
    reading: str | None = None  # the category the rule reads, where not the line's own
    blamed: Identity | None = None

    @property
    def who(self) -> Identity | None:
        """Who is at fault: the blamed identity, else the line's own."""
        if self.blamed is not None:
            return self.blamed
        return self.hit.identity if self.hit is not None else None

    @property
    def rank(self) -> int | None:
        return _at_fault(self.hit, self.blamed)[0]

    @property
    def host(self) -> str | None:
        return _at_fault(self.hit, self.blamed)[1]


def _at_fault(hit: Hit | None, blamed: Identity | None) -> tuple[int | None, str | None]:
    """The rank and host at fault: the blamed identity's where a rule placed the line,
    else the line's own (the job model's resolution)."""
    if blamed is not None:
        return blamed.rank, blamed.host
    return (hit.rank, hit.host) if hit is not None else (None, None)


@dataclass(frozen=True)
class Lost:
    """A node lost whole (rule `lost-node`): its first rank's last line, how many of the
    other ranks reported losing a peer, and when the first did; `empty`: the node whose
    files are all empty (it logged no line to be its last: `last` is the first report)."""

    last: Hit
    reporters: int
    reported: Hit
    empty: Node | None = None


def deciding(
    ev: Evidence, signalled: set[tuple[str | None, str]], finished: _Finished | None
) -> list[Hit]:
    """Rule `deciding`: the candidates allowed to decide the verdict.

    `info` lines are context. A signature with `min_count` decides only when it matched
    that often (one NaN gradient norm is a skipped fp16 step, a run of them divergence).
    A cause line after which its own stream kept training did not stop the run: a caught
    exception, a print that mentions a failure. Once a completion marker shows that the
    run (or its worker group) finished, only a cause can make it a failure: teardown and
    timeouts around a successful elastic restart are not one. Once every rank logged its
    last step (`step 120/120`), a lost connection or a timeout after it is shutdown noise,
    and a line from before the finished attempt began (a resume after a preemption) is
    history. A SIGKILL of a process its launcher had sent a closing signal (`signalled`) is the
    launcher's own escalation (torchelastic kills what its SIGTERM did not stop), not an
    OOM kill. A launcher's death signal after its own teardown ended a group that had
    already failed.
    """
    out = [
        h
        for h in ev.candidates
        if h.signature.severity != "info"
        and ev.counts.get(h.signature.id, 0) >= h.signature.min_count
        and (h.signature.id, *h.stream_key) not in ev.survived
        and ev.in_span(h)
        and not _escalated(h, signalled)
        and not _after_first_failure(h, ev)
        and not _everyone_joined(h, ev)
        and not _signalled_after_teardown(h, ev)
    ]
    if ev.completed:
        out = [h for h in out if h.signature.role == "cause"]
    if finished is not None:  # every rank reached its last step: the run trained to its end
        at = ev.clocks.corrected
        out = [
            h
            for h in out
            if not _shutdown_noise(h, finished.done, ev) and not finished.history(h, at(h))
        ]
    return out


def _signalled(ev: Evidence) -> set[tuple[str | None, str]]:
    """The (host, pid) of every process a launcher sent its closing signal (`Sending
    process P closing signal SIGTERM`)."""
    return {
        (h.host, h.captures["pid"])
        for h in ev.candidates
        if h.signature.category == "preempted" and "pid" in h.captures
    }


def _escalated(hit: Hit, signalled: set[tuple[str | None, str]]) -> bool:
    """A bare SIGKILL (`exitcode: -9`, `Signal 9 (SIGKILL) received by PID`) of a pid the
    launcher had asked to stop: the kill is the launcher's, after its grace period."""
    pid = hit.captures.get("pid")
    return (
        pid is not None
        and hit.signature.category == "host_oom"
        and hit.signature.blame != "node"  # the kernel's OOM killer is the node's own word
        and (hit.host, pid) in signalled
    )


def _after_first_failure(hit: Hit, ev: Evidence) -> bool:
    """An entry of a launcher's failure report other than the one the report itself
    names as the first observed failure (torchelastic's `Root Cause`): what befell that
    worker came after (a -9 thirty seconds later is the teardown's SIGKILL)."""
    rec = ev.job.record_at(hit.file_index, hit.line, hit.who)
    if rec is None or "rank" not in rec.fields or "first_failure" in rec.fields:
        return False
    first = _first_failure(hit, ev)
    return first is not None and first.fields["rank"] != rec.fields["rank"]


def _signalled_after_teardown(hit: Hit, ev: Evidence) -> bool:
    """A launcher's death signal after that launcher had already sent its workers their
    closing signals (earlier in its own log): its worker group had failed before anyone
    stopped it; the signal ended a failed job (a hang detector, a user, the scheduler's
    cleanup) and is not its cause."""
    if hit.signature.id not in _AGENT_SIGNALLED:
        return False
    return any(
        c.signature.id == _TEARDOWN
        and c.file_index == hit.file_index
        and c.line < hit.line
        and c.host == hit.host
        for c in ev.candidates
    )


def _everyone_joined(hit: Hit, ev: Evidence) -> bool:
    """A desync report whose ranks that joined and did not finish are every rank of the
    job (`[0, 1, ..., 15] joined but didn't finish collective #730`): nobody lagged, the
    collective itself did not complete."""
    unfinished = hit.captures.get("unfinished")
    if unfinished is None:
        return False
    named = 1 + sum(1 for x in unfinished.split(",") if x.strip().isdigit())
    return named >= max(2, ev.job.world)


def _first_failure(hit: Hit, ev: Evidence) -> Record | None:
    """The first observed failure a launcher's report names (analyzer.job.model), unless
    that worker was torn down itself: torchelastic dates a worker by its error file where
    it wrote one, so a SIGTERM'd rank's own record can predate the kill it answered."""
    first = ev.job.first_failure(hit.file_index, hit.line)
    code = first.fields.get("exitcode") if first is not None else None
    if code is None or int(code) not in _TEARDOWN_EXITS:
        return first
    return None


# what processes print while a finished job's ranks and agents shut down in some order
_SHUTDOWN_CATEGORIES = frozenset({"network_fault", "collective_timeout"})


@dataclass(frozen=True)
class _Finished:
    """A run whose final attempt trained to its end: when its last rank logged its last
    step (`done`), and what came before that attempt: lines dated before it began
    (`began`), the files of earlier attempts by their path (`attempt_0/` beside
    `attempt_1/`), and, where the steps carry no times, a file's lines before its last
    finished step (`ends`: a console holding both attempts and the agent's own timed
    lines between them)."""

    done: float
    began: float = -math.inf
    earlier: frozenset[int] = frozenset()
    ends: Mapping[int, int] = field(default_factory=dict)

    def history(self, hit: Hit, at: float) -> bool:
        """Whether a line is what ended an earlier attempt that a finished one resumed."""
        if at < self.began or hit.file_index in self.earlier:
            return True
        return hit.line < self.ends.get(hit.file_index, -1)


def _all_finished(ev: Evidence) -> _Finished | None:
    """The run trained to its end: the job's last progress lines (the streams that
    stepped within ten step times of the last step: the final attempt, not an earlier
    one stopped on purpose) all reached their total (`step 120/120`); None when one did
    not, or no step says its total. Where the logs hold an earlier attempt too (progress
    that stopped long before the end: a preempted pod's previous log, an elastic
    restart's `attempt_0/`), what ended it was followed by a resume that finished, and
    decides nothing."""
    at = ev.clocks.corrected
    lasts = [st for st in ev.timeline.streams.values() if st.last is not None]
    times = [at(st.last) for st in lasts if st.last is not None]
    if not times:
        return None
    if not math.isfinite(max(times)):
        return _finished_by_attempts(ev, lasts)
    done = max(times)
    steps = [x for st in lasts if (x := st.step_time()) is not None]
    window = max(_FINAL_WINDOW, 10 * (statistics.median(steps) if steps else 0.0))
    final = [st for st, t in zip(lasts, times, strict=True) if t >= done - window]
    if not all(st.finished for st in final):
        return None
    began = min((min(st.marks.values()) for st in final if st.marks), default=-math.inf)
    others = [st.last for st, t in zip(lasts, times, strict=True) if t < done - window]
    # an earlier attempt: every other stream stopped before the finished one began, on
    # the clocks the steps were logged by (a stream of the same attempt that fell behind
    # and stopped is not one)
    earlier = bool(others) and max(time_key(h) for h in others if h is not None) < began
    return _Finished(done, began if earlier else -math.inf)


def _finished_by_attempts(ev: Evidence, lasts: list[Stream]) -> _Finished | None:
    """Untimed progress: the attempts the paths name (an elastic log dir's `attempt_N/`)
    tell the final attempt; every stream of it, and every stream no path places, reached
    its total."""
    attempt = {i: path_attempts(name) for i, name in ev.job.names.items()}
    named = [attempt.get(st.file_index) for st in lasts]
    if not any(named):
        return None
    final = max(a for a in named if a)
    earlier = frozenset(i for i, a in attempt.items() if a and a < final)
    current = [st for st in lasts if st.file_index not in earlier]
    if not earlier or not all(st.finished for st in current):
        return None
    ends = {st.file_index: st.last.line for st in current if st.last is not None}
    return _Finished(math.inf, earlier=earlier, ends=ends)


# how close to the job's last step the final attempt's ranks log theirs: ten step
# times, at least this many seconds (ranks in lockstep finish within a step or two)
_FINAL_WINDOW = 5.0


def _shutdown_noise(hit: Hit, finished: float, ev: Evidence) -> bool:
    """A lost connection or a timeout after every rank finished training: the job's
    processes shutting down in some order (a store's host exiting first), not a failure."""
    return hit.signature.category in _SHUTDOWN_CATEGORIES and ev.clocks.corrected(hit) >= finished


@dataclass
class Walk:
    """The walk of the culprit table over one job: the deciding lines, the root line
    the `refines` rules have moved so far (with the id of the last rule that moved it),
    and who it blames where a rule placed a line that names no process (`blamed`)."""

    ev: Evidence
    hits: list[Hit]
    root: Hit | None = None
    rule: str = ""
    blamed: Identity | None = None
    # the (host, pid) of the processes a launcher sent its closing signal, read once
    signalled: set[tuple[str | None, str]] = field(default_factory=set)
    # the run's final attempt trained to its end (None: it did not), read once
    finished: _Finished | None = None

    def move(self, root: Hit, rule: str, blamed: Identity | None = None) -> None:
        self.root, self.rule, self.blamed = root, rule, blamed

    @property
    def rank(self) -> int | None:
        """The root's rank: the blamed one where a rule placed it."""
        return _at_fault(self.root, self.blamed)[0]

    @property
    def host(self) -> str | None:
        return _at_fault(self.root, self.blamed)[1]


RuleKind = Literal["filter", "decides", "refines"]


@dataclass(frozen=True)
class CulpritRule:
    """One row of the culprit table. `filter` narrows the lines that may decide;
    `decides` ends the walk with a Culprit when it applies; `refines` moves the root to
    a better line and the walk goes on. `needs_lines`: the rule applies only when some
    line decides (a stall needs none)."""

    id: str
    kind: RuleKind
    run: Callable[[Walk], Culprit | None]
    needs_lines: bool = True

    @property
    def doc(self) -> str:
        """The rule's description: its function's docstring, one paragraph."""
        return " ".join((self.run.__doc__ or "").split())


def _rule_deciding(walk: Walk) -> Culprit | None:
    """Only lines allowed to decide: never `info`; a `min_count` signature only when it
    matched that often; not a cause its own stream trained past (two steps); not a kernel
    or system log's line dated outside the job's span (an old Xid in a kernel log
    collected whole, a sidecar's later copy); not the SIGKILL with which a launcher ends a
    process that ignored its SIGTERM; not an entry of a launcher's failure report other
    than the first observed failure it names; not a desync report that names every rank
    as lagging; after a completion marker only causes; a lost
    connection or a timeout after every rank logged its last step is shutdown."""
    walk.hits = deciding(walk.ev, walk.signalled, walk.finished)
    return None


def _rule_lost_node(walk: Walk) -> Culprit | None:
    """Every rank of one node stopped at once with no error and no teardown of its own,
    while ranks on other nodes report losing their peers (a connection reset or closed,
    a store or heartbeat gone) and nothing else: the node was lost (power, kernel panic,
    its pod killed). Its first rank is the root, the survivors' reports its symptoms;
    the category is `unknown`, for its own logs say nothing. Also a node whose every
    file is empty while the others only wait for their peers: lost before its first
    line (the first wait is cited, the node named, no rank)."""
    lost = _lost_node(walk.ev, walk.hits) or _empty_node(walk.ev, walk.hits)
    return Culprit(None, None, "lost-node", lost=lost) if lost is not None else None


def _rule_stall(walk: Walk) -> Culprit | None:
    """No cause decides and a rank stopped progressing far beyond its step time (or,
    when the others report a collective timeout, the one rank that does not): the
    stalled rank is the culprit, a hang; also when the only cause is an external kill
    (a time limit, a deadline) that came after the stall had begun. When every rank
    stopped at the same step within a few step times the hang names no rank. A stack
    dump of a main thread outside any collective names the stalled job's stuck rank
    (reported as `stuck`). Never when every rank of the final attempt logged its last
    step."""
    if walk.finished is not None:
        return None  # the final attempt trained to its last step: an earlier one's end
    stall = _together(_stall(walk.ev, walk.hits), walk.ev)
    if stall is None:
        return None
    outside = _outside(walk.hits)
    return Culprit(outside[0], None, "stuck") if outside else Culprit(None, stall, "stall")


def _rule_busy(walk: Walk) -> Culprit | None:
    """Only symptoms decide (collective timeouts, a teardown or kill with no reason) and
    a rank's own work (an eval, a save, a tokenising bar) had run for most of the
    collective timeout (the one the logs print, else torch's 10-minute default): the
    rank was busy, not hung, and a restart times out the same way."""
    busy = _busy(walk.ev, walk.hits)
    return Culprit(None, None, "busy", busy=busy) if busy is not None else None


def _rule_stuck(walk: Walk) -> Culprit | None:
    """Only symptoms decide and a stack dump of a live process shows a main thread
    outside any collective (data loading, I/O, a save): that rank is the one the others
    wait for, a hang cited at its innermost application frame. When a hang's cause
    names the rank (Flight Recorder dumps matched across ranks, monitored_barrier), that
    rank's stack dump outside any collective is cited."""
    stuck = _stuck(walk.hits)
    return Culprit(stuck, None, "stuck") if stuck is not None else None


def _rule_lags(walk: Walk) -> Culprit | None:
    """Only symptoms decide, and at least three ranks of one process group state their
    last enqueued collective (ProcessGroupNCCL's dump-signal and timeout lines): a
    minority that enqueued less than the others stopped issuing collectives while the
    others waited in the next one, a hang of the rank furthest behind."""
    behind = _lagging(walk.hits)
    return Culprit(behind[0], None, "lags", lag=behind[1]) if behind is not None else None


# the agent's `Unable to shutdown process P via 15, forcefully exiting via 9`
_FORCED = "pytorch-elastic-shutdown-forced"


def _rule_unresponsive(walk: Walk) -> Culprit | None:
    """Only symptoms decide (the others' collective timeouts), and one rank that reported
    none of them had to be killed by its launcher after it ignored the closing SIGTERM: a
    process that answers no signal is stuck (stopped, in uninterruptible I/O, deadlocked),
    and the others timed out waiting for it: a hang of that rank (the launcher's `Unable to
    shutdown process` line for it is cited where it logged one, and is the evidence where
    the launcher, stopped itself, reported no exit)."""
    if walk.hits[0].signature.role == "cause":
        return None
    # the ranks that reported a failure of their own (the launcher's SIGTERM to a rank is
    # attributed to that rank, and says nothing of it)
    spoke = {
        h.rank
        for h in walk.hits
        if h.signature.role in ("cause", "symptom") and h.signature.category != "preempted"
    }
    if not any(h.signature.category == "collective_timeout" for h in walk.hits):
        return None
    killed = [
        h
        for h in walk.ev.candidates
        if _escalated(h, walk.signalled) and h.rank is not None and h.rank not in spoke
    ]
    if not killed:
        # no exit report of the kill (the launcher was stopped itself before it wrote
        # one): its own word that it had to force it, for a process that spoke no failure
        forced = [
            h
            for h in walk.ev.candidates
            if h.signature.id == _FORCED and (h.rank is None or h.rank not in spoke)
        ]
        if not forced:
            return None
        return Culprit(min(forced, key=time_key), None, "unresponsive", reading="hang")
    kill = min(killed, key=time_key)
    # the agent's own word that it had to force that kill, where it logged one
    forced = [
        h
        for h in walk.ev.candidates
        if h.signature.id == _FORCED
        and (h.host, h.captures.get("pid")) == (kill.host, kill.captures.get("pid"))
    ]
    if forced:
        return Culprit(forced[0], None, "unresponsive", reading="hang", blamed=kill.identity)
    return Culprit(kill, None, "unresponsive", reading="hang")


def _rule_best(walk: Walk) -> Culprit | None:
    """The best deciding line: cause > symptom > confirmation, then fatal > error >
    warning, then the earliest on clock-corrected time, then file order."""
    walk.move(walk.hits[0], "best")
    return None


def _rule_node_line(walk: Walk) -> Culprit | None:
    """A cause the node's kernel or driver prints (a kernel Xid or `NVRM:` line, a NIC
    `Link down`) outranks a process's cause of the same kind on that host (or on a host
    the logs do not name): the CUDA or NCCL error a rank prints for the node's event is
    its echo, also when the kernel line carries only an uptime stamp."""
    assert walk.root is not None
    node = _node_line(walk.root, walk.hits)
    if node is not None:
        walk.move(node[0], "node-line", node[1])
    return None


def _rule_located(walk: Walk) -> Culprit | None:
    """A line with no rank gives way to the same signature's line with one (torchelastic
    prints a failure once bare and once in its table), else takes the rank (and host) of
    the worker its launcher's failure report names as the first observed failure
    (torchelastic's `Root Cause` record, when the line is that report's: where the line
    is the report's summary, the record's exit-code line is then cited), else of
    the line right after it that reports the same failure of a named rank, unless it is
    a job-level event, else of the one rank anywhere in the job that reports the same
    kind of failure (a scheduler's OOM event and one rank's SIGKILL)."""
    root, hits = walk.root, walk.hits
    assert root is not None
    if walk.rank is not None:
        return None
    located = [h for h in hits if h.signature is root.signature and h.rank is not None]
    if located:
        walk.move(located[0], "located")
        return None
    first = _first_failure(root, walk.ev)
    if first is not None:  # a launcher's report: the worker it names as first to fail,
        # whose own entry in the report (its exit code) is the report's evidence
        rank = int(first.fields["rank"])
        entry = root
        if root.signature.category == "unknown" and root.signature.role != "cause":
            entry = next((h for h in hits if h is not root and first.holds(h)), root)
        walk.move(entry, "located", placed(entry, rank, walk.host or first.fields.get("host")))
        return None
    echo = _next_report(root, hits) or _sole_report(root, hits)
    if echo is not None:
        walk.move(root, "located", placed(root, echo.rank, walk.host or echo.host))
    return None


def _rule_own_file(walk: Walk) -> Culprit | None:
    """The same line in a console copy and in the rank's own file (torchrun --tee and
    --log-dir): the rank's own file is cited."""
    assert walk.root is not None
    own = _own_file(walk.root, walk.rank, walk.hits)
    if own is not walk.root:
        walk.move(own, "own-file")
    return None


def _rule_peer(walk: Walk) -> Culprit | None:
    """A line that names the peer it lost (`Got completion from peer 10.0.0.12 with error
    12`, gloo's `Connection closed by peer [node2]`) gives way to the best deciding line
    of that peer's own host (through the job model's address book): what the others see
    of a node's failure is an echo of the node's own line, whatever the clocks say."""
    assert walk.root is not None
    source = _peer_line(walk.root, walk.host, walk.hits, walk.ev)
    if source is not None:
        walk.move(source, "peer")
    return None


def _rule_waits_for(walk: Walk) -> Culprit | None:
    """Only symptoms decide, and the ranks that report a collective timeout or a lost
    link name the rank each waited for (HCCL's `remote rank [3]`): the wait graph is
    followed to its end, the rank that never reported waiting itself; two ranks that
    wait for each other are a link's two ends, the earlier reporter named."""
    assert walk.root is not None
    waited = _waited_for(walk.root, walk.hits, walk.ev)
    if waited is None:
        return None
    return Culprit(waited[0], None, "waits-for", blamed=waited[1])


def _rule_lowest_seq(walk: Walk) -> Culprit | None:
    """Symptoms of one collective (timeouts): the rank with the lowest sequence number,
    the one that fell behind."""
    root = walk.root
    assert root is not None
    if root.signature.role != "symptom" or _seq(root) is None:
        return None
    return Culprit(_lowest_seq(root, walk.hits), None, "lowest-seq")


def _rule_silent_exit(walk: Walk) -> Culprit | None:
    """Only peers' lost-connection or the launcher's teardown symptoms decide, and a
    worker exited on its own (an exit code or signal that is not a teardown signal, or a
    SIGTERM its launcher never sent) without a cause or symptom of its own: that worker is
    the culprit; what it died of is unknown, or `preempted` for a SIGTERM from outside."""
    assert walk.root is not None
    exited = _silent_exit(walk.root, walk.hits, walk.ev, walk.signalled)
    if exited is None:
        return None
    outside = _exit_code(exited) == -15  # only a signal from outside passes as a teardown
    return Culprit(
        exited, None, "silent-exit", final=True, reading="preempted" if outside else None
    )


def _rule_terminated(walk: Walk) -> Culprit | None:
    """No line states a cause or a symptom, only launchers' reports of their workers'
    exits, and every worker they report died of a SIGTERM that no launcher sent: the job
    was stopped from outside at once (a scheduler's cancel or preemption, a node agent),
    `preempted`; the first such exit is the root (where a launcher's report names its
    first observed failure, that one too died of SIGTERM)."""
    if any(h.signature.role in ("cause", "symptom") for h in walk.hits):
        return None
    exits = [h for h in walk.ev.candidates if (_exit_code(h) or 0) != 0]
    if not exits or not all(_signalled_from_outside(h, walk.signalled) for h in exits):
        return None
    first = min(exits, key=lambda h: (time_key(h), h.file_index, h.line))
    # the launcher's own report of its first observed failure must say the same
    report = walk.ev.job.first_failure(first.file_index, first.line)
    if report is not None and report.fields.get("exitcode") != "-15":
        return None
    return Culprit(first, None, "terminated", final=True, reading="preempted")


# the launcher's teardown of its workers, and the lines that say its agent was signalled
_TEARDOWN = "pytorch-elastic-worker-teardown"
_AGENT_SIGNALLED = frozenset(
    {"pytorch-elastic-agent-death-signal", "pytorch-elastic-agent-signal-exception"}
)


def _rule_teardown(walk: Walk) -> Culprit | None:
    """The root is the launcher's closing signal to its workers and no line says the
    launcher was itself signalled (its death signal, its SignalException): it tore its
    workers down because one of them had failed first (the pid missing from its list),
    whose own lines are not in the logs. Not a preemption: `unknown`."""
    root = walk.root
    assert root is not None
    if root.signature.id != _TEARDOWN:
        return None
    if any(h.signature.id in _AGENT_SIGNALLED for h in walk.ev.candidates):
        return None
    return Culprit(root, None, "teardown", blamed=walk.blamed, reading="unknown")


def _rule_node_rank(walk: Walk) -> Culprit | None:
    """A node-level line (`blame: node`: kernel, driver) with no process of its own: the
    first rank on its host in trouble within two minutes, or on an uptime clock the
    first rank after it in its file with the same kind of failure."""
    root = walk.root
    assert root is not None
    if walk.rank is not None or root.signature.blame != "node":
        return None
    struck = _node_rank(root, walk.host, walk.ev.candidates)
    if struck is None:
        return None
    blamed = placed(root, struck.rank, walk.host or struck.host)
    return Culprit(root, None, "node-rank", blamed=blamed)


def _rule_named(walk: Walk) -> Culprit | None:
    """A line that names the rank at fault (`culprit_rank`: rank 0's `Rank 5 failed to
    pass monitoredBarrier`; `location`: HCCL's heartbeat `Cluster Exception
    Location[IP/ID]`) blames that rank and its host, not the rank that printed it."""
    assert walk.root is not None
    named = _named(walk.root, walk.ev)
    return Culprit(walk.root, None, "named", blamed=named) if named is not None else None


# a traceback's frames in the machinery that allocates in /dev/shm (a multiprocessing
# lock or queue, shared memory, torch's shared tensors)
_SHM_FRAMES = re.compile(
    r"multiprocessing/(?:synchronize|shared_memory|heap)\.py|_multiprocessing\.SemLock|"
    r"/dev/shm\b|share_memory_|_new_shared(?:_filename)?\b"
)


def _rule_shm_space(walk: Walk) -> Culprit | None:
    """A disk-full error (`OSError: [Errno 28] No space left on device`) raised while the
    process was creating a lock, queue or shared tensor: the device that is full is
    `/dev/shm`, too small for the job (the taxonomy's environment error), not the storage
    the job writes (a DataLoader's worker queue needs a semaphore there)."""
    root = walk.root
    assert root is not None
    if root.signature.category != "storage_fault" or "Errno 28" not in root.text:
        return None
    above = root.context[: max(0, root.line - root.context_first_line)]
    if not any(_SHM_FRAMES.search(line) for line in above[-8:]):
        return None
    return Culprit(root, None, "shm-space", blamed=walk.blamed, reading="environment_error")


# c10d's client that could not reach the rendezvous store, and the reasons a line gives
# (its `reason` capture) that say the network itself had no way there
_STORE_CONNECT = "pytorch-store-connect-timeout"
_NO_ROUTE = frozenset({"No route to host", "Network is unreachable"})


def _rule_unreachable_store(walk: Walk) -> Culprit | None:
    """No rank ever logged a training step, no line states a cause, and a process timed
    out connecting to the rendezvous store: the endpoint it was given is not reachable from
    there (a wrong `MASTER_ADDR` or port, a container's bridge address, a firewall), the
    taxonomy's environment error, which a restart meets again; its first such line is the
    root, the others' rendezvous timeouts its symptoms. Not where a network fault was
    reported before it (`No route to host`): the timeout is then that fault's echo."""
    if any(h.signature.role == "cause" for h in walk.hits):
        return None
    if any(st.last_step is not None for st in walk.ev.timeline.streams.values()):
        return None  # it trained: a store lost later is its master's failure, not a setup
    tries = [h for h in walk.hits if h.signature.id == _STORE_CONNECT]
    if not tries:
        return None
    first = min(tries, key=time_key)
    if any(
        h.captures.get("reason") in _NO_ROUTE and time_key(h) < time_key(first) for h in walk.hits
    ):
        return None  # the network failed first (no route to the host): the timeout echoes it
    return Culprit(first, None, "unreachable-store", reading="environment_error")


# signatures of a path that does not exist (the wrong path of taxonomy's checkpoint rule)
# or that the job may not use (a mount that went read-only or changed owner)
_PATH_REFUSED = frozenset({"python-file-not-found", "python-permission-denied"})


def _rule_one_node_path(walk: Walk) -> Culprit | None:
    """A path that two or more ranks of one node cannot find, or may not write, while
    ranks of the job's other nodes report no such error, is a storage fault on that node
    (a shared mount missing, read-only or owned by someone else there; taxonomy: a wrong
    path is `user_code_error`, a missing shared mount `storage_fault`): the same code
    with a wrong path or wrong permissions fails on every node alike."""
    root = walk.root
    assert root is not None
    path = root.captures.get("path")
    if root.signature.id not in _PATH_REFUSED or not path or not walk.host:
        return None
    same = [f for f in walk.ev.findings if f.signature.id in _PATH_REFUSED]
    if any(f.first.captures.get("path") != path for f in same):
        return None  # other paths missing too: the job's own paths, not one node's view
    hosts = {
        short(h.host) for h in walk.ev.candidates if h.signature.id in _PATH_REFUSED and h.host
    }
    ranks = {r for f in same for r in f.ranks}
    others = {
        short(h.host)
        for h in walk.ev.candidates
        if h.host and h.rank is not None and h.rank not in ranks
    }
    if hosts != {short(walk.host)} or len(ranks) < 2 or not others - hosts:
        return None
    return Culprit(root, None, "one-node-path", blamed=walk.blamed, reading="storage_fault")


# The culprit table, walked in this order by choose(); README's list and the tests read
# it. Ids are what the verdict's JSON reports (`culprit_rule`).
RULES: tuple[CulpritRule, ...] = (
    CulpritRule("deciding", "filter", _rule_deciding, needs_lines=False),
    CulpritRule("lost-node", "decides", _rule_lost_node),
    CulpritRule("stall", "decides", _rule_stall, needs_lines=False),
    CulpritRule("busy", "decides", _rule_busy),
    CulpritRule("stuck", "decides", _rule_stuck),
    CulpritRule("lags", "decides", _rule_lags),
    CulpritRule("unresponsive", "decides", _rule_unresponsive),
    CulpritRule("best", "refines", _rule_best),
    CulpritRule("node-line", "refines", _rule_node_line),
    CulpritRule("located", "refines", _rule_located),
    CulpritRule("own-file", "refines", _rule_own_file),
    CulpritRule("peer", "refines", _rule_peer),
    CulpritRule("unreachable-store", "decides", _rule_unreachable_store),
    CulpritRule("shm-space", "decides", _rule_shm_space),
    CulpritRule("waits-for", "decides", _rule_waits_for),
    CulpritRule("lowest-seq", "decides", _rule_lowest_seq),
    CulpritRule("silent-exit", "decides", _rule_silent_exit),
    CulpritRule("terminated", "decides", _rule_terminated),
    CulpritRule("teardown", "decides", _rule_teardown),
    CulpritRule("node-rank", "decides", _rule_node_rank),
    CulpritRule("named", "decides", _rule_named),
    CulpritRule("one-node-path", "decides", _rule_one_node_path),
)


def choose(ev: Evidence) -> Culprit | None:
    """The root cause by the table RULES; None when nothing decides."""
    return walk_table(ev)[0]


def walk_table(ev: Evidence) -> tuple[Culprit | None, list[Hit], bool]:
    """The root cause by the table RULES (None when nothing decides), the lines rule
    `deciding` let decide (the verdict's confidence and spread read them too), and
    whether every stream of the run's final attempt logged its last step."""
    walk = Walk(ev, [], signalled=_signalled(ev), finished=_all_finished(ev))
    ended = walk.finished is not None
    for rule in RULES:
        if rule.needs_lines and not walk.hits:
            continue
        found = rule.run(walk)
        if found is not None:
            return found, walk.hits, ended
    if walk.root is None:
        return None, walk.hits, ended
    return Culprit(walk.root, None, walk.rule, blamed=walk.blamed), walk.hits, ended


# Families whose lines a rank prints when its device fails under it (the CUDA or NCCL
# error text of an Xid, the CANN/HCCL text of an NPU fault): echoes of a device_fault
_DEVICE_ECHOES = frozenset({"cuda", "nccl", "cann", "hccl", "torch-npu"})


# the families of what a node's kernel and drivers print (dmesg, syslog, the NVIDIA
# driver's Xids, the Ascend driver's fault codes)
_NODE_FAMILIES = frozenset({"kernel", "xid", "npu-fault"})


# how long after a report of a lost peer the lost node's last line may be dated (its
# clock, the launcher's copying of its output) and still be the node that was lost
_LOST_SLACK = 30.0


def _one_node(nodes: list[object]) -> list[set[object]]:
    """Nodes grouped by name: a pod a console prefix names (`asr-fl-worker-1`) and the
    folder its agent's log dir was collected into (`worker-1/`) are one node when the
    pod's name ends in the folder's."""
    groups: list[set[object]] = []
    for n in nodes:
        for g in groups:
            if any(_same_name(n, m) for m in g):
                g.add(n)
                break
        else:
            groups.append({n})
    return groups


def _same_name(a: object, b: object) -> bool:
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "host"):
        return False
    x, y = sorted((str(a[1]), str(b[1])), key=len)
    return y.endswith("-" + x)


def _lost_node(ev: Evidence, hits: list[Hit]) -> Lost | None:
    if not hits or any(h.signature.role == "cause" for h in hits):
        return None
    reports = [h for h in hits if h.signature.category == "network_fault"]
    if not reports:
        return None
    at = ev.clocks.corrected

    def node(h: Hit) -> object:
        """A line's node: its resolved host; else the agent's folder that holds its file
        (a torchrun log dir and the console beside it); a rank on no known host or folder
        is on the node(s) the known hosts leave (a merged console whose other node names
        nothing); else the agent the job model gives it."""
        if h.host:
            return ("host", short(h.host))
        agent = ev.job.node(h.file_index, h.who)
        return ("unplaced", "") if h.rank is not None and agent[0] != "dir" else agent

    streams: dict[object, list[Hit]] = {}
    for st in ev.timeline.streams.values():
        if st.last is not None:
            streams.setdefault(node(st.last), []).append(st.last)

    def after(h: Hit, lasts: list[Hit]) -> bool:
        """Whether line `h` of a node came after the node's last progress."""
        return any(
            h.line > p.line if h.file_index == p.file_index else at(h) > at(p) for p in lasts
        )

    # a node that said anything after its last step (an error, its agent's teardown, a
    # signal it received) was not lost silently
    spoke = {n for h in ev.candidates if after(h, streams.get(n := node(h), []))}
    silent = [g for g in _one_node(list(streams)) if not g & spoke]
    if len(silent) != 1:
        return None
    (lost,) = silent
    lasts = [h for n in lost for h in streams[n]]
    if len(streams) < 2 and {h.file_index for h in reports} & {h.file_index for h in lasts}:
        # the only node that logs progress: its loss is shown only by other agents' own
        # files (Megatron prints steps on the last rank alone; its peers' node says little)
        return None
    reporters = {h.rank for h in reports if node(h) not in lost}
    if not reporters - {None}:
        return None
    first = min(reports, key=at)
    stopped = max(at(h) for h in lasts)
    if math.isfinite(stopped) and stopped > at(first) + _LOST_SLACK:
        return None  # it went on after its peers were lost: not the node that was
    root = min(lasts, key=lambda h: (h.rank if h.rank is not None else math.inf, h.line))
    return Lost(root, len(reporters - {None}), first)


def _empty_node(ev: Evidence, hits: list[Hit]) -> Lost | None:
    """A node whose every file is empty (it never logged a line) while the ranks of the
    other nodes report only waiting for their peers (a store or rendezvous wait, a
    collective timeout, a connection lost) and nothing else: the node was lost before
    its first line, or never started."""
    if not hits or any(h.signature.role == "cause" for h in hits):
        return None
    node = ev.job.silent_node()
    if node is None:
        return None
    reports = [
        h
        for h in hits
        if h.signature.category in ("network_fault", "collective_timeout")
        and ev.job.scope(h.file_index) != node
    ]
    if not reports:
        return None
    first = min(reports, key=ev.clocks.corrected)
    ranks = {h.rank for h in reports} - {None}
    reporters = len(ranks) or len({h.file_index for h in reports})
    return Lost(first, reporters, first, empty=node)


def _node_line(root: Hit, hits: list[Hit]) -> tuple[Hit, Identity | None] | None:
    """Rule `node-line`: the kernel or driver cause that `root`, a process's cause, echoes; a
    kernel file that names no host is the echoing process's node (who it blames)."""
    if root.signature.role != "cause" or root.signature.family in _NODE_FAMILIES:
        return None
    for node in hits:
        sig = node.signature
        if sig.role != "cause" or sig.family not in _NODE_FAMILIES:
            continue
        if node.host is not None and root.host is not None and node.host != root.host:
            continue
        if _echoes(root, node):
            if node.host is not None:
                return node, None
            rank = node.rank if node.rank is not None else root.rank
            return node, placed(node, rank, root.host)
    return None


# captures by which a line names the other end of a link it lost
_PEER_KEYS = ("peer", "remote")


def _peer_line(root: Hit, root_host: str | None, hits: list[Hit], ev: Evidence) -> Hit | None:
    """Rule `peer`: the best deciding line of the host that `root` (on `root_host`) names
    as its lost peer, unless that line too only names a peer (two ends that each lost the
    other)."""
    address = next((root.captures[k] for k in _PEER_KEYS if root.captures.get(k)), None)
    if address is None:
        return None
    host = ev.job.peer(address, root.captures.get("remote_rank"))
    if host is None or host == root_host:
        return None
    # the peer's own line of at least the same role: a cause, for a cause (the
    # timeouts the peer's ranks print after its NIC failed are not its own failure)
    rank = ROLE_RANK[root.signature.role]
    own = [
        h for h in hits if h.host == host and h is not root and ROLE_RANK[h.signature.role] <= rank
    ]
    if not own or any(own[0].captures.get(k) for k in _PEER_KEYS):
        return None
    return own[0]


# Ranks whose last steps lie within this many of their step times (and a second) of
# each other stopped together: blocked in the same collective, none seen to lag.
_TOGETHER_STEPS = 3.0


def _together(stall: Stall | None, ev: Evidence) -> Stall | None:
    """A stall in which every rank that trained stopped at the same step within a few
    step times: they all block in one collective, and the progress lines cannot tell
    which rank the others wait for (the one stuck before it is as silent as the rest).
    The stall then names no rank; a stack dump, or a rank that reports no timeout
    (`silent`), would."""
    if stall is None or stall.reason != "stalled":
        return stall
    streams = [s for s in ev.timeline.streams.values() if s.count and s.rank is not None]
    ranks = {s.rank for s in streams}
    stalled = {st.stream.key for st in ev.stalls}
    if len(ranks) < 2 or any(s.key not in stalled for s in streams):
        return stall
    steps = {s.last_step for s in streams}
    times = [s.last.time.epoch for s in streams if s.last and s.last.time and s.last.time.absolute]
    window = _TOGETHER_STEPS * stall.step_time + 1.0
    if len(steps) != 1 or len(times) != len(streams) or max(times) - min(times) > window:
        return stall
    return replace(stall, reason="together", ranks=len(ranks))


def _stalled_before_the_kill(stalls: list[Stall], root: Hit) -> Stall | None:
    """A job killed from outside (a time limit, a deadline, a SIGTERM: `preempted`) after
    one of its ranks had stopped progressing for longer than its stall threshold: the
    stall is the cause, the kill only ended it. Untimed, the kill is placed at the end
    of the evidence, which the stall was measured against."""
    if root.signature.category != "preempted" or not stalls:
        return None
    st = stalls[0]
    when, last = root.time, st.last.time
    if when is None or not when.absolute or last is None:
        return st
    return st if when.epoch - last.epoch > st.threshold else None


def _named(root: Hit, ev: Evidence) -> Identity | None:
    """Rule `named`: a line that names the rank at fault (`culprit_rank`: monitored_barrier's
    `Rank 5 failed to pass`, desync debug's `[6] ... didn't join`; `location`: HCCL's
    heartbeat `Cluster Exception Location[IP/ID]:[10.0.0.2/3]` of a lost or stuck rank)
    blames that rank, not the rank that printed it; its host is the one the job model
    knows for it."""
    named = root.captures.get("culprit_rank", "")
    if named.isdigit():
        return ev.job.blamed(int(named))
    rank = _located(root, ev)
    return ev.job.blamed(rank) if rank is not None else None


def _located(hit: Hit, ev: Evidence) -> int | None:
    """The rank a line locates by server address and device id (`location`, the older
    form's `location_device` beside it)."""
    location = hit.captures.get("location")
    if not location:
        return None
    device = hit.captures.get("location_device")
    return ev.job.located(f"{location}/{device}" if device else location)


# the categories of a wait that names the rank waited for (a notify wait, a socket or
# transport setup that timed out, a lost link)
_WAITS = frozenset({"collective_timeout", "network_fault"})


def _waited_on(hit: Hit, ev: Evidence) -> set[int]:
    """The ranks a waiting rank's line names as the one it waited for (`remote_rank`),
    lost (a heartbeat's `location`) or never saw join (HCCL's topology detection:
    `agent[1,3,5,7,]`)."""
    if hit.rank is None or hit.signature.category not in _WAITS:
        return set()
    remote = hit.captures.get("remote_rank", "").strip()
    targets = {int(remote)} if remote.isdigit() else set()
    located = _located(hit, ev)
    targets |= {located} if located is not None else set()
    targets |= {int(x) for x in hit.captures.get("missing_ranks", "").split(",") if x.isdigit()}
    targets.discard(hit.rank)
    return targets


def waits(hits: list[Hit], ev: Evidence) -> dict[int, set[int]]:
    """Who waited for whom: each rank that reported a wait, and the ranks it names."""
    graph: dict[int, set[int]] = {}
    for h in hits:
        targets = _waited_on(h, ev)
        if h.rank is not None and targets:
            graph.setdefault(h.rank, set()).update(targets)
    return graph


def _waited_for(root: Hit, hits: list[Hit], ev: Evidence) -> tuple[Hit, Identity | None] | None:
    """Rule `waits-for`: the rank at the end of the wait graph, as a line to cite: its
    own, else a line that names it as waited for (and the rank it blames)."""
    if root.signature.role != "symptom" or root.signature.category not in _WAITS:
        return None
    if any(h.signature.role == "cause" for h in hits):
        return None
    graph = waits(hits, ev)
    if not graph:
        return None
    named: dict[int, int] = {}
    for targets in graph.values():
        for t in targets:
            named[t] = named.get(t, 0) + 1
    ends = [t for t in named if t not in graph]
    if ends:  # most waited for, then the lowest rank
        end = min(ends, key=lambda t: (-named[t], t))
    else:  # everyone waits: the earliest reporter of a pair that waits for each other
        pairs = {r for r, ts in graph.items() for t in ts if r in graph.get(t, set())}
        if not pairs:
            return None
        end = min(pairs, key=lambda r: min(time_key(h) for h in hits if h.rank == r))
    own = [h for h in hits if h.rank == end]
    if own:
        return own[0], None
    naming = next(h for h in hits if end in _waited_on(h, ev))
    return naming, ev.job.blamed(end)


def _stall(ev: Evidence, hits: list[Hit]) -> Stall | None:
    """Rule `stall`: the stall that is the root cause, if the logs show one.

    Per the taxonomy a progress gap far beyond the step time makes a hang, unless a cause
    explains it (a rank that crashed also stops progressing). Collective timeouts and
    teardown are what the other ranks print while one rank hangs; when most ranks report
    a timeout and one does not, it is the rank they waited for.
    """
    if ev.completed:  # a finished run's silence is not a hang
        return None
    root = hits[0] if hits else None
    if root is not None and root.signature.role == "cause":
        return _stalled_before_the_kill(ev.stalls, root)
    if any(h.signature.stack is not None for h in hits[:1] + _outside(hits)):
        return None  # a dump shows where a rank is, not only when it stopped (rule `stuck`)
    if root is not None and root.signature.category == "collective_timeout":
        timeouts = [h for h in hits if h.signature.category == "collective_timeout"]
        ranks = {h.rank for h in timeouts if h.rank is not None}
        hosts = {short(h.host) for h in timeouts if h.host}

        def waited(rank: int | None, host: str | None) -> bool:
            if rank is not None:
                return rank in ranks
            return host is not None and short(host) in hosts

        silent = ev.timeline.silent(waited, ev.end)
        if silent is not None:
            return silent
        # a rank that reported the timeout itself stopped stepping because it waited in
        # that collective: its gap is the timeout, not a hang (the taxonomy's rule)
        limit = _BEYOND_TIMEOUT * collective_timeout(hits)
        stalls = [st for st in ev.stalls if not _waited_in_collective(st, hits, limit)]
        return stalls[0] if stalls else None
    return ev.stalls[0] if ev.stalls else None


# What ends a job whose rank is busy: the others' collective timeouts, and the teardown
# or a kill that gives no reason
_BUSY_ENDS = frozenset({"collective_timeout", "preempted"})
# The shortest default collective timeout, for logs that print none: torch's NCCL process
# groups (10 min); gloo, DeepSpeed and accelerate use 30 min, HCCL_EXEC_TIMEOUT 1836 s.
DEFAULT_COLLECTIVE_TIMEOUT = 600.0
# HCCL_EXEC_TIMEOUT's default (CANN), for HCCL's own timeouts that print no figure
HCCL_EXEC_TIMEOUT = 1836.0
# the capture names of a printed collective timeout, by their unit in seconds
_TIMEOUT_UNITS = (("timeout_ms", 0.001), ("timeout_s", 1.0), ("timeout_min", 60.0))


def _busy(ev: Evidence, hits: list[Hit]) -> Busy | None:
    """Rule `busy`: the rank whose own work outlasted the collective timeout, if only
    symptoms decide (a cause would explain the failure by itself)."""
    root = hits[0]
    if ev.completed or root.signature.role != "symptom":
        return None
    if root.signature.category not in _BUSY_ENDS:
        return None
    busy = ev.timeline.busy(collective_timeout(hits), root.time)
    return busy[0] if busy else None


def collective_timeout(hits: list[Hit]) -> float:
    """The collective timeout the job ran with, in seconds: the longest the lines print
    (`Timeout(ms)=1800000`, gloo's `Timed out waiting 20000ms`, HCCL's `timeout:30min`),
    else HCCL's default execution timeout when HCCL reported the timeouts, else
    DEFAULT_COLLECTIVE_TIMEOUT."""
    figures = [
        float(h.captures[name]) * unit
        for h in hits
        for name, unit in _TIMEOUT_UNITS
        if h.captures.get(name, "").isdigit()
    ]
    hccl = any(
        h.signature.family == "hccl" and h.signature.category == "collective_timeout" for h in hits
    )
    return max(figures, default=HCCL_EXEC_TIMEOUT if hccl else DEFAULT_COLLECTIVE_TIMEOUT)


def _stuck(hits: list[Hit]) -> Hit | None:
    """Rule `stuck`: the first main thread dumped outside any collective, unless a cause
    explains the failure by itself. A hang's cause that names the rank the others wait
    for (a Flight Recorder match, monitored_barrier) says who, not where: that rank's
    own stack dump outside any collective is cited instead."""
    root, outside = hits[0], _outside(hits)
    if root.signature.role == "cause":
        if root.signature.category != "hang":
            return None
        named = root.captures.get("culprit_rank", "")
        rank = int(named) if named.isdigit() else root.rank
        outside = [h for h in outside if rank is not None and h.rank == rank]
    return outside[0] if outside else None


def _outside(hits: list[Hit]) -> list[Hit]:
    """Stack-dump hits of threads that wait outside any collective."""
    return [h for h in hits if h.signature.stack is not None and stacks.waits_outside(h.captures)]


# A rank that reports a collective timeout this many timeouts after its last step was
# stuck before it entered the collective (or its watchdog was): the gap is not the wait.
_BEYOND_TIMEOUT = 2.0


def _waited_in_collective(st: Stall, hits: list[Hit], limit: float) -> bool:
    """Whether the stalled stream's own process reported a collective timeout after its
    last step, within `limit` seconds of it (a few collective timeouts)."""
    last = st.last.time
    return any(
        h.signature.category == "collective_timeout"
        and h.file_index == st.stream.file_index
        and same_process(h.who.slot, st.stream.who.slot)
        and (
            h.time is None
            or last is None
            or not h.time.absolute
            or 0 <= h.time.epoch - last.epoch <= limit
        )
        for h in hits
    )


_ECHO_LINES = 3


def _next_report(root: Hit, hits: list[Hit]) -> Hit | None:
    """The line right after `root` in its file (within three lines, in its channel or
    after a launcher's own unprefixed line) that
    reports the same kind of failure of a named rank: `srun: error: HOST: task 5: Out Of
    Memory` after slurmstepd's `Detected 1 oom-kill event(s) in StepId=...`."""
    if root.signature.blame == "job":  # a job-level event (a scheduler's) has no culprit
        return None
    near = [
        h
        for h in hits
        if h.rank is not None
        and h.file_index == root.file_index
        and (h.who.slot == root.who.slot or not root.who.slot)
        and 0 < h.line - root.line <= _ECHO_LINES
        and h.signature.category == root.signature.category
    ]
    return min(near, key=lambda h: h.line) if near else None


def _sole_report(root: Hit, hits: list[Hit]) -> Hit | None:
    """The one rank that reports the same kind of failure anywhere in the job, when only
    one does: slurmstepd's `Detected 1 oom_kill event in StepId=...` names no rank, and
    torchelastic's `exitcode: -9` of rank 1 is the same kill. A node-level line is
    placed by rule `node-rank` instead."""
    if root.signature.blame == "node":
        return None
    same = [
        h for h in hits if h.rank is not None and h.signature.category == root.signature.category
    ]
    return same[0] if same and len({h.rank for h in same}) == 1 else None


def _own_file(root: Hit, rank: int | None, hits: list[Hit]) -> Hit:
    """Rule `own-file`: the same line of the same rank in the rank's own file (its path names it)
    rather than in a console that copies every rank's output."""
    if rank is None or root.who.path_local is not None or root.who.path_rank is not None:
        return root
    text = _message(root)
    for h in hits:
        if (
            h.signature is root.signature
            and h.rank == rank
            and h.file_index != root.file_index
            and (h.who.path_local is not None or h.who.path_rank is not None)
            and _message(h) == text
        ):
            return h
    return root


def _message(hit: Hit) -> str:
    return hit.message.strip()


_SEQ_KEYS = ("last_enqueued", "last_completed", "seq")


def _seq(hit: Hit) -> int | None:
    for key in _SEQ_KEYS:
        value = hit.captures.get(key)
        if value is not None and value.isdigit():
            return int(value)
    return None


def _lowest_seq(root: Hit, hits: list[Hit]) -> Hit:
    """Rule `lowest-seq`: every rank that reached collective N reports a timeout on N; the rank that
    hung or died never enqueued it, so its own watchdog line (if any) names the lowest
    sequence number (`last enqueued NCCL work`, else `SeqNum`)."""
    tier = (root.signature.role, root.signature.severity, root.signature.category)
    same = [
        h
        for h in hits
        if (h.signature.role, h.signature.severity, h.signature.category) == tier
        and _seq(h) is not None
    ]
    return min(same, key=lambda h: (_seq(h), time_key(h), h.file_index, h.line))


# ranks stating their last enqueued collective before a lag among them is telling
_LAG_MIN_RANKS = 3


def _lagging(hits: list[Hit]) -> tuple[Hit, Lag] | None:
    """Rule `lags`: the rank furthest behind among the ranks of one process group that state
    their last enqueued collective, when fewer than half of them are behind; its own
    line. None while a cause decides, or when the ranks agree (all waiting in one
    collective: no rank is shown stuck). Sequence numbers count per process group: the
    signatures capture the group a line names (`pg`, from `[PG ID 0 ... Rank 4]`)."""
    if hits[0].signature.role == "cause":
        return None
    groups: dict[str, dict[int, Hit]] = {}
    for h in hits:
        value = h.captures.get("last_enqueued", "")
        if h.rank is None or not value.lstrip("-").isdigit():
            continue
        ranks = groups.setdefault(h.captures.get("pg", ""), {})
        held = ranks.get(h.rank)
        if held is None or int(value) > int(held.captures["last_enqueued"]):
            ranks[h.rank] = h
    for ranks in groups.values():
        if len(ranks) < _LAG_MIN_RANKS:
            continue
        enqueued = {r: int(h.captures["last_enqueued"]) for r, h in ranks.items()}
        top = max(enqueued.values())
        behind = sorted((v, r) for r, v in enqueued.items() if v < top)
        if behind and 2 * len(behind) < len(enqueued):
            lowest, rank = behind[0]
            ahead = tuple(sorted(r for r, v in enqueued.items() if v == top))
            return ranks[rank], Lag(rank, lowest, ahead, top)
    return None


# Symptoms that are echoes of one worker's exit: peers losing it, the launcher tearing
# the others down.
_EXIT_ECHOES = frozenset({"network_fault", "preempted"})


def _death(hit: Hit) -> bool:
    """A process's own notice of how it died and nothing of why (`Fatal Python error:
    Aborted`, a segfault report): the exit itself, not a cause or symptom it spoke."""
    return hit.signature.family == "system" and hit.signature.category == "unknown"


def _silent_exit(
    root: Hit, hits: list[Hit], ev: Evidence, signalled: set[tuple[str | None, str]]
) -> Hit | None:
    """Rule `silent-exit`: a worker that exited with an error code and said nothing,
    while the others only report losing a peer (gloo's `Connection closed by peer`,
    NCCL's `remote process exited`) or are torn down by the launcher (`Sending process P
    closing signal SIGTERM`). Those lines are echoes of its exit; a launcher's exit report
    names it."""
    if root.signature.role != "symptom" or root.signature.category not in _EXIT_ECHOES:
        return None
    tier = root.signature.severity
    others = [
        h
        for h in hits
        if h.signature.role == "symptom" and h.signature.severity == tier and not _death(h)
    ]
    if any(h.signature.category not in _EXIT_ECHOES for h in others):
        return None  # symptoms of another kind (timeouts): not only echoes of an exit
    spoke = {h.rank for h in hits if h.signature.role in ("cause", "symptom") and not _death(h)}
    # a worker's SIGTERM that its launcher did not send came from outside the job
    exits = [
        h
        for h in ev.candidates
        if _exit_code(h) is not None
        and (_exit_code(h) not in _TEARDOWN_EXITS or _signalled_from_outside(h, signalled))
        and (_exit_code(h) or 0) != 0
        and h.rank is not None
        and h.rank not in spoke
    ]
    return min(exits, key=lambda h: (time_key(h), h.file_index, h.line)) if exits else None


def _signalled_from_outside(exit_line: Hit, signalled: set[tuple[str | None, str]]) -> bool:
    """A worker that died of SIGTERM (-15) although its launcher sent none to its pid: the
    signal came from outside the job (a scheduler, a person, a node agent)."""
    pid = exit_line.captures.get("pid")
    return (
        _exit_code(exit_line) == -15 and pid is not None and (exit_line.host, pid) not in signalled
    )


def _exit_code(hit: Hit) -> int | None:
    code = hit.captures.get("exitcode")
    try:
        return int(code) if code is not None else None
    except ValueError:
        return None


def _node_rank(root: Hit, host: str | None, hits: list[Hit]) -> Hit | None:
    """Rule `node-rank`: the line of the rank a node-level root cause (a kernel line: Xid, OOM
    killer) struck: the first rank on the same host that reported trouble within two
    minutes of it; for a line on an uptime clock (dmesg), the first rank after it in the
    same file that reports the same kind of failure (the CUDA error that echoes an Xid),
    else, for a kernel file that names no host, the rank that echoes it when all such
    echoes come from one host."""
    if root.time is None or not root.time.absolute:
        echoes = [h for h in hits if h.rank is not None and _echoes(h, root)]
        after = [h for h in echoes if h.file_index == root.file_index and h.line > root.line]
        if after:
            return min(after, key=lambda h: h.line)
        if host is None and echoes and len({h.host for h in echoes}) == 1:
            return echoes[0]
        return None
    if not host:
        return None
    t0 = root.time.epoch
    # A line with no host of its own may be on that host when no other host is in sight.
    single_host = len({h.host for h in hits if h.host}) <= 1
    near = [
        h
        for h in hits
        if h.rank is not None
        and (h.host == host or (h.host is None and single_host))
        and h.time is not None
        and h.time.absolute
        and -5.0 <= h.time.epoch - t0 <= 120.0
    ]
    return min(near, key=lambda h: h.time.epoch if h.time else 0.0) if near else None


def _echoes(line: Hit, node: Hit) -> bool:
    """Whether a process's line reports the same kind of failure as a node's line: the
    same category, or the CUDA/NCCL/CANN text of a device fault."""
    if line.signature.category == node.signature.category:
        return True
    return (
        node.signature.category == "device_fault"
        and line.signature.family in _DEVICE_ECHOES
        and line.signature.category != "network_fault"  # a link's own error says more
    )


def spread(ev: Evidence, hits: list[Hit], culprit: Culprit | None) -> Spread | None:
    """How the failure spread: each deciding rank's first report (`hits`: rule `deciding`'s) on
    the reference clock (the first and last of them), the wait graph, and for a root line
    that names the rank at its other end, the link's two ends. None when fewer than two
    ranks report."""
    first: dict[int, tuple[float, Hit]] = {}
    for h in hits:
        if h.rank is None or h.signature.role not in ("cause", "symptom"):
            continue
        at = ev.clocks.corrected(h)
        if h.rank not in first or at < first[h.rank][0]:
            first[h.rank] = (at, h)
    if len(first) < 2:
        return None
    order = sorted(first.values(), key=lambda t: (t[0], t[1].rank or 0))

    def reported(at: float, h: Hit) -> Reported:
        time = replace(h.time, epoch=at).iso() if h.time and math.isfinite(at) else None
        device = h.identity.device if h.identity else None
        return Reported(h.rank or 0, h.host, device, time, h.signature.id)

    graph = waits(hits, ev)
    root = culprit.hit if culprit is not None else None
    rank = culprit.rank if culprit is not None else None
    remote = root.captures.get("remote_rank", "").strip() if root is not None else ""
    link = (
        (rank, int(remote))
        if root is not None
        and rank is not None
        and remote.isdigit()
        and root.signature.category == "network_fault"
        else None
    )
    return Spread(
        first=reported(*order[0]),
        last=reported(*order[-1]),
        ranks=len(first),
        waits=tuple(sorted((r, t) for r, ts in graph.items() for t in ts)),
        link=link,
    )


def chains(waits: tuple[tuple[int, int], ...]) -> list[str]:
    """The wait graph as chains `2 -> 1 -> 0 -> 3`, each from a rank nobody waits for."""
    after: dict[int, list[int]] = {}
    for r, t in waits:
        after.setdefault(r, []).append(t)
    waited = {t for _, t in waits}
    starts = sorted(r for r in after if r not in waited) or sorted(after)[:1]
    out = []
    for r in starts:
        chain, seen = [r], {r}
        while after.get(chain[-1]) and after[chain[-1]][0] not in seen:
            chain.append(after[chain[-1]][0])
            seen.add(chain[-1])
        if after.get(chain[-1]):  # a cycle: show where it closes
            chain.append(after[chain[-1]][0])
        out.append(" -> ".join(str(x) for x in chain))
    return out
