"""PyTorch Flight Recorder dumps: each rank's ring buffer of its recent collectives, read
without running anything, and matched across ranks.

With `TORCH_FR_BUFFER_SIZE` (formerly `TORCH_NCCL_TRACE_BUFFER_SIZE`) set, c10d records
every collective a process group issues (group, sequence id, op, sizes, dtypes, state,
the Python stack that called it); NCCL ranks write the buffer to
`TORCH_NCCL_DEBUG_INFO_TEMP_FILE` + rank when a collective times out, and any backend's
buffer can be dumped with `torch._C._distributed_c10d._dump_fr_trace()` (gloo records
too: torch 2.13, checked in corpora/flight). Where the logs of a hung job show only
timeouts, the dumps show which rank never reached the collective the others wait in, and
which rank called a different one.

A dump is a pickle (or the JSON newer torch also writes). Pickles run code when loaded,
so they are read with an unpickler that refuses every global (analyzer.job.unpickle): a
dump holds only dicts, lists, tuples, strings, numbers and None. What the
match finds becomes lines (`Finding.line`) that the signatures in
patterns/flight_recorder.yaml match, so the culprit rules, outputs and redaction treat
them like any line of the logs; the line is attributed to the rank it blames.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import PurePosixPath

from . import stacks
from .model import path_attempts

# A dump larger than this is not read (a 2,000-entry NCCL buffer with stacks is ~3 MiB)
MAX_BYTES = 64 << 20
# Dumps of one job read in all, beyond which they are noted and skipped: reading is
# linear in their bytes (0.15 s per MB), so this bounds a job's time on them
MAX_JOB_BYTES = 1 << 30
# bytes a second the slowest dump reads at (a hostile pickle of references: 7 MB/s
# here; a real one 7 MB/s too): under a deadline, a dump that cannot be read in the time
# left is not begun
READ_RATE = 4 << 20
# characters of pg_config's rank lists parsed per dump (10,000 groups of 1,000 ranks)
_MAX_RANK_TEXT = 1 << 24
# collectives kept per rank and process group: the last ones, where ranks diverge
KEEP = 512
# entries read per dump, the newest: torch's buffers hold thousands (TORCH_FR_BUFFER_SIZE)
MAX_ENTRIES = 200_000
# problems reported per job, and ranks named in one line
_MAX_FINDINGS = 64
_MAX_NAMED = 8

# torch names a dump `<prefix><rank>` (nccl_trace_rank_3, comm_lib_trace_rank_3); users
# add a host (nccl_trace_rank_node02_5, pytorch#140879) or an extension
_RANK = re.compile(r"(?<!\d)(\d{1,7})(?:\.(?:json|pkl|pickle|bin|dump))?$", re.IGNORECASE)
# PROTO, a protocol 4 FRAME, EMPTY_DICT, a memo op (Python's pickle writes one; torch's
# does not), MARK, the first key as a string
_PICKLE = re.compile(
    rb"\A\x80[\x02-\x05](?:\x95.{8})?\}(?:q.|r.{4}|\x94)?\(?(?:X|\x8c).{0,4}version", re.DOTALL
)
# JSON (`_dump_fr_trace_json`): keys sorted, so "comm_lib_version" or "entries" first
_JSON = re.compile(
    rb'\A\s*\{\s*"(?:comm_lib_version|nccl_version|entries|pg_config|pg_status|version)"\s*:'
)
_JSON_KEYS = re.compile(rb'"(?:pg_config|pg_status|collective_seq_id|profiling_name)"\s*:')


def sniff(head: bytes) -> bool:
    """Whether a file's first bytes are a Flight Recorder dump: a pickled dict whose
    first key is "version" (torch writes it first in every version), a pickle too short
    to say (a dump cut off: read, and noted as damaged), or a JSON object with a dump's
    keys."""
    if _PICKLE.match(head) or (len(head) < 64 and head[:1] == b"\x80" and head[1:2] in _PROTOCOLS):
        return True
    return bool(_JSON.match(head)) and _JSON_KEYS.search(head, 0, 8192) is not None


_PROTOCOLS = (b"\x02", b"\x03", b"\x04", b"\x05")


@dataclass(frozen=True)
class Call:
    """One collective a rank's buffer recorded."""

    group: str  # the process group's name (pg_config's key; "0" is the default group)
    desc: str  # its description: default_pg, a user's group_desc, "undefined"
    seq: int  # collective_seq_id within the group
    op: str  # profiling_name: nccl:all_reduce, gloo:broadcast
    sizes: str  # input -> output sizes
    dtypes: str  # input -> output dtypes
    state: str  # scheduled, started, completed
    time: float | None  # when it was issued (epoch seconds)
    frame: str | None  # the application frame that called it: "train.py:14 (step)"

    @property
    def signature(self) -> tuple[str, str, str]:
        return (self.op, self.sizes, self.dtypes)


@dataclass(frozen=True)
class Dump:
    """One rank's dump, as far as the match needs it."""

    name: str
    rank: int
    version: str
    calls: tuple[Call, ...]  # collectives (not point-to-point), in record order
    members: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # pg_config
    skipped: int = 0  # entries that were not records of a collective
    unread: int = 0  # the oldest entries beyond MAX_ENTRIES, not read


# The note of a dump given up at the deadline (the job then was not read whole)
DEADLINE_NOTE = "a Flight Recorder dump not read whole: the deadline came while reading it"


def load(
    data: bytes, name: str, path_rank: int | None = None, stop_at: float | None = None
) -> Dump | str:
    """A dump from its bytes, or why it is not one (a note). The rank is the number the
    file name ends in, as torch names dumps, else the one its path names; a pickle still
    being read at `stop_at` (monotonic) is not read."""
    m = _RANK.search(PurePosixPath(name.replace("!", "/")).name)
    rank = int(m[1]) if m else path_rank
    if rank is None:
        return "a Flight Recorder dump whose rank neither its name nor its folder says"
    if not data.strip():
        return "an empty Flight Recorder dump"
    from . import unpickle  # here: pickle stays out of a process that reads no dump

    try:
        raw = unpickle.load(data, stop_at) if data[:1] == b"\x80" else json.loads(data)
    except unpickle.Error as e:
        if str(e) == unpickle.DEADLINE:
            return DEADLINE_NOTE
        if str(e).startswith("refused"):
            return f"a Flight Recorder dump that was not read: {e}"
        why = "truncated" if "truncated" in str(e) else str(e)
        return f"a damaged Flight Recorder dump ({why[:200]})"
    except Exception as e:  # a damaged pickle raises what its opcodes run into
        why = "truncated" if isinstance(e, EOFError) else f"{type(e).__name__}: {e}"
        return f"a damaged Flight Recorder dump ({why[:200]})"
    if not isinstance(raw, dict) or ("entries" not in raw and "pg_config" not in raw):
        return "not a Flight Recorder dump (no entries, no pg_config)"
    entries = raw.get("entries", [])
    if not isinstance(entries, list):
        return "a damaged Flight Recorder dump (entries is not a list)"
    # the newest KEEP of each group, read from the end: only they are parsed
    calls: dict[str, list[Call]] = {}
    frames: dict[tuple[object, ...], str | None] = {}  # a loop's stack, read once
    skipped = 0
    for entry in reversed(entries[-MAX_ENTRIES:]):
        found = _group(entry)
        if found is None:
            skipped += 1
            continue
        held = calls.setdefault(found[0], [])
        if len(held) >= KEEP:
            continue
        call = _call(entry, *found, frames)
        if call is None:
            skipped += 1
        else:
            held.append(call)
    kept = sorted(
        (c for group in calls.values() for c in group),
        key=lambda c: (c.time or 0.0, c.group, c.seq),
    )
    unread = max(0, len(entries) - MAX_ENTRIES)
    version = _text(raw.get("version"))
    return Dump(name, rank, version, tuple(kept), _config(raw), skipped, unread)


def _group(e: object) -> tuple[str, str] | None:
    """A collective's process group (name, description); None for a point-to-point op
    or anything that is not an entry."""
    if not isinstance(e, dict) or e.get("is_p2p") is True:
        return None
    pg = e.get("process_group")
    if isinstance(pg, (list, tuple)) and len(pg) == 2:
        return _text(pg[0]), _text(pg[1])
    return _text(e.get("pg_id")), ""


def _call(
    e: dict[str, object], group: str, desc: str, frames: dict[tuple[object, ...], str | None]
) -> Call | None:
    """A recorded collective, or None for an entry without a sequence id."""
    seq = e.get("collective_seq_id")
    if type(seq) is not int or not 0 < seq < _BIG:
        return None
    created = e.get("time_created_ns")
    # nanoseconds since the epoch, up to the year 2286 (a forged value is no time)
    when = created / 1e9 if type(created) is int and 0 < created < 10**19 else None
    return Call(
        group=group,
        desc=desc,
        seq=seq,
        op=_text(e.get("profiling_name")) or "?",
        sizes=f"{_shape(e.get('input_sizes'))} -> {_shape(e.get('output_sizes'))}",
        dtypes=f"{_names(e.get('input_dtypes'))} -> {_names(e.get('output_dtypes'))}",
        state=_text(e.get("state")) or "scheduled",
        time=when,
        frame=_cached_frame(e.get("frames"), frames),
    )


def _cached_frame(stack: object, seen: dict[tuple[object, ...], str | None]) -> str | None:
    """`_frame`, once per distinct stack: a training loop issues the same few."""
    if not isinstance(stack, list):
        return None
    # only what _frame reads: a name and file that are strings, a line that is a small
    # int (never a value of the dump's own making hashed: a nested tuple recurses in C)
    key = tuple(
        (_flat(f.get("name")), _flat(f.get("filename")), _flat(f.get("line")))
        if isinstance(f, dict)
        else None
        for f in stack[:64]
    )
    held = seen.get(key, "")
    if held == "":
        held = seen[key] = _frame(stack)
    return held


def _flat(x: object) -> str | int | None:
    return x if type(x) is str or type(x) is int else None


_BIG = 1 << 63  # no id, size or time in a dump is larger (str() of a huge int raises)


def _text(x: object) -> str:
    return x[:200] if isinstance(x, str) else str(x) if type(x) is int and abs(x) < _BIG else ""


def _shape(x: object) -> str:
    """`[[4, 8]]`: a list of tensor sizes, or `?` when it is anything else."""
    if not isinstance(x, list) or len(x) > 64:
        return "?"
    out = []
    for dims in x:
        if not isinstance(dims, list) or len(dims) > 16 or not all(_small(d) for d in dims):
            return "?"
        out.append("[" + ", ".join(map(str, dims)) + "]")
    return "[" + ", ".join(out) + "]"


def _small(d: object) -> bool:
    return type(d) is int and abs(d) < _BIG


def _names(x: object) -> str:
    if not isinstance(x, list) or len(x) > 64 or not all(isinstance(d, str) for d in x):
        return "?"
    return ",".join(sorted(set(d[:20] for d in x))) or "-"


def _frame(frames: object) -> str | None:
    """The application frame that called the collective (frames are innermost first)."""
    if not isinstance(frames, list):
        return None
    read = []
    for k, f in enumerate(frames[:64]):
        if isinstance(f, dict) and isinstance(f.get("filename"), str):
            line = f.get("line")
            num = line if type(line) is int else None
            read.append(stacks.Frame(_text(f.get("name")) or "?", f["filename"][:300], num, k))
    at = stacks.caller(read)
    return None if at is None else f"{at.where} ({at.func})"


def _config(raw: Mapping[str, object]) -> dict[str, tuple[int, ...]]:
    """Each process group's ranks, from pg_config (`"ranks": "[0, 1]"`; torchcomms
    writes `0,1`). An empty list (gloo's config) says nothing."""
    config = raw.get("pg_config")
    out: dict[str, tuple[int, ...]] = {}
    if not isinstance(config, dict):
        return out
    budget = _MAX_RANK_TEXT
    for key, pg in list(config.items())[:10_000]:
        ranks = pg.get("ranks") if isinstance(pg, dict) else None
        if isinstance(ranks, str) and len(ranks) <= budget:
            budget -= len(ranks)
            found = tuple(int(r) for r in re.findall(r"(?<!\d)\d{1,7}(?!\d)", ranks))
            if found:
                out[_text(key)] = found
    return out


@dataclass(frozen=True)
class Finding:
    """What the match found, as the line that stands for it, blamed on one rank."""

    dump: str  # the blamed rank's dump: the line's file
    rank: int
    line: str


class Records:
    """The dumps read so far; a worker keeps its own and the parent absorbs it."""

    def __init__(self) -> None:
        self.dumps: dict[tuple[tuple[int, ...], int], Dump] = {}  # by attempt and rank
        self.added = 0  # dumps added so far: a new one means a new match

    def add(self, dump: Dump) -> None:
        """A rank's dump; of two dumps of one rank the later-written one counts."""
        self.added += 1
        # a bundle of several attempts holds a dump set per attempt (job.path_attempts):
        # sequence ids start again in each, so sets are matched apart; within one,
        # dumps in different folders (one per node) are one set
        key = (path_attempts(dump.name), dump.rank)
        held = self.dumps.get(key)
        if held is None or _last_time(dump) >= _last_time(held):
            self.dumps[key] = dump

    def absorb(self, other: Records) -> None:
        for dump in other.dumps.values():
            self.add(dump)

    def findings(self) -> list[Finding]:
        """Where the ranks' records diverge, as lines: per attempt, for two dumps or more."""
        sets: dict[tuple[int, ...], dict[int, Dump]] = {}
        for (attempt, rank), dump in sorted(self.dumps.items()):
            sets.setdefault(attempt, {})[rank] = dump
        out: list[Finding] = []
        for dumps in sets.values():
            if len(dumps) >= 2:
                problems = [p for p in map(_problem, _groups(dumps).items()) if p]
                out += _lines(_roots(problems), dumps)
        return out[:_MAX_FINDINGS]


def _groups(dumps: Mapping[int, Dump]) -> dict[str, dict[int, dict[int, Call]]]:
    """Each group's calls by rank and sequence id; the default group ("0") holds every
    dumped rank, another group the ranks pg_config lists (gloo lists none: then the
    ranks that recorded it). Linear in the calls and the listed members: a dump may
    name thousands of groups."""
    groups: dict[str, dict[int, dict[int, Call]]] = {}
    default: set[str] = {"0"}  # groups any rank describes as the default group
    for rank, dump in dumps.items():
        for c in dump.calls:
            groups.setdefault(c.group, {}).setdefault(rank, {})[c.seq] = c
            if "default_pg" in c.desc:
                default.add(c.group)
    listed: dict[str, set[int]] = {}
    for dump in dumps.values():
        for group, ranks in dump.members.items():
            if group in groups:
                listed.setdefault(group, set()).update(ranks)
    for group, by_rank in groups.items():
        members = listed.get(group) or (set(dumps) if group in default else set(by_rank))
        for rank in members:
            if rank in dumps:
                by_rank.setdefault(rank, {})
    return groups


@dataclass(frozen=True)
class _Problem:
    kind: str  # mismatch: which field differs; missing; state
    group: str
    seq: int
    present: Mapping[int, Call]  # the ranks that called it, and what they called
    culprits: tuple[int, ...]
    by_rank: Mapping[int, Mapping[int, Call]]

    @property
    def others(self) -> list[int]:
        return sorted(r for r in self.present if r not in self.culprits)

    @property
    def call(self) -> Call:
        """What the ranks that are not blamed called."""
        return self.present[self.others[0]] if self.others else next(iter(self.present.values()))

    @property
    def time(self) -> float:
        times = [c.time for c in self.present.values() if c.time is not None]
        return min(times) if times else 0.0


def _problem(item: tuple[str, dict[int, dict[int, Call]]]) -> _Problem | None:
    """The first collective of a group at which its ranks diverge (the wavefront):
    ranks that called something else, ranks that never got there, ranks on which it
    never started. A buffer need not start at sequence 1: only sequence ids every
    rank still holds, or that a rank never reached, are compared."""
    group, by_rank = item
    if len(by_rank) < 2:
        return None
    reached = {r: max(calls, default=0) for r, calls in by_rank.items()}
    start = max((min(calls) for calls in by_rank.values() if calls), default=0)
    seqs = sorted({s for calls in by_rank.values() for s in calls if s >= start})
    informative = any(c.state != "scheduled" for cs in by_rank.values() for c in cs.values())
    for seq in seqs:
        present = {r: calls[seq] for r, calls in by_rank.items() if seq in calls}
        mismatch = _mismatch(group, seq, present)
        if mismatch is not None:
            return mismatch
        absent = sorted(r for r, top in reached.items() if top < seq)
        # NCCL records completion: a collective completed on every rank that holds
        # it was joined by all, and a rank whose buffer ends before it was dumped
        # earlier (a dump through the debug pipe of a healthy job), not left behind
        finished = informative and all(c.state == "completed" for c in present.values())
        if absent and not finished:
            return _Problem("missing", group, seq, present, tuple(absent), by_rank)
        if informative:
            waiting = sorted(r for r, c in present.items() if c.state == "scheduled")
            if waiting and len(waiting) < len(present):
                return _Problem("state", group, seq, present, tuple(waiting), by_rank)
    return None


def _mismatch(group: str, seq: int, present: Mapping[int, Call]) -> _Problem | None:
    """Ranks that called a different collective at one sequence id (torch's fr_trace
    checks the op type, then sizes, then dtypes): the smaller side is blamed; of two
    sides as large, the one without the lowest rank (rank 0's code is the reference)."""
    for kind, key in (("op type", 0), ("size", 1), ("dtype", 2)):
        sides: dict[str, list[int]] = {}
        for rank, call in present.items():
            sides.setdefault(call.signature[key], []).append(rank)
        if len(sides) < 2:
            continue
        lowest = min(present)
        ordered = sorted(sides.values(), key=lambda rs: (-len(rs), lowest not in rs))
        culprits = tuple(sorted(r for rs in ordered[1:] for r in rs))
        return _Problem(kind, group, seq, present, culprits, {})
    return None


def _roots(problems: list[_Problem]) -> list[_Problem]:
    """The problems that are not an echo of another: a rank missing from one group's
    collective while it waits in another group's is not the one at fault; the rank
    that group waits for is (followed to its end, NVIDIA's resiliency toolkit links
    groups the same way). A rank blamed nowhere else stays blamed; if every blamed
    rank waits itself (ranks waiting for each other in two groups), all stay."""
    waiting: set[int] = set()
    for p in problems:
        if p.kind == "missing":
            waiting.update(r for r, c in p.present.items() if c.seq == max(p.by_rank[r]))
    # whether some rank is blamed that waits nowhere (once: thousands of groups)
    any_free = any(set(q.culprits) - waiting for q in problems if q.kind == "missing")
    out = []
    for p in problems:
        if p.kind == "missing":
            free = tuple(r for r in p.culprits if r not in waiting)
            if free:
                p = _Problem(p.kind, p.group, p.seq, p.present, free, p.by_rank)
            elif any_free:
                continue
        out.append(p)
    return sorted(out, key=lambda p: (p.kind == "missing", p.kind == "state", p.time))


def _lines(problems: Iterable[_Problem], dumps: Mapping[int, Dump]) -> list[Finding]:
    out = []
    for p in problems:
        call = p.call
        where = f"of process group {p.group} ({call.desc or 'undefined'})"
        others = _ranks(p.others)
        for rank in p.culprits[:_MAX_NAMED]:
            own = p.present.get(rank)
            if p.kind == "missing":
                text = (
                    f"rank {rank} never joined collective {p.seq} ({call.op}) {where}, "
                    f"which {others} entered; {_last(p.by_rank.get(rank, {}))}"
                )
            elif p.kind == "state":
                text = (
                    f"collective {p.seq} ({call.op}) {where} never started on rank {rank}, "
                    f"which {others} started"
                )
            else:
                assert own is not None
                text = (
                    f"collective {p.seq} {where} does not match across ranks ({p.kind} "
                    f"mismatch): rank {rank} called {_desc(own)} where {others} called "
                    f"{_desc(call)}" + (f", at {own.frame}" if own.frame else "")
                )
            line = f"[rank{rank}]:{_iso(p.time)}Flight Recorder: {text}"
            out.append(Finding(dumps[rank].name, rank, line))
    return out


def _last(calls: Mapping[int, Call]) -> str:
    if not calls:
        return "it entered none of the group's collectives"
    last = calls[max(calls)]
    at = f" at {last.frame}" if last.frame else ""
    return f"its last was collective {last.seq} ({last.op}, {last.state}){at}"


def _desc(c: Call) -> str:
    return f"{c.op} {c.sizes} {c.dtypes}"


def _ranks(ranks: Sequence[int]) -> str:
    if not ranks:
        return "no rank"
    shown = ", ".join(map(str, ranks[:_MAX_NAMED]))
    more = f" and {len(ranks) - _MAX_NAMED} more" if len(ranks) > _MAX_NAMED else ""
    return f"rank{'s' if len(ranks) > 1 else ''} {shown}{more}"


def _iso(epoch: float) -> str:
    when = datetime.fromtimestamp(epoch, timezone.utc) if epoch else None
    return f"{when.isoformat(timespec='microseconds')} " if when else ""


def _last_time(dump: Dump) -> float:
    return max((c.time or 0.0 for c in dump.calls), default=0.0)
