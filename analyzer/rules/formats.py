"""Line formats as data: the prefixes, claims and facts that say who logged a line, and
the timestamps that say when.

`patterns/formats/formats.yaml` (and a `formats.yaml` in any --patterns folder) lists them with
real examples; this module validates and compiles them, and runs their examples (the
suite and `ha-analyze patterns test` do). A new launcher or collector layout is a YAML
entry, not an engine edit. The job model (analyzer.job.model) is their one consumer.

Prefixes and claims run with Python's `re` on lines a signature already matched (a few
thousand in a large job) and are anchored or short; facts are found by the scan's
automaton, so their regexes keep to the subset RE2 and Hyperscan share.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from ..types import LogTime, PatternError
from . import cache
from .lint import backtracks, check_regex
from .yamlfile import YamlError, builtin_dir, load_bytes, rule_files

FIELDS = frozenset(
    {
        "rank",
        "local_rank",
        "task",
        "node_rank",
        "nnodes",
        "nproc",
        "world_size",
        "host",
        "pid",
        "device",
        "phy_device",
        "busid",
        "ip",
        "local_ranks",
        "global_ranks",
        "host_ranks",
        "first_failure",
        "exitcode",
    }
)
# the groups a timestamp form may name (patterns/formats/formats.yaml, `timestamps:`);
# `sep` only ties a date's two separators together
TIME_FIELDS = frozenset({"Y", "M", "D", "Mon", "h", "m", "s", "f", "ms", "us", "z", "up", "ep"})
_TIME_HELPERS = frozenset({"sep"})
_MONTHS = {m: i for i, m in enumerate(calendar.month_abbr) if m}
# the fields a path shape may name (`paths:`): who wrote a file, by its path
PATH_FIELDS = frozenset(
    {"rank", "local_rank", "device", "attempt", "system", "host", "host_like", "host_before"}
)
_KINDS = ("prefixes", "claims", "facts", "timestamps", "paths", "system", "data")
_ENTRY_KEYS = frozenset({"id", "what", "regex", "block", "literals", "examples", "negatives"})
# How far into a step line a rank claim is looked for (bytes): they come first.
_CLAIM_WINDOW = 160
_GROUP = re.compile(r"\(\?P<(\w+)>")
_MAX_STACK = 4  # prefixes in front of each other: kubectl stamp, srun label, tee, rank


@dataclass(frozen=True)
class Format:
    """One validated entry of a formats file. Its regex is compiled when first used: a
    job asks for a few of the ~70 (a claim, a fact, the alternations of all prefixes and
    timestamps), and compiling them all cost ~35 ms of every start."""

    id: str
    kind: str  # one of _KINDS
    regex: str
    block: str | None
    literals: tuple[str, ...]  # one of them is in every line it matches: a cheap precheck
    examples: tuple[dict[str, Any], ...]
    negatives: tuple[str, ...]
    source: str

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.regex)

    @cached_property
    def groups(self) -> tuple[str, ...]:
        """The regex's named groups, read from its text (checked against the compiled
        regex when the entry is validated)."""
        return tuple(dict.fromkeys(_GROUP.findall(self.regex)))


Fields = dict[str, str]


@dataclass(frozen=True)
class Formats:
    """Every loaded format, built-ins first."""

    prefixes: tuple[Format, ...]
    claims: tuple[Format, ...]
    facts: tuple[Format, ...]
    timestamps: tuple[Format, ...] = ()
    paths: tuple[Format, ...] = ()
    system: tuple[Format, ...] = ()
    data: tuple[Format, ...] = ()

    @cached_property
    def _system(self) -> re.Pattern[str] | None:
        return _either(self.system)

    @cached_property
    def _data(self) -> re.Pattern[str] | None:
        return _either(self.data)

    def system_line(self, message: str) -> bool:
        """Whether a line has the layout of the kernel's or the system's own log (dmesg,
        kern.log, syslog, the journal): the only place a kernel message is an event."""
        rx = self._system
        return rx is not None and rx.match(message) is not None

    def data_line(self, message: str) -> bool:
        """Whether a line prints data (a run summary's key and value): what it holds is
        never an event, whatever it looks like."""
        rx = self._data
        return rx is not None and rx.match(message) is not None

    def path_spans(self, path: str) -> tuple[tuple[int, str, str], ...]:
        """Where the path shapes find their fields in a path: (start, field, value),
        outermost first, every shape's every match (a folder may be two shapes).
        Memoised: a path is asked per hit by the readiness rules."""
        memo = self._path_memo
        found = memo.get(path)
        if found is not None:
            return found
        spans = []
        for shape in self.paths:
            for m in shape.compiled.finditer(path):
                spans += [(m.start(k), k, v) for k, v in m.groupdict().items() if v is not None]
        found = tuple(sorted(spans))
        if len(memo) >= _PATH_MEMO:
            memo.clear()
        memo[path] = found
        return found

    def system_file(self, path: str) -> bool:
        """Whether a file is the kernel's or the system's log by its name (`paths:`)."""
        return bool(self.path_fields(path).get("system"))

    @cached_property
    def _alternation(self) -> tuple[str, dict[str, str]] | None:
        """Every prefix in one alternation (tried in order, as listed), its groups named
        `p<i>_<field>`: one match per stacked prefix, not one per format."""
        if not self.prefixes:
            return None
        parts, fields = [], {}
        for i, p in enumerate(self.prefixes):
            rx = p.regex
            for name in p.groups:
                rx = rx.replace(f"(?P<{name}>", f"(?P<p{i}_{name}>")
                fields[f"p{i}_{name}"] = name
            parts.append(f"(?:{rx})")
        return "|".join(parts), fields

    @cached_property
    def _prefix(self) -> tuple[re.Pattern[str], dict[str, str]] | None:
        alt = self._alternation
        return None if alt is None else (re.compile(alt[0]), alt[1])

    @cached_property
    def _prefix_bytes(self) -> re.Pattern[bytes] | None:
        alt = self._alternation
        return None if alt is None else re.compile(alt[0].encode())

    @cached_property
    def _rank_claims_bytes(self) -> re.Pattern[bytes] | None:
        """The claims that name a global rank in the message (`[rank 5]`, `RankID:5`), as
        one alternation on bytes whose only groups are those ranks."""
        parts = []
        for c in self.claims:
            if "rank" not in c.groups:
                continue
            rx = c.regex
            for name in c.groups:
                rx = rx.replace(f"(?P<{name}>", "(" if name == "rank" else "(?:")
            parts.append(f"(?:{rx})")
        return re.compile("|".join(parts).encode()) if parts else None

    @cached_property
    def _stamps(self) -> tuple[re.Pattern[str], dict[int, tuple[int, dict[str, int]]]] | None:
        """Every timestamp form in one alternation, in order, each wrapped in a group
        `t<i>` and its groups named `t<i>_<field>`; which form matched is the last group
        closed (`lastindex`), mapped to the form's index and its fields' group numbers
        (looked up by number: this runs per timed line)."""
        if not self.timestamps:
            return None
        parts = []
        for i, ts in enumerate(self.timestamps):
            rx = ts.regex
            for name in ts.groups:
                rx = rx.replace(f"(?P<{name}>", f"(?P<t{i}_{name}>")
                rx = rx.replace(f"(?P={name})", f"(?P=t{i}_{name})")
            parts.append(f"(?P<t{i}>{rx})")
        compiled = re.compile("|".join(parts))
        groups = compiled.groupindex
        forms = {}
        for i, ts in enumerate(self.timestamps):
            fields = {n: groups[f"t{i}_{n}"] for n in ts.groups if n in TIME_FIELDS}
            forms[groups[f"t{i}"]] = (i, fields)
        return compiled, forms

    def stamp(self, text: str) -> tuple[int, dict[str, str]] | None:
        """The first timestamp of a line's header: its form's index and fields."""
        compiled = self._stamps
        if compiled is None:
            return None
        rx, forms = compiled
        m = _stamp(rx, text)
        if m is None or m.lastindex is None:
            return None
        i, fields = forms[m.lastindex]
        return i, {n: v for n, k in fields.items() if (v := m.group(k)) is not None}

    def time(self, text: str, year: int) -> LogTime | None:
        """The time a line's header states; `year` for forms that carry none (the job's,
        from the first full date in its files: mixed forms then order correctly)."""
        found = self.stamp(text)
        return None if found is None else _log_time(found[1], year)

    def year(self, text: str) -> int | None:
        """The year of a full-date timestamp in the line (to anchor year-less forms)."""
        found = self.stamp(text)
        return None if found is None or "Y" not in found[1] else int(found[1]["Y"])

    @cached_property
    def _path_memo(self) -> dict[str, tuple[tuple[int, str, str], ...]]:
        return {}

    def path_fields(self, path: str) -> dict[str, tuple[str, ...]]:
        """What a path says of who wrote its file: per field, every value its shapes
        find, outermost first (`attempt` uses them all; the other fields their last,
        the innermost)."""
        found: dict[str, tuple[str, ...]] = {}
        for _, k, v in self.path_spans(path):
            found[k] = (*found.get(k, ()), v)
        return found

    def key(self, block: bytes, start: int) -> bytes:
        """What the prefixes at `start` of a block name, and the global rank the message
        claims (`[rank 5] step 812`), as bytes (b"" if nothing): the key by which a merged
        console's step lines are sampled per process (automaton.Sampler). Matched on the
        bytes, not decoded: it runs per step line."""
        out = []
        pos = start
        rx = self._prefix_bytes
        if rx is not None and rx.match(block, start) is not None:
            for _ in range(_MAX_STACK):
                m = rx.match(block, pos)
                if m is None or m.end() == pos:
                    break
                out += [v for v in m.groups() if v is not None]
                pos = m.end()
        claims = self._rank_claims_bytes
        if claims is not None:
            nl = block.find(b"\n", pos)
            end = min(len(block) if nl < 0 else nl, pos + _CLAIM_WINDOW)
            # every rank claim says rank, Rank or RANK: most step lines stop here
            if block.find(b"ank", pos, end) >= 0 or block.find(b"ANK", pos, end) >= 0:
                m = claims.search(block, pos, end)
                if m is not None:
                    out += [b"r" + v for v in m.groups() if v is not None]
        return b"/".join(out)

    def strip(self, text: str) -> tuple[str, Fields]:
        """Remove the prefixes at the start of `text` (stacked, up to four); return the
        rest and what they name. A field named twice keeps its first (outermost) value,
        but a rank its innermost: the process's own `[rank2]:` is its global rank, while
        an outer one is what a launcher added (torchrun `--role rank` prints the local
        rank as `[rank0]:`); a host is the collector's, outermost."""
        found: Fields = {}
        if self._prefix is None:
            return text, found
        rx, fields = self._prefix
        for _ in range(_MAX_STACK):
            m = rx.match(text)
            if m is None or m.end() == 0:
                break
            for k, v in m.groupdict().items():
                if v is not None and (fields[k] == "rank" or fields[k] not in found):
                    found[fields[k]] = v
            text = text[m.end() :]
        return text, found

    def claims_of(self, text: str) -> Fields:
        """What a line says of who logged it, searched in the message (first wins)."""
        found: Fields = {}
        for c in self.claims:
            if c.literals and not any(lit in text for lit in c.literals):
                continue
            m = c.compiled.search(text)
            if m:
                for k, v in m.groupdict().items():
                    if v is not None:
                        found.setdefault(k, v)
        return found

    def fact(self, index: int, text: str) -> Fields | None:
        """The fields of fact `index` in a line (its message), None if it does not match."""
        m = self.facts[index].compiled.search(text)
        if m is None:
            return None
        return {k: v for k, v in m.groupdict().items() if v is not None}


def _either(formats: tuple[Format, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{f.regex})" for f in formats)) if formats else None


def _entry(raw: Any, kind: str, where: str, trusted: bool) -> Format:
    if not isinstance(raw, dict):
        raise PatternError(f"{where}: each entry is a mapping")
    fid = raw.get("id")
    if not isinstance(fid, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", fid):
        raise PatternError(f"{where}: id: a lower-case id is required, got {fid!r}")
    here = f"{where}: {fid}"
    unknown = sorted(set(raw) - _ENTRY_KEYS)
    if unknown:
        raise PatternError(f"{here}: unknown key(s) {', '.join(unknown)}")
    rx = raw.get("regex")
    if not isinstance(rx, str) or not rx:
        raise PatternError(f"{here}: regex: a regular expression is required")
    try:
        compiled = re.compile(rx)
    except re.error as e:
        raise PatternError(f"{here}: regex: {e}") from None
    known = (
        TIME_FIELDS | _TIME_HELPERS
        if kind == "timestamps"
        else PATH_FIELDS
        if kind == "paths"
        else FIELDS
    )
    bad = sorted(set(compiled.groupindex) - known)
    if bad:
        raise PatternError(
            f"{here}: regex: unknown field(s) {', '.join(bad)} (known: {', '.join(sorted(known))})"
        )
    if kind == "timestamps":
        _check_clock(set(compiled.groupindex), here)

    if kind == "facts" and not trusted:  # the automaton finds them: the engines' subset
        # (the built-in ones are checked by the suite, not at every start-up: ~11 ms)
        check_regex(rx, lambda _field, msg: PatternError(f"{here}: regex: {msg}"))
    elif not trusted and backtracks(rx):
        # a user's prefixes and claims run on hit lines with Python's re: a shape that
        # can backtrack is refused (the built-in ones are reviewed)
        raise PatternError(f"{here}: regex: nested quantifiers can backtrack catastrophically")
    examples = raw.get("examples") or []
    if not isinstance(examples, list) or not examples:
        raise PatternError(f"{here}: examples: at least one real example line is required")
    sample = "path" if kind == "paths" else "line"
    for ex in examples:
        if not isinstance(ex, dict) or not isinstance(ex.get(sample), str):
            raise PatternError(f"{here}: examples: each is {{{sample}: ..., fields: {{...}}}}")
        if kind == "timestamps" and not isinstance(ex.get("time"), str):
            raise PatternError(f"{here}: examples: each is {{line: ..., time: ISO or +seconds}}")
    negatives = raw.get("negatives") or []
    if not isinstance(negatives, list) or not all(isinstance(n, str) for n in negatives):
        raise PatternError(f"{here}: negatives: a list of lines")
    block = raw.get("block")
    if block is not None and (kind != "facts" or not isinstance(block, str)):
        raise PatternError(f"{here}: block: only facts have a block name")
    literals = raw.get("literals") or []
    if not isinstance(literals, list) or not all(isinstance(x, str) and x for x in literals):
        raise PatternError(f"{here}: literals: a list of non-empty strings")
    for ex in examples:
        if literals and ex.get("fields") and not any(x in ex[sample] for x in literals):
            raise PatternError(f"{here}: literals: none is in the example {ex['line']!r}")
    source = where.split(":")[0]
    entry = Format(fid, kind, rx, block, tuple(literals), tuple(examples), tuple(negatives), source)
    if set(entry.groups) != set(compiled.groupindex):
        raise PatternError(f"{here}: regex: name each group as (?P<name>...), once")
    return entry


def _load_file(path: Path) -> dict[str, list[Format]]:
    """A validated formats file, from the cache when its bytes were validated before
    (reading the YAML and checking ~70 entries costs ~40 ms of every start)."""
    return cache.validated(
        "formats",
        path,
        ("rules/formats.py", "rules/lint.py", "rules/yamlfile.py"),
        lambda raw: _validate_file(path, raw),
        lambda out: {k: [asdict(e) for e in entries] for k, entries in out.items()},
        lambda doc: {k: [_format_from(d) for d in entries] for k, entries in doc.items()},
    )


def _format_from(d: dict[str, Any]) -> Format:
    return Format(
        d["id"],
        d["kind"],
        d["regex"],
        d["block"],
        tuple(d["literals"]),
        tuple(d["examples"]),
        tuple(d["negatives"]),
        d["source"],
    )


def _validate_file(path: Path, raw: bytes) -> dict[str, list[Format]]:
    try:
        doc = load_bytes(raw, str(path)) or {}
    except YamlError as e:
        raise PatternError(str(e)) from None
    if not isinstance(doc, dict) or set(doc) - set(_KINDS):
        raise PatternError(f"{path}: a formats file has the keys {', '.join(_KINDS)} only")
    out: dict[str, list[Format]] = {k: [] for k in _KINDS}
    for kind in _KINDS:
        entries = doc.get(kind) or []
        if not isinstance(entries, list):
            raise PatternError(f"{path}: {kind}: a list of entries")
        trusted = path.parent.resolve() == builtin_dir() / "formats"
        out[kind] = [_entry(raw, kind, f"{path}: {kind}", trusted) for raw in entries]
    return out


def format_files(builtin: bool, extra: Iterable[str]) -> tuple[Path, ...]:
    """The built-in formats files, then each extra folder's (analyzer.rules.yamlfile)."""
    return rule_files("formats", builtin, extra)


@lru_cache(maxsize=8)
def load(files: tuple[Path, ...]) -> Formats:
    """The formats of these files, in order; an id defined twice is an error."""
    merged: dict[str, list[Format]] = {k: [] for k in _KINDS}
    seen: dict[str, Path] = {}
    for f in files:
        for kind, entries in _load_file(f).items():
            for e in entries:
                if e.id in seen:
                    raise PatternError(f"{f}: {e.id}: id: already defined in {seen[e.id]}")
                seen[e.id] = f
                merged[kind].append(e)
    return Formats(
        tuple(merged["prefixes"]),
        tuple(merged["claims"]),
        tuple(merged["facts"]),
        tuple(merged["timestamps"]),
        tuple(merged["paths"]),
        tuple(merged["system"]),
        tuple(merged["data"]),
    )


@lru_cache(maxsize=1)
def builtin() -> Formats:
    """The built-in formats: asked per hit line where no job's formats are at hand."""
    return load(format_files(True, ()))


def run_examples(formats: Formats) -> tuple[int, list[str]]:
    """Check every example and negative; (checked, failures as sentences)."""
    failures: list[str] = []
    checked = 0
    for fmt in formats.timestamps:
        i = formats.timestamps.index(fmt)
        for ex in fmt.examples:
            checked += 1
            found = formats.stamp(ex["line"])
            when = _log_time(found[1], _EXAMPLE_YEAR) if found and found[0] == i else None
            said = None if when is None else shown_time(when)
            if said != ex["time"]:
                failures.append(f"{fmt.id}: {ex['line']!r}: time {said}, expected {ex['time']}")
        for neg in fmt.negatives:
            checked += 1
            found = formats.stamp(neg)
            if found is not None and found[0] == i and _log_time(found[1], _EXAMPLE_YEAR):
                failures.append(f"{fmt.id}: {neg!r}: gives a time but should not")
    for fmt in formats.paths:
        for ex in fmt.examples:
            checked += 1
            says = {k: ",".join(v) for k, v in formats.path_fields(ex["path"]).items()}
            want = {k: str(v) for k, v in (ex.get("fields") or {}).items()}
            if says != want:
                failures.append(f"{fmt.id}: {ex['path']!r}: fields {says}, expected {want}")
        for neg in fmt.negatives:
            checked += 1
            if fmt.compiled.search(neg):
                failures.append(f"{fmt.id}: {neg!r}: matches but should not")
    for fmt in (*formats.system, *formats.data):
        reads = formats.system_line if fmt.kind == "system" else formats.data_line
        for ex in fmt.examples:
            checked += 1
            if not reads(ex["line"]):
                failures.append(f"{fmt.id}: {ex['line']!r}: not read as a {fmt.kind} line")
        for neg in fmt.negatives:
            checked += 1
            if fmt.compiled.match(neg):
                failures.append(f"{fmt.id}: {neg!r}: matches but should not")
    for fmt in (*formats.prefixes, *formats.claims, *formats.facts):
        for ex in fmt.examples:
            checked += 1
            line, want = ex["line"], {k: str(v) for k, v in (ex.get("fields") or {}).items()}
            rest, got = formats.strip(line)
            own: Fields | None
            if fmt.kind == "prefixes":
                own = fmt.compiled.match(line) and got
                if "rest" in ex and rest != ex["rest"]:
                    failures.append(f"{fmt.id}: {line!r}: rest {rest!r}, expected {ex['rest']!r}")
            elif fmt.kind == "claims":
                own = formats.claims_of(rest) if fmt.compiled.search(rest) else None
            else:
                facts = formats.facts.index(fmt)
                fact = formats.fact(facts, rest)
                own = None if fact is None else {**formats.claims_of(rest), **got, **fact}
            if not own and want:
                failures.append(f"{fmt.id}: {line!r}: does not match")
            elif own is not None and {k: own.get(k) for k in want} != want:
                failures.append(f"{fmt.id}: {line!r}: fields {own}, expected {want}")
        for neg in fmt.negatives:
            checked += 1
            hit = fmt.compiled.match(neg) if fmt.kind == "prefixes" else fmt.compiled.search(neg)
            if hit:
                failures.append(f"{fmt.id}: {neg!r}: matches but should not")
    return checked, failures


def ranks_list(text: str) -> list[int]:
    """ "[0, 1, 2]" -> [0, 1, 2]."""
    return [int(x) for x in re.findall(r"\d+", text)]


def host_ranks(text: str) -> dict[str, list[int]]:
    """ "{'worker-0': [0, 1], 'worker-1': [2, 3]}" -> {'worker-0': [0, 1], ...}."""
    return {
        host: ranks_list(ranks)
        for host, ranks in re.findall(r"['\"]([\w.-]+)['\"]\s*:\s*(\[[\d,\s]*\])", text)
    }


# paths remembered per Formats (each is asked per hit by the readiness rules)
_PATH_MEMO = 65536
# The year a year-less example is read in (patterns test, the suite)
_EXAMPLE_YEAR = 2026
# Only the first part of a line is searched: timestamps sit in the header.
_TS_WINDOW = 160
# Every form but those anchored at the line start has a clock after a `T`, a space or a
# dash, and its date (and a level word: vLLM's `CRITICAL 01-09 `) stands at most _LEAD
# characters before it (patterns/formats/formats.yaml says so to users). The alternation costs
# ~20 us on a line without a timestamp (it is tried at every position); finding the
# clock first and searching only around it costs ~1 us, and step lines, rank-prefixed
# lines and tqdm bars (`[00:01<298:41:58`) carry no time.
_CLOCK = re.compile(r"(?<![\d:])\d\d:\d\d:\d\d")
_LEAD = 28
_TRAIL = 32  # a match ends at most 24 characters after its clock starts (fraction, zone)


def _stamp(rx: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first timestamp of the header: what `rx.search(text, 0, _TS_WINDOW)` finds."""
    m = rx.match(text, 0, _TS_WINDOW)
    if m is not None:
        return m
    for clock in _CLOCK.finditer(text, 0, _TS_WINDOW):
        c = clock.start()
        if c > 1 and text[c - 1] in "T -":
            m = rx.search(text, max(1, c - _LEAD), min(_TS_WINDOW, c + _TRAIL))
            if m is not None:
                return m
    return None


def _check_clock(groups: set[str], here: str) -> None:
    """A timestamp form names a wall-clock time (a day, a month, an hour, minute and
    second), seconds since boot (`up`), or seconds since the epoch (`ep`)."""
    if groups & {"up", "ep"}:
        return
    if not {"D", "h", "m", "s"} <= groups or not groups & {"M", "Mon"}:
        raise PatternError(
            f"{here}: regex: a timestamp names D, M (or Mon), h, m and s; or up; or ep"
        )


def _frac(digits: str | None) -> float:
    return int(digits) / 10 ** len(digits) if digits else 0.0


def _log_time(g: dict[str, str], year: int) -> LogTime | None:
    """The fields of a timestamp form as a time (None: not a date, such as 31 February)."""
    if "up" in g:
        return LogTime(float(g["up"]), absolute=False)
    if "ep" in g:
        return LogTime(int(g["ep"]) + _frac(g.get("f")), True, True)
    month = int(g["M"]) if "M" in g else _MONTHS.get(g.get("Mon", ""))
    if month is None:
        return None
    frac = _frac(g.get("f")) or int(g.get("ms") or 0) / 1e3 + int(g.get("us") or 0) / 1e6
    try:
        dt = datetime(
            int(g["Y"]) if "Y" in g else year,
            month,
            int(g["D"]),
            int(g["h"]),
            int(g["m"]),
            int(g["s"]),
            tzinfo=timezone.utc,
        )
    except ValueError:
        return None
    zone = g.get("z")
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        dt -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return LogTime(dt.timestamp() + frac, True, zone is not None, "Y" not in g)


def shown_time(t: LogTime) -> str:
    """A time as an example states it: ISO as the verdict shows it, `+S` for an uptime."""
    return t.iso() or f"+{t.epoch:.6f}"
