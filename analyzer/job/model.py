"""The job model: who logged every line (global rank, local rank, host, device), decided once.

Launchers and collectors say who logged a line in many ways, and most of them are partial:
torchrun's `[default5]:` and an elastic log dir `attempt_0/5/` carry the LOCAL rank, an
srun label the task (a node or a rank), a folder name the host, NCCL's header the host,
pid and CUDA device. The rest of the picture is elsewhere in the bundle: torchelastic's
failure table (`rank: 13 (local_rank: 5)`, `host:`), the agent's rendezvous result
(`group_rank=`, `global_ranks=[...]`), NCCL's communicator lines (rank, device, bus id),
a trainer's own `[rank 13]` print beside its local prefix.

So the scan records, unresolved, what each line claims (`Who`, from analyzer.rules.formats),
and facts (formats.yaml `facts`); once everything is read, `JobBuilder.build()` makes
the topology (nodes, local -> global rank maps, pids, devices) and `JobModel.identity()`
resolves any line. Every stage downstream (timelines, culprit rules, act_on, sinks) sees
resolved identities only. Rules, in the order they apply, are on `JobModel.identity`.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from ..rules.formats import Fields, Formats, host_ranks, ranks_list
from ..rules.formats import builtin as builtin_formats
from ..types import Hit, Identity, Who

_MAX_RECORDS = 20_000
_BLOCK_GAP = 12  # lines between two lines of one fact block (a failure table)
_RECORD_REACH = (3, 4)  # a record covers hits this many lines before / after it


def _int(v: str | None) -> int | None:
    return int(v) if v is not None and v.isdigit() else None


def who_of(prefix: Fields, said: Fields, path: Who) -> Who:
    """The Who of a line from its prefix fields, its message's claims and its path's."""
    return Who(
        prefix_rank=_int(prefix.get("rank")),
        prefix_local=_int(prefix.get("local_rank")),
        task=_int(prefix.get("task") or said.get("task")),
        said_rank=_int(said.get("rank")),
        said_local=_int(said.get("local_rank")),
        host=prefix.get("host") or said.get("host"),
        prefix_host=prefix.get("host"),
        pid=_int(prefix.get("pid") or said.get("pid")),
        device=said.get("device"),
        busid=normal_busid(said.get("busid")),
        path_rank=path.path_rank,
        path_local=path.path_local,
        path_device=path.path_device,
    )


def normal_busid(text: str | None) -> str | None:
    """PCI bus ids as `0000:3b:00`: NCCL prints `3b000` or `0000:3b:00.0`, Xid `0000:3b:00`."""
    if not text:
        return None
    t = text.lower()
    m = re.fullmatch(r"(?:([0-9a-f]{4,8}):)?([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-7])?", t)
    if m:
        return f"{(m.group(1) or '0000')[-4:]}:{m.group(2)}:{m.group(3)}"
    if re.fullmatch(r"[0-9a-f]{4,9}", t):
        # NCCL's busId is the id's hex digits as one number (domain, bus, device, function)
        d = t.zfill(9)
        return f"{d[:4]}:{d[4:6]}:{d[6:8]}"
    return t


# --- paths ------------------------------------------------------------------------

# Names of a path's parts this module reads as such (the host a line names is matched
# against a file's name without them); the host SHAPES of a path are data:
# patterns/formats/formats.yaml, `paths:` fields `host`, `host_like`, `host_before`.
_WORDS = "dmesg|kern|kernel|syslog|messages|journal|console|stdout|stderr|train|launcher"
_LOG_WORDS = re.compile(rf"^(?:{_WORDS})[_.\-]|[_.\-](?:{_WORDS})$", re.I)
_SUFFIX = re.compile(r"(?:\.(?:log|out|err|txt|gz|bz2|xz|zst|json))+$", re.I)
_HOST_FIELDS = frozenset({"host", "host_like", "host_before"})


def path_who(name: str, formats: Formats | None = None) -> Who:
    """What a file's path says: a rank (rank_3.log), a local rank (attempt_0/3/), an
    NPU id (device-3/), by the path shapes of `formats` (patterns/formats/formats.yaml,
    `paths:`; default the built-in ones). `worker-N` is a node, not a rank (hosts:
    `path_hosts`)."""
    said = (formats or builtin_formats()).path_fields(path_posix(name))
    local, ranks, devices = said.get("local_rank"), said.get("rank"), said.get("device")
    return Who(
        path_rank=int(ranks[-1]) if ranks and not local else None,
        path_local=int(local[-1]) if local else None,
        path_device=devices[-1] if devices else None,
    )


def path_attempts(name: str, formats: Formats | None = None) -> tuple[int, ...]:
    """The attempts a path's folders name, outermost first: a controller's
    `attempt_1/` around torchrun's own `attempt_0/` is (1, 0), after every file of
    `attempt_0/` (0, 0) and before `attempt_1/.../attempt_1/`; () when none."""
    said = (formats or builtin_formats()).path_fields(path_posix(name))
    return tuple(map(int, said.get("attempt", ())))


def path_posix(name: str) -> str:
    """A bundle's name for a file as a `/`-separated path inside the bundle (a Windows
    path; an archive member's `archive!member` is the member's path: where the archive
    lies, and how the caller spelled it, say nothing of who wrote the file)."""
    name = name.replace("\\", "/")
    if "!" in name:
        name = name.split("!", 1)[1]
    return name.replace("!", "/")


def _run_folder(posix: str) -> str | None:
    """The folder holding an elastic log dir's run (`FOLDER/RUN/attempt_0/3/stdout.log`):
    its attempts' files are one agent's."""
    m = re.search(r"(?:^|/)[^/]+/attempt_\d+/\d+/[^/]+$", posix)
    return posix[: m.start()] if m else None


# Names that are no node of a cluster: loopback, and a container's default hostname (its
# id's first 12 hex digits), which every restart renames
_NOT_A_NODE = re.compile(
    r"(?i)localhost(?:\.localdomain)?|ip6-localhost|127(?:\.\d{1,3}){3}|::1|0\.0\.0\.0|[0-9a-f]{12}"
)


def cordonable(host: str | None) -> bool:
    """Whether `host` names a node a controller could isolate (taxonomy: `localhost` and
    loopback addresses are never hosts to cordon, nor lemon nodes)."""
    return bool(host) and not _NOT_A_NODE.fullmatch(str(host))


def path_hosts(name: str, top: int = 0, formats: Formats | None = None) -> list[str]:
    """Candidate hosts a path names, innermost first, by the path shapes of `formats`
    (default the built-in ones). Its `top` outermost folders (the ones holding every file
    of the job) count only by an explicit host shape (`worker-0/`), never by looking like
    one (`exp-17/`)."""
    posix = path_posix(name)
    cut = 0
    if posix.startswith("/"):  # a file named by its absolute path: /tmp/u123/... say nothing
        cut = posix.rfind("/", 0, posix.rfind("/")) + 1
        top = max(0, top - posix[:cut].count("/") + 1)
    spans = (formats or builtin_formats()).path_spans(posix)
    out = [
        value
        for at, field_, value in reversed(spans)
        if field_ in _HOST_FIELDS
        and at >= cut
        and (field_ == "host" or posix[cut:at].count("/") >= top)
    ]
    return list(dict.fromkeys(out))


# --- facts ------------------------------------------------------------------------


@dataclass
class Record:
    """One fact, or the lines of one fact block, of one file."""

    file_index: int
    first: int
    last: int
    block: str | None
    fields: dict[str, str]
    who: Who

    def holds(self, hit: Hit) -> bool:
        """Whether `hit` is one of the record's lines."""
        return hit.file_index == self.file_index and self.first <= hit.line <= self.last


@dataclass
class JobBuilder:
    """Collects claims and facts while the job is read; `build()` makes the JobModel."""

    names: dict[int, str] = field(default_factory=dict)
    whos: dict[int, Counter[Who]] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    empty: set[int] = field(default_factory=set)  # files read whole that held no byte

    def see(self, file_index: int, name: str, who: Who) -> None:
        """A hit's claims (distinct ones are kept, counted)."""
        self.names.setdefault(file_index, name)
        per = self.whos.setdefault(file_index, Counter())
        if who in per or len(per) < 4096:
            per[who] += 1

    def fact(
        self, file_index: int, name: str, line: int, block: str | None, fields: Fields, who: Who
    ) -> None:
        """A fact line; lines of one block close together join one record."""
        self.names.setdefault(file_index, name)
        last = self.records[-1] if self.records else None
        if (
            block is not None
            and last is not None
            and last.block == block
            and last.file_index == file_index
            and 0 <= line - last.last <= _BLOCK_GAP
            and not (set(fields) & set(last.fields))
            and "first_failure" not in fields  # a first failure's header opens its record
        ):
            last.fields.update(fields)
            last.last = line
            return
        if len(self.records) < _MAX_RECORDS:
            self.records.append(Record(file_index, line, line, block, dict(fields), who))

    def absorb(self, other: JobBuilder, base: int, lines: int) -> None:
        """Another reader's claims and facts (a worker), its files numbered from `base`
        and its lines from `lines`."""
        for i, name in other.names.items():
            self.names.setdefault(base + i, name)
        self.empty |= {base + i for i in other.empty}
        for i, whos in other.whos.items():
            per = self.whos.setdefault(base + i, Counter())
            per.update(whos)
        for r in other.records:
            first, last = r.first + lines, r.last + lines
            self.records.append(
                Record(base + r.file_index, first, last, r.block, dict(r.fields), r.who)
            )

    def build(self, formats: Formats | None = None) -> JobModel:
        """The job model; `formats`: the job's (its path shapes name hosts), else built-in."""
        return JobModel(self, formats)


def _global(who: Who) -> int | None:
    return who.prefix_rank if who.prefix_rank is not None else who.said_rank


def _local(who: Who) -> int | None:
    return who.prefix_local if who.prefix_local is not None else who.said_local


Node = tuple[str, str]  # ("host", name) | ("dir", folder) | ("file", name) | ("task", id)


def short(host: str) -> str:
    """A host's short name: `gpu187.cluster.local` and `gpu187` are one node, and
    DeepSpeed's `user@host` is `host`."""
    return host.rsplit("@", 1)[-1].split(".", 1)[0] if not _IPV4.fullmatch(host) else host


_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_WORLD_COMM = ("nccl-comm-init", "nccl-comm-local")


class JobModel:
    """The job's topology, and every line's identity resolved from it."""

    def __init__(self, b: JobBuilder, formats: Formats | None = None) -> None:
        self._formats = formats
        self._b = b
        self.names = dict(b.names)
        hosts = {w.host for whos in b.whos.values() for w in whos if w.host}
        hosts |= {r.fields["host"] for r in b.records if "host" in r.fields}
        for r in b.records:
            if "host_ranks" in r.fields:
                hosts |= set(host_ranks(r.fields["host_ranks"]))
        self._known = {short(h): h for h in sorted(hosts)}
        self.file_host = {i: self._file_host(i) for i in self.names}
        self.local_map: dict[Node, dict[int, int]] = {}
        self.rank_host: dict[int, str] = {}
        self.rank_device: dict[int, str] = {}
        self.rank_busid: dict[int, str] = {}
        self.pid_rank: dict[tuple[str | None, int], int] = {}
        self.pid_local: dict[tuple[Node, int], int] = {}
        self.task_host: dict[int, str] = {}
        self.ip_host: dict[str, str] = {}  # a host's address -> its name
        self.rank_ip: dict[int, str] = {}  # a rank's server address (HCCL's server[IP])
        self.rank_phy: dict[int, str] = {}  # a rank's physical NPU id (HCCL's devicePhyId)
        # what lines say of a process without naming its rank: (host, pid) -> fields
        self._pid_facts: dict[tuple[str | None, int], dict[str, str]] = {}
        self.world = 0  # the largest world size or rank + 1 any line shows
        self.multi_node = False  # a line says there are several nodes
        self.tasks_are_nodes = False  # srun labels stand before local ranks
        self._file_rank: dict[int, int] = {}
        self._pid_only: dict[int, int] = {}
        self._busid_rank: dict[tuple[str | None, str], int] = {}
        self._device_rank: dict[tuple[str, str], int] = {}
        self._device_offset: dict[str, int] = {}
        self._channel_names: dict[tuple[int, str], set[int]] = {}
        self._channel_rank: dict[tuple[int, str], int] = {}
        self._blocks: dict[int, list[Record]] = {}
        for r in b.records:
            if r.block is not None:
                self._blocks.setdefault(r.file_index, []).append(r)
        for recs in self._blocks.values():
            recs.sort(key=lambda r: r.first)
        self._starts = {i: [r.first for r in recs] for i, recs in self._blocks.items()}
        self._learn()
        self._cache: dict[tuple[int, Who], Identity] = {}

    # --- building -------------------------------------------------------------------

    def _file_host(self, i: int) -> str | None:
        """A file's host: the one its own lines name (all alike), else a path component
        that a line of the job names as a host, else a host-shaped path component."""
        whos = self._b.whos.get(i, ())
        # a file srun merged from several nodes (a task label before torchrun's local
        # ranks) is nobody's: a host its lines name is one node's (srun: error: HOST)
        merged = any(w.task is not None and _local(w) is not None for w in whos)
        own = {short(w.host) for w in whos if w.host}
        if len(own) == 1 and not merged:
            return self._known.get(own.pop())
        name = path_posix(self.names[i])
        pieces = set()
        for part in name.split("/"):
            stem = _SUFFIX.sub("", part)
            pieces |= {part, stem, _LOG_WORDS.sub("", stem), short(stem)}
        # a path component that a line names as a host (by its short name, as the
        # platform named the folder or file; `node-b.log` and its stem are one name)
        named = {short(p): p for p in sorted(pieces, key=len, reverse=True) if p}
        hosts = [p for k, p in named.items() if k in self._known]
        if len(hosts) == 1:
            return hosts[0]
        # the folders that hold every file of the job are the bundle's: a node's only
        # by an explicit shape (worker-0/, node-3/), never by looking like one (exp-17/)
        candidates = path_hosts(name, self._top.count("/"), self._formats)
        return candidates[0] if candidates else self._node_files.get(name)

    @cached_property
    def _node_files(self) -> dict[str, str]:
        """Files named by their node (`gpu-a17.log`, `gpu-b03.log`): two or more files of
        one folder and suffix whose names are all host-shaped are one per node, each
        its host's (a lost node's file names it where none of its lines do)."""
        groups: dict[tuple[str, str], dict[str, str]] = {}
        for n in map(path_posix, self.names.values()):
            folder, _, base = n.rpartition("/")
            stem = _SUFFIX.sub("", base)
            groups.setdefault((folder, base[len(stem) :]), {})[n] = stem
        out: dict[str, str] = {}
        for files in groups.values():
            shaped = [path_hosts(f"{st}/x", 0, self._formats) == [st] for st in files.values()]
            if len(files) >= 2 and all(shaped):
                out.update(files)
        return out

    @cached_property
    def _top(self) -> str:
        """The folders every file of the job lies in (`exp-17/` of `exp-17/node-b.log`
        and `exp-17/node-c.log`): "" for a job of one file."""
        names = [path_posix(n) for n in self.names.values()]
        if len(names) < 2:
            return ""
        top = (
            os.path.commonpath(names)
            if all(n.startswith("/") for n in names) or not any(n.startswith("/") for n in names)
            else ""
        )
        return f"{top}/" if top and top not in names else ""

    def scope(self, file_index: int) -> Node:
        """The node a file was written on: its host, else its folder (an elastic log
        dir's attempt folders belong to the folder that holds the run)."""
        host = self.file_host.get(file_index)
        if host:
            return ("host", short(host))
        name = path_posix(self.names.get(file_index, ""))
        folder = _run_folder(name)
        if folder is None:
            # the agent's own log beside its run folder, or beside the log dir holding it
            # (`node-b/console.log` and `node-b/torchelastic/RUN/attempt_0/0/`) when that
            # folder holds no other node's runs
            here = name.rpartition("/")[0]
            below = [f for f in self._run_folders if f.rpartition("/")[0] == here]
            folder = here if here in self._run_folders else (below[0] if len(below) == 1 else None)
        # any other file is one agent's output: two consoles side by side in one folder
        # are two nodes (whether the bundle was opened at that folder or above it)
        return ("dir", folder) if folder is not None else ("file", name)

    def silent_node(self) -> Node | None:
        """The one node (a host, or an agent's folder) whose every file is empty while
        other nodes' files are not: it never logged a line (its agent or pod died before
        the first, or it never started). A lone empty file is no node: a rank's unused
        stdout beside its stderr, a log nobody wrote to."""
        if not self._b.empty:
            return None
        files: dict[Node, list[int]] = {}
        for i in self.names:
            files.setdefault(self.scope(i), []).append(i)
        silent = [n for n, held in files.items() if all(i in self._b.empty for i in held)]
        if len(silent) != 1 or len(files) < 2 or silent[0][0] not in ("host", "dir"):
            return None
        if silent[0][0] == "host":
            return silent[0]
        # an agent's folder, named as the folder that holds all its files (`node-b/`, not
        # the elastic log dir inside it beside its console)
        names = [path_posix(self.names[i]) for i in files[silent[0]]]
        return ("dir", os.path.commonpath([n.rpartition("/")[0] or "." for n in names]))

    def node_identity(self, node: Node) -> Identity:
        """Who a node is, with no rank: its host where it is one (a folder is not)."""
        return Identity(
            rank=None, local_rank=None, host=node[1] if node[0] == "host" else None, device=None
        )

    @cached_property
    def _run_folders(self) -> frozenset[str]:
        return frozenset(f for n in self.names.values() if (f := _run_folder(path_posix(n))))

    def _by_elimination(self, seen: dict[Node, set[int]]) -> None:
        """One node whose local ranks nothing maps, in a job whose other nodes' ranks and
        world size are known: it holds the ranks the others leave (the middle node of
        three that died before any line named its ranks)."""
        unmapped = [n for n, locs in seen.items() if locs and not self.local_map.get(n)]
        if len(unmapped) != 1 or not self.world or len(seen) < 2:
            return
        taken = {g for m in self.local_map.values() for g in m.values()}
        left = sorted(set(range(self.world)) - taken)
        locals_ = sorted(seen[unmapped[0]])
        if left and len(left) == locals_[-1] + 1 and left == list(range(left[0], left[-1] + 1)):
            self.local_map[unmapped[0]] = {lo: left[0] + lo for lo in locals_}

    def node(self, file_index: int, who: Who) -> Node:
        """The node (agent) a line of file `file_index` was written on: its host, a
        merged console's task, else the folder or file that is one agent's."""
        if who.task is not None and _local(who) is not None:
            return ("task", str(who.task))
        if who.host and _local(who) is not None:
            return ("host", short(who.host))  # [HOST:3]: (torchrun --role HOST)
        return self.scope(file_index)

    def _learn(self) -> None:
        votes: Counter[tuple[Node, int, int]] = Counter()
        named: dict[int, set[int]] = {}
        seen: dict[Node, set[int]] = {}  # local ranks seen on each node
        for i, whos in self._b.whos.items():
            for who in whos:
                self._learn_line(i, who, votes, named, seen)
        self._file_rank = {i: next(iter(r)) for i, r in named.items() if len(r) == 1}
        self._channel_rank = {
            k: next(iter(r)) for k, r in self._channel_names.items() if len(r) == 1
        }
        offsets: dict[Node, int] = {}
        # NCCL's rank is within its communicator: the world's is the largest
        world_comm = max(
            (
                int(r.fields["world_size"])
                for r in self._b.records
                if r.block is None and "world_size" in r.fields and "rank" in r.fields
            ),
            default=0,
        )
        for r in self._b.records:
            self._learn_record(r, world_comm, votes, seen, offsets)
        best: dict[tuple[Node, int], tuple[int, int]] = {}
        for (node, local, rank), n in votes.items():
            if (node, local) not in best or n > best[(node, local)][1]:
                best[(node, local)] = (rank, n)
        for (node, local), (rank, _) in best.items():
            self.local_map.setdefault(node, {})[local] = rank
        for node, off in offsets.items():
            m = self.local_map.setdefault(node, {})
            for local in seen.get(node, ()):
                m.setdefault(local, off + local)
        # a node whose known locals share one offset: its other locals have it too
        for node, m in self.local_map.items():
            offs = {g - lo for lo, g in m.items()}
            if len(offs) == 1:
                off = offs.pop()
                for local in seen.get(node, ()):
                    m.setdefault(local, off + local)
        self._by_elimination(seen)
        nodes = {n for n in seen if n[0] != "task"}
        file_hosts = {short(h) for h in self.file_host.values() if h}
        most_local = max((max(v) for v in seen.values() if v), default=-1)
        self.single_node = (
            len(nodes) <= 1
            and len(file_hosts) <= 1
            and not self.multi_node
            and not self.tasks_are_nodes
            and (not seen or self.world <= most_local + 1)  # no rank beyond one node's
        )
        # a pid beside a rank known from the line's other claims (NCCL's header in a
        # rank's own file or behind its [defaultN]: prefix)
        for i, whos in self._b.whos.items():
            for who in whos:
                if who.pid is not None and _global(who) is None:
                    known, _ = self._rank(i, who, None)
                    if known is not None:
                        where = who.host or self.file_host.get(i)
                        self.pid_rank.setdefault((where, who.pid), known)
        by_pid: dict[int, set[int]] = {}
        for (h, pid), rank in self.pid_rank.items():
            by_pid.setdefault(pid, set()).add(rank)
            if h:
                self.rank_host.setdefault(rank, h)
        # a pid that names one rank wherever it was seen: a line with no host finds it
        self._pid_only = {pid: next(iter(r)) for pid, r in by_pid.items() if len(r) == 1}
        # a process's address and physical NPU, said by lines that name only its pid
        for (h, pid), said in self._pid_facts.items():
            owner = self.pid_rank.get((h, pid), self._pid_only.get(pid))
            if owner is not None:
                if "ip" in said:
                    self.rank_ip.setdefault(owner, said["ip"])
                if "phy_device" in said:
                    self.rank_phy.setdefault(owner, said["phy_device"])
        # a PCI bus id on a host (an Xid line) is the rank NCCL put on that device
        per_bus: dict[tuple[str | None, str], set[int]] = {}
        for rank, busid in self.rank_busid.items():
            host = self.rank_host.get(rank)
            per_bus.setdefault((short(host) if host else None, busid), set()).add(rank)
            per_bus.setdefault((None, busid), set()).add(rank)
        self._busid_rank = {k: next(iter(r)) for k, r in per_bus.items() if len(r) == 1}
        # an NPU or GPU id on a host (a driver line's dev_id=3, CANN's device-3/ folder) is
        # the one rank the job model put on that device of that host
        per_device: dict[tuple[str, str], set[int]] = {}
        for rank, device in self.rank_device.items():
            host = self.rank_host.get(rank)
            if host and device:
                per_device.setdefault((short(host), device), set()).add(rank)
        self._device_rank = {k: next(iter(r)) for k, r in per_device.items() if len(r) == 1}
        # a device of a host none of its lines gave a rank (an excerpt without that
        # process's comm line): where two or more devices of the host have ranks at one
        # offset (NCCL's `rank 3 ... cudaDev 3`, `rank 11 ... cudaDev 3`), it has its own
        shifts: dict[str, set[int]] = {}
        pairs: Counter[str] = Counter()
        for (h, device), rank in self._device_rank.items():
            if device.isdigit():
                shifts.setdefault(h, set()).add(rank - int(device))
                pairs[h] += 1
        self._device_offset = {
            h: next(iter(o)) for h, o in shifts.items() if len(o) == 1 and pairs[h] >= 2
        }

    def _learn_line(
        self,
        i: int,
        who: Who,
        votes: Counter[tuple[Node, int, int]],
        named: dict[int, set[int]],
        seen: dict[Node, set[int]],
    ) -> None:
        """What one line's claims tell: a local and a global rank side by side, a pid
        or device beside a rank, a task before a local rank."""
        g, loc = _global(who), _local(who)
        if loc is not None:
            node = self.node(i, who)
            seen.setdefault(node, set()).add(loc)
            if g is not None:
                votes[(node, loc, g)] += 1
        if who.path_local is not None:
            seen.setdefault(self.scope(i), set()).add(who.path_local)
            if g is not None and loc is None:
                votes[(self.scope(i), who.path_local, g)] += 1
        if g is not None:
            named.setdefault(i, set()).add(g)
            if "/" in who.slot:  # a launcher's channel: the lines of one node or process
                self._channel_names.setdefault((i, who.slot), set()).add(g)
            self.world = max(self.world, g + 1)
            if who.pid is not None:
                self.pid_rank[(who.host or self.file_host.get(i), who.pid)] = g
            if who.device or who.path_device:
                self.rank_device.setdefault(g, who.device or who.path_device or "")
        if who.task is not None and loc is not None:
            self.tasks_are_nodes = True
        if who.task is not None and who.host and loc is None and not who.prefix_host:
            self.task_host.setdefault(who.task, who.host)  # srun: error: HOST: task T

    def _learn_record(
        self,
        r: Record,
        world_comm: int,
        votes: Counter[tuple[Node, int, int]],
        seen: dict[Node, set[int]],
        offsets: dict[Node, int],
    ) -> None:
        """What one fact record tells (formats.yaml facts)."""
        f = r.fields
        node = self.node(r.file_index, r.who)
        host = f.get("host") or r.who.host or self.file_host.get(r.file_index)
        if f.get("host"):  # the table's host, the agent's: that node's ranks
            node = ("host", short(f["host"]))
        rank = _int(f.get("rank"))
        if rank is not None and "world_size" in f and r.block is None:
            # a communicator's rank is global only in the world communicator
            rank = rank if int(f["world_size"]) == world_comm else None
        local = _int(f["local_rank"]) if "local_rank" in f else _local(r.who)
        if local is not None:
            seen.setdefault(node, set()).add(local)
            if rank is not None:
                votes[(node, local, rank)] += 1
        if rank is not None:
            self.world = max(self.world, rank + 1)
            if host:
                self.rank_host.setdefault(rank, host)
            if "device" in f or r.who.device:
                self.rank_device.setdefault(rank, f.get("device") or r.who.device or "")
            busid = normal_busid(f.get("busid"))
            if busid:
                self.rank_busid.setdefault(rank, busid)
        pid = _int(f.get("pid")) or r.who.pid
        if pid is not None:
            if rank is not None:
                self.pid_rank[(host, pid)] = rank
            elif local is not None:
                self.pid_local[(node, pid)] = local
            else:
                said = self._pid_facts.setdefault((host, pid), {})
                for key in ("ip", "phy_device"):
                    if key in f:
                        said.setdefault(key, f[key])
        if rank is not None and "phy_device" in f:
            self.rank_phy.setdefault(rank, f["phy_device"])
        if "world_size" in f:
            self.world = max(self.world, int(f["world_size"]))
        if "global_ranks" in f:
            ranks = ranks_list(f["global_ranks"])
            locs = ranks_list(f.get("local_ranks", "")) or list(range(len(ranks)))
            for lo, gl in zip(locs, ranks, strict=False):
                seen.setdefault(node, set()).add(lo)
                votes[(node, lo, gl)] += 1
                if host:
                    self.rank_host.setdefault(gl, host)
        elif "node_rank" in f and ("local_ranks" in f or "nproc" in f):
            n = len(ranks_list(f["local_ranks"])) if "local_ranks" in f else int(f["nproc"])
            offsets[node] = int(f["node_rank"]) * n
        if int(f.get("nnodes", "1")) > 1 or int(f.get("node_rank", "0")) > 0:
            self.multi_node = True
        for h, ranks in host_ranks(f.get("host_ranks", "")).items():
            for lo, gl in enumerate(ranks):
                votes[(("host", short(h)), lo, gl)] += 1
                self.rank_host.setdefault(gl, short(h))
        if "task" in f and host:
            self.task_host.setdefault(int(f["task"]), host)
        if "ip" in f and host:
            self.ip_host.setdefault(f["ip"], host)
        if "ip" in f and rank is not None:
            self.rank_ip.setdefault(rank, f["ip"])

    # --- resolving ------------------------------------------------------------------

    def peer(self, address: str | None = None, rank: str | None = None) -> str | None:
        """The host at the other end of a link, as the logs name it: the host whose NCCL
        bootstrap address it is (else the address itself), or the remote rank's host."""
        if address:
            ip = _IPV4.search(address)
            if ip:
                return self.ip_host.get(ip.group(), ip.group())
            return short(address.split("<")[0].rsplit(":", 1)[0]) or None
        if rank is not None and rank.strip().isdigit():
            return self.rank_host.get(int(rank))
        return None

    def blamed(self, rank: int) -> Identity:
        """Who a line blames when it names `rank` (a culprit rule's reading:
        monitored_barrier's `Rank 5 failed to pass`): that rank with its host and device,
        as this model knows them. Here, not in the rules, so that the job model stays the
        one writer of who a line is about."""
        host = self.rank_host.get(rank)
        device = self.rank_device.get(rank) or None
        return Identity(rank, None, host, device)

    def located(self, location: str) -> int | None:
        """The rank HCCL names by its server address and device id (`Cluster Exception
        Location[IP/ID]:[10.0.0.2/3]`, `serverId[10.0.0.2], deviceId[3]` read as
        "10.0.0.2/3"): the one rank the logs put on that device of that server."""
        address, _, device = location.strip().rpartition("/")
        if not address or not device.isdigit():
            return None
        host = self.ip_host.get(address)
        ranks = set(self.rank_device) | set(self.rank_phy)
        on = [
            r
            for r in sorted(ranks)
            # HCCL names the physical NPU; a process knows its logical id, the same one
            # unless a container maps only some NPUs
            if self.rank_phy.get(r, self.rank_device.get(r)) == device
            and (
                self.rank_ip.get(r) == address
                or (host is not None and short(self.rank_host.get(r, "")) == short(host))
            )
        ]
        return on[0] if len(on) == 1 else None

    def _map(self, node: Node, local: int) -> int | None:
        m = self.local_map.get(node)
        if m and local in m:
            return m[local]
        if node[0] == "task" and node[1].isdigit() and int(node[1]) in self.task_host:
            # srun's task T ran on HOST (srun: error: HOST: task T): that node's map
            host = ("host", short(self.task_host[int(node[1])]))
            if host != node:
                return self._map(host, local)
        return local if self.single_node else None

    def record_at(self, file_index: int, line: int, who: Who) -> Record | None:
        """The block record a line sits in or beside (a failure table's exitcode line),
        written through the same channel (a merged console interleaves several)."""
        records = self._blocks.get(file_index)
        if not records:
            return None
        before, after = _RECORD_REACH
        k = bisect.bisect_right(self._starts[file_index], line + before)
        near = [
            r
            for r in records[max(0, k - 2) : k]
            if r.first - (0 if "first_failure" in r.fields else before) <= line <= r.last + after
            and r.who.slot == who.slot
        ]
        # the nearest: a table's `traceback :` line ends the entry above it, its `[3]:`
        # and `time :` lines open the entry below (a tie goes to the entry above); a
        # first failure's record begins at its header
        return min(near, key=lambda r: max(r.first - line, line - r.last, 0), default=None)

    def first_failure(self, file_index: int, line: int) -> Record | None:
        """The first observed failure of the failure report a line belongs to
        (torchelastic's `Root Cause (first observed failure)` record): the launcher's own
        word on which worker failed first. The report runs from the line through its
        records, each within a few lines of the one before, to that record."""
        records = self._blocks.get(file_index, ())
        k = bisect.bisect_right(self._starts.get(file_index, ()), line)
        if k > 0 and records[k - 1].last >= line:
            k -= 1  # the line sits inside a record
        pos = line
        for r in records[k:]:
            if r.first - pos > _BLOCK_GAP:
                return None
            if "first_failure" in r.fields:
                return r if "rank" in r.fields else None
            pos = r.last
        return None

    def _rank(self, file_index: int, who: Who, rec: Record | None) -> tuple[int | None, int | None]:
        """Rules 1 to 4 of `identity`: the rank from the line, its record, file and path."""
        rank, local = _global(who), _local(who)
        if rank is None and rec is not None and "rank" in rec.fields:
            rank, local = int(rec.fields["rank"]), _int(rec.fields.get("local_rank"))
        if rank is None and local is not None:
            rank = self._map(self.node(file_index, who), local)
        # a launcher's channel whose lines name one rank, unless the channel is a node's
        # (srun's task of a node that may run several ranks: the one rank its lines
        # happen to name is not every line's)
        node_channel = who.task is not None and self.tasks_are_nodes
        if rank is None and not node_channel:
            rank = self._channel_rank.get((file_index, who.slot))
        if rank is None and (who.path_local is not None or who.path_rank is not None):
            rank = self._file_rank.get(file_index)  # a per-rank file: its lines say which
        if rank is None and who.path_local is not None:
            local = who.path_local
            rank = self._map(self.scope(file_index), local)
        if rank is None:
            rank = who.path_rank
        return rank, local

    def identity(self, file_index: int, who: Who, line: int | None = None) -> Identity:
        """Who logged a line of `file_index` that claims `who`. The rules, in order:

        rank:  1. a global rank the line's prefix or message names ([rank3]:, [rank 3],
                  RankID:3), or the failure-table record it stands in (`rank: 13
                  (local_rank: 5)` above an `exitcode` line);
               2. a local rank it names (torchrun's [default5]:, `local_rank: 5`) mapped
                  through its node's local -> global map (a failure table, the agent's
                  global_ranks, a line that names both, a node's constant offset,
                  group_rank x nproc); a local rank is global only in a one-node job;
               3. in a launcher's channel (`worker-1: `, `[default3]:`), or a per-rank
                  file (by its path), the one global rank its lines name;
               4. its path: attempt_0/5/ (local, mapped as in 2), rank_5.log;
               5. the pid it names (Killed process 4321, Xid pid=4321, exitcode pid)
                  whose rank another line tells (NCCL header and comm line, the table);
               6. the PCI bus id it names (an Xid) of the device NCCL gave a rank on
                  that host, or the device id (a driver's dev_id=3, CANN's device-3/
                  folder, NCCL's [3]) of the one rank on that device of that host, or
                  of no rank yet: the device plus the offset at which two or more
                  other devices of that host have their ranks;
               7. an srun task, taken as the rank when tasks are not nodes.
        host:  the line's own (pdsh prefix, syslog field, NCCL header), its record's,
               its file's, the rank's (failure table, NCCL, DeepSpeed's rank mapping),
               the task's (srun: error: HOST: task N).
        device: the line's own (NCCL [DEV], torch_npu Device:), the rank's (NCCL comm
               line), its path's (device-3/); the PCI bus id likewise.
        """
        rec = self.record_at(file_index, line, who) if line is not None else None
        key = (file_index, who)
        if rec is None and key in self._cache:
            return self._cache[key]
        rank, local = self._rank(file_index, who, rec)
        node = self.node(file_index, who)
        host = who.host or (rec.fields.get("host") if rec is not None else None)
        host = host or self.file_host.get(file_index)
        if rank is None and who.pid is not None:
            rank = self.pid_rank.get((host, who.pid))
            if rank is None and host is None:
                rank = self._pid_only.get(who.pid)
            loc = self.pid_local.get((node, who.pid))
            if rank is None and loc is not None:
                local, rank = loc, self._map(node, loc)
        if rank is None and who.busid is not None:
            rank = self._busid_rank.get((short(host) if host else None, who.busid))
        device = who.device or who.path_device
        if rank is None and host and device:
            rank = self._device_rank.get((short(host), device))
            offset = self._device_offset.get(short(host))
            if rank is None and offset is not None and device.isdigit():
                rank = int(device) + offset
        if rank is None and who.task is not None and not self.tasks_are_nodes:
            rank = who.task
        if host is None and rank is not None:
            host = self.rank_host.get(rank)
        if host is None and who.task is not None:
            host = self.task_host.get(who.task)
        device = device or (self.rank_device.get(rank) if rank is not None else None)
        busid = who.busid or (self.rank_busid.get(rank) if rank is not None else None)
        ident = Identity(rank, local, host, device, busid)
        if rec is None:
            self._cache[key] = ident
        return ident

    def line_identity(self, name: str, line: int, text: str, formats: Formats | None) -> Identity:
        """Who logged a line the scan kept as text only (an error line the classifier or
        the caller's `failed` cites): its prefixes, claims and path, resolved as a hit's."""
        index = next((i for i, n in self.names.items() if n == name), None)
        if index is None:
            return Identity(None, None, None, None, None)
        f = formats or builtin_formats()
        message, prefix = f.strip(text)
        return self.identity(index, who_of(prefix, f.claims_of(message), path_who(name, f)), line)


def placed(hit: Hit, rank: int | None, host: str | None = None) -> Identity:
    """Who `hit` is about when it names no process itself and echoes a line of `rank`
    (and `host`): a culprit rule's reading of slurmstepd's OOM event and the one rank's
    SIGKILL, of a kernel Xid and the CUDA error of the rank on that node. The line's own
    device stays its own."""
    own = hit.identity or Identity(None, None, None, None)
    return Identity(rank, own.local_rank, host or hit.host, own.device, own.busid)
