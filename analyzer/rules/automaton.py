"""Multi-pattern automata that find candidate lines in whole blocks of bytes.

Running Python regexes over every line is 150-300x slower than grep; a multi-pattern
automaton over ~1 MiB blocks is not (see issue 2 / issue 8 measurements). The automaton
is only a prefilter: it must never miss a line that the exact per-line check would
accept, and it may report extra lines, which the exact check then drops. To stay a
superset it scans "relaxed" regexes: named groups made plain and ^/$ anchors removed
(they refer to the message after the rank prefix, which the automaton cannot see).

Two backends, both linear-time: Hyperscan (x86_64/aarch64 wheels; about four times as
fast on the scan itself; the default for a pattern set it passes, see available_engines)
and RE2 (portable; the fallback).

Some patterns match a large share of all lines: training-step lines are often a third
of a log. Reporting each of those lines costs a Python call per line and caps the scan
at ~40 MB/s, yet a timeline needs only the first and last steps of each block (clock
alignment, step time, where a rank stopped). Such patterns are given as sampled groups:
`Sampler` finds a group's first HEAD and last TAIL lines of a block and nothing in
between, on every backend alike.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from . import cache

_SOURCE = Path(__file__).read_bytes()

# (line start offset in block, line end offset, signature indices)
LineHit = tuple[int, int, tuple[int, ...]]


class Automaton(Protocol):
    name: str

    def scan(self, block: bytes) -> list[LineHit]:
        """Candidate lines of `block`, in order, each with the signatures that may match."""
        ...


# Counted repeats above this become unbounded in the automaton: still a superset, and
# Hyperscan compiles large bounded repeats 6x slower (RE2 refuses counts above 1000).
_MAX_REPEAT = 16
_WIDE_ESCAPES = ("\\S", "\\W", "\\D")
# Python's \s without the newline: a class that could match one would let a trailing
# `\s*$` run on to the next line in a block scan, and the candidate land there
_SPACE = "\\t\\x0b\\x0c\\r\\x1c-\\x1f "
_NO_NEWLINE = {"\\s": f"[{_SPACE}]", "\\W": "[^\\w\\n]", "\\D": "[^\\d\\n]"}
_CLASS_SPACE = re.compile(r"(?<!\\)((?:\\\\)*)\\s")
_QUANT = re.compile(r"\*\??|\+\??|\?\??|\{(\d*)(,?)(\d*)\}\??")


def _byte_escape(ch: str, encoding: str) -> str:
    return "".join(f"\\x{b:02x}" for b in ch.encode(encoding))


def relax(rx: str, encoding: str = "utf-8") -> tuple[str, bool]:
    """Turn a signature regex into the automaton's superset form, over bytes.

    Named groups become plain groups, ^/$ anchors go (they refer to the message after
    the rank prefix). The automaton matches bytes while the exact check matches
    characters, so non-ASCII literals become byte escapes in `encoding`, and an atom
    that may match one non-ASCII character (`.`, `[^,]`, `\\S`, ...) may match up to four
    bytes: its count is widened. Returns the pattern and whether it is case-insensitive.
    """
    caseless = rx.startswith("(?i)")
    if caseless:
        rx = rx[4:]
    out: list[str] = []
    i, n = 0, len(rx)
    while i < n:
        c = rx[i]
        wide = False
        if c == "\\" and i + 1 < n:
            atom = rx[i : i + 2]
            wide = atom in _WIDE_ESCAPES
            # never across a line (below): the exact check sees one line, no newline
            atom = _NO_NEWLINE.get(atom, atom)
            i += 2
        elif c == "[":
            j = i + 1
            if j < n and rx[j] == "^":
                j += 1
            if j < n and rx[j] == "]":
                j += 1
            while j < n and rx[j] != "]":
                j += 2 if rx[j] == "\\" else 1
            body = rx[i : j + 1]
            i = j + 1
            if body.startswith("[^"):
                # never across a line: the sampled groups search whole blocks, and a
                # match that starts on one line and ends on the next names neither
                atom, wide = body[:-1] + "\\n]", True
            elif any(ord(ch) > 127 for ch in body):
                atom, wide = "[\\x00-\\xff]", True
            else:
                atom = _CLASS_SPACE.sub(lambda m: m.group(1) + _SPACE, body)
        elif c in "^$":
            i += 1
            continue
        elif rx.startswith("(?P<", i):
            out.append("(?:")
            i = rx.index(">", i) + 1
            continue
        elif c == ".":
            atom, wide = c, True
            i += 1
        elif ord(c) > 127:
            atom = "(?:" + _byte_escape(c, encoding) + ")"
            i += 1
        else:
            atom = c
            i += 1
        out.append(atom)
        if not wide:
            m = _QUANT.match(rx, i)
            big = m is not None and int(m.group(3) or m.group(1) or 0) > _MAX_REPEAT
            if m and big and m.group(0).startswith("{"):
                out.append(f"{{{m.group(1) or 0},}}")
                i += len(m.group(0))
        if wide:
            m = _QUANT.match(rx, i)
            q = m.group(0) if m else ""
            i += len(q)
            lazy = "?" if (len(q) > 1 and q.endswith("?") and q[0] != "?") or q == "??" else ""
            if not q:
                out.append("{1,4}")
            elif q[0] in "*+":
                out.append(q)
            elif q[0] == "?":
                out.append("{0,4}" + lazy)
            else:
                assert m is not None
                lo, comma, hi = m.group(1), m.group(2), m.group(3)
                top = int(hi if comma else lo) * 4 if (hi or not comma) else 0
                if not top or top > _MAX_REPEAT:
                    out.append(f"{{{lo or 0},}}{lazy}")
                else:
                    out.append(f"{{{lo or 0},{top}}}{lazy}")
    return "".join(out), caseless


def variants(rx: str) -> list[tuple[str, bool]]:
    """The relaxed forms to scan for: UTF-8, plus GB18030 when the regex is not ASCII."""
    forms = [relax(rx)]
    if any(ord(ch) > 127 for ch in rx):
        forms.append(relax(rx, "gb18030"))
    return forms


Forms = dict[str, list[tuple[str, bool]]]


def relaxed(regexes: Collection[str]) -> Forms:
    """`variants` of every regex, cached on disk with this module's source in the key.

    Relaxing the ~900 built-in regexes takes ~80 ms, a quarter of start-up, and its
    answer only changes when the regexes or this code do; a cached answer loads in ~1 ms.
    """
    wanted = sorted(set(regexes))
    name = f"relaxed-{cache.key(_SOURCE, json.dumps(wanted).encode())}.json"
    blob = cache.read(name)
    if blob is not None:
        try:
            got = json.loads(blob)
            return {rx: [(pat, bool(c)) for pat, c in got[rx]] for rx in wanted}
        except (ValueError, KeyError, TypeError):
            pass  # a damaged entry: rebuilt
    forms = {rx: variants(rx) for rx in wanted}
    cache.write(name, json.dumps(forms).encode())
    return forms


_HEAD, _TAIL = 32, 40  # lines of a sampled group found at the start and end of a block
_HEAD_PER_KEY, _TAIL_PER_KEY = 4, 3  # and of each key (see _Group)
_WINDOW = 4 << 10  # the smallest first tail window


def _re2_options() -> Any:
    import re2

    # Latin-1 mode: patterns and text are bytes, as for Hyperscan.
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.log_errors = False
    # The DFA cache: RE2's default 8 MiB thrashes on a set of ~800 patterns (240 MB/s);
    # 64 MiB runs it at ~380 MB/s.
    options.max_mem = 64 << 20
    return options


def _wrapped(pat: str, caseless: bool) -> bytes:
    return (f"(?i:{pat})" if caseless else f"(?:{pat})").encode("ascii")


# The lines of a block, from a line start on, that a sampled group matches, in order.
LineFinder = Callable[[bytes, int], Iterator[tuple[int, int]]]


def _re2_finder(patterns: Sequence[tuple[str, bool]], options: Any) -> LineFinder:
    import re2

    search = re2.compile(b"|".join(_wrapped(p, c) for p, c in patterns), options).search

    def lines_from(block: bytes, pos: int) -> Iterator[tuple[int, int]]:
        while (m := search(block, pos)) is not None:
            start, end = _line_bounds(block, m.start())
            yield start, end
            pos = end + 1

    return lines_from


def _scratch(local: threading.local, db: Any) -> Any:
    """This thread's Hyperscan scratch for `db` (a scratch serves one scan at a time)."""
    import hyperscan

    scratch = getattr(local, "scratch", None)
    if scratch is None:
        scratch = local.scratch = hyperscan.Scratch(db)
    return scratch


_FIRST_CHUNK = 16 << 10  # Hyperscan's first look at a block for a sampled group
_AGAIN = 8  # matches more on a line before a sampled group's scan stops (a restart: ~15 us)


def _hyperscan_finder(patterns: Sequence[tuple[str, bool]], owner: Sequence[int]) -> LineFinder:
    """Hyperscan over chunks of whole lines, growing 4x from 16 KiB: a head of 32 step
    lines costs a scan of those lines, not of the block. A line's tenth match stops the
    scan, which resumes on the next line: a tqdm line of 40 redraws costs ten callbacks,
    not 40 (a step line matches two or three times: stopping there would cost more).
    Hyperscan reports matches in the order of their ends, so no line before the stop is
    left unreported."""
    import hyperscan

    db = _hs_database(patterns, owner)
    local = threading.local()

    def lines_from(block: bytes, pos: int) -> Iterator[tuple[int, int]]:
        scratch = _scratch(local, db)
        view, n, size = memoryview(block), len(block), _FIRST_CHUNK
        found: list[tuple[int, int]] = []
        base, line_stop, again = pos, -1, 0

        def on_match(pid: int, start: int, end: int, flags: int, ctx: object) -> bool:
            nonlocal line_stop, again
            at = base + end - 1 if end else base  # a match ending at a newline: its line
            if at <= line_stop:
                again += 1  # the line is known: past a few more, stop and resume after it
                return again > _AGAIN
            bounds = _line_bounds(block, at)
            found.append(bounds)
            line_stop, again = bounds[1], 0
            return False

        while pos < n:
            nl = block.find(b"\n", pos + size)
            chunk_end = n if nl < 0 else nl + 1
            while pos < chunk_end:
                found.clear()
                base, line_stop = pos, -1
                try:
                    db.scan(view[pos:chunk_end], match_event_handler=on_match, scratch=scratch)
                    pos = chunk_end
                except hyperscan.ScanTerminated:  # how the binding says on_match stopped it
                    pos = line_stop + 1
                yield from found
            size *= 4

    return lines_from


class _Group:
    """Sampled patterns searched as one; a Set names the members of a line.

    With a `key` (the rank prefix of a merged console's lines), the head and tail hold
    the first HEAD_PER_KEY and last TAIL_PER_KEY lines of every key the head saw: in a
    console of 48 interleaved ranks, a rank that stopped mid-block is found where it
    stopped, not just wherever the last 40 lines happen to be. The lines are found by
    the engine the automaton runs on (one that misses matches misses them here too, and
    the probes see it), named by RE2.
    """

    def __init__(
        self,
        members: Sequence[tuple[int, str]],
        options: Any,
        key: Callable[[bytes, int], bytes] | None,
        engine: str,
        forms: Forms,
    ) -> None:
        import re2

        self.key = key
        self.owner: list[int] = []
        self.members = re2.Set.SearchSet(options)
        patterns: list[tuple[str, bool]] = []
        wrapped: list[bytes] = []
        for sig, rx in members:
            for pat, caseless in forms[rx]:
                form = _wrapped(pat, caseless)
                try:
                    self.members.Add(form)
                except re2.error as e:
                    raise AutomatonError(sig, f"RE2 cannot compile {form!r}: {e}") from None
                self.owner.append(sig)
                patterns.append((pat, caseless))
                wrapped.append(form)
        self.forms = tuple(wrapped)
        self._owners = frozenset(self.owner)
        self.members.Compile()
        self.lines_from = (
            _hyperscan_finder(patterns, self.owner)
            if engine == "hyperscan"
            else _re2_finder(patterns, options)
        )

    def names(self, line: bytes) -> set[int]:
        """The members matching a line the group found (one owner: no need to ask)."""
        if len(self._owners) == 1:
            return set(self._owners)
        return {self.owner[i] for i in self.members.Match(line) or ()}

    def lines(self, block: bytes, out: dict[int, tuple[int, set[int]]]) -> None:
        """Add the group's head and tail lines of `block` to `out`."""
        n = len(block)
        key = self.key
        found = short = 0  # short: keys seen fewer than _HEAD_PER_KEY times
        pos = 0
        seen: Counter[bytes] = Counter()
        head = self.lines_from(block, 0)
        for start, end in head:
            self._add(block, start, end, out)
            if key:
                k = key(block, start)
                seen[k] += 1
                short += {1: 1, _HEAD_PER_KEY: -1}.get(seen[k], 0)
            found, pos = found + 1, end + 1
            if found >= _HEAD and not short:
                break
        else:
            return  # the whole block is covered
        # a first tail window the size the head's density suggests, grown 4x as needed
        head_end = pos
        window = max(_WINDOW, head_end * _TAIL // _HEAD * 5 // 4)
        while True:
            lo = max(head_end, block.rfind(b"\n", 0, max(head_end, n - window)) + 1)
            tail = [
                (start, end, key(block, start) if key else b"")
                for start, end in self.lines_from(block, lo)
            ]
            per_key = Counter(k for _, _, k in tail)
            enough = all(per_key[k] >= _TAIL_PER_KEY for k in seen | per_key)
            if (len(tail) >= _TAIL and enough) or lo <= head_end:
                break
            window *= 4
        last: Counter[bytes] = Counter()
        for i in range(len(tail) - 1, -1, -1):
            start, end, k = tail[i]
            last[k] += 1
            if i >= len(tail) - _TAIL or last[k] <= _TAIL_PER_KEY:
                self._add(block, start, end, out)

    def _add(
        self, block: bytes, start: int, end: int, out: dict[int, tuple[int, set[int]]]
    ) -> None:
        out.setdefault(start, (end, set()))[1].update(self.names(block[start:end]))


class Sampler:
    """The sampled groups of an automaton (see the module docstring)."""

    def __init__(
        self,
        groups: Sequence[Sequence[tuple[int, str]]],
        keys: Sequence[Callable[[bytes, int], bytes] | None],
        engine: str,
        forms: Forms,
    ) -> None:
        import re2

        options = _re2_options()
        self._groups = [
            _Group(g, options, k, engine, forms) for g, k in zip(groups, keys, strict=True) if g
        ]
        # every group's members in one Set: a line the other patterns found is named in
        # one pass, not one per group
        self._owner = [o for g in self._groups for o in g.owner]
        self._members = re2.Set.SearchSet(options)
        for g in self._groups:
            for form in g.forms:
                self._members.Add(form)
        if self._groups:
            self._members.Compile()

    def lines(self, block: bytes, out: dict[int, tuple[int, set[int]]]) -> None:
        """Add the sampled lines of `block` to `out`, and name the sampled patterns that
        also match the lines already there (a NaN loss inside a step line is both)."""
        if not self._groups:
            return
        match, owner = self._members.Match, self._owner
        for start, (end, sigs) in out.items():
            sigs.update(owner[i] for i in match(block[start:end]) or ())
        for g in self._groups:
            g.lines(block, out)


class AutomatonError(ValueError):
    """A regex that an automaton backend refuses; `index` is the signature's position."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def _line_bounds(block: bytes, pos: int) -> tuple[int, int]:
    start = block.rfind(b"\n", 0, pos) + 1
    end = block.find(b"\n", pos)
    return start, (len(block) if end < 0 else end)


def _finish(
    block: bytes, lines: dict[int, tuple[int, set[int]]], sampler: Sampler
) -> list[LineHit]:
    sampler.lines(block, lines)
    return [(start, end, tuple(sorted(sigs))) for start, (end, sigs) in sorted(lines.items())]


def _hs_database(patterns: Sequence[tuple[str, bool]], owner: Sequence[int]) -> Any:
    """A compiled Hyperscan database: compiling a few hundred patterns takes ~0.3 s; a
    cached one loads in ~1 ms.

    The cache key covers every expression and flag; Hyperscan itself refuses a
    database from another version or CPU, and then we compile again. `owner[i]` is the
    signature of pattern i, named when Hyperscan refuses it.
    """
    import hyperscan as hs

    exprs = [p.encode("ascii") for p, _ in patterns]
    flags = [hs.HS_FLAG_CASELESS if c else 0 for _, c in patterns]
    name = f"hyperscan-{cache.key(repr((exprs, flags)).encode())}.db"
    blob = cache.read(name)
    if blob is not None:
        try:
            return hs.loadb(blob, hs.HS_MODE_BLOCK)
        except hs.error:
            pass
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    try:
        db.compile(expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs), flags=flags)
    except hs.error:
        for i, (expr, flag) in enumerate(zip(exprs, flags, strict=True)):
            try:
                hs.Database().compile(expressions=[expr], ids=[0], elements=1, flags=[flag])
            except hs.error as e:
                raise AutomatonError(owner[i], f"Hyperscan cannot compile {expr!r}: {e}") from None
        raise ValueError("Hyperscan could not compile the signature set") from None
    cache.write(name, hs.dumpb(db))
    return db


class HyperscanAutomaton:
    name = "hyperscan"

    def __init__(self, regexes: Sequence[tuple[int, str]], sampler: Sampler, forms: Forms) -> None:
        self._sampler = sampler
        self._owner = [sig for sig, rx in regexes for _ in forms[rx]]
        patterns = [form for _, rx in regexes for form in forms[rx]]
        self._empty = not patterns
        if not self._empty:
            self._db = _hs_database(patterns, self._owner)
        self._local = threading.local()

    def scan(self, block: bytes) -> list[LineHit]:
        if not block:
            return []
        lines: dict[int, tuple[int, set[int]]] = {}
        if not self._empty:
            scratch = _scratch(self._local, self._db)
            ends: list[tuple[int, int]] = []
            add = ends.append

            def on_match(pid: int, start: int, end: int, flags: int, ctx: object) -> None:
                add((end, pid))

            self._db.scan(block, match_event_handler=on_match, scratch=scratch)
            owner, start, stop, owners = self._owner, -1, -1, set()
            for end, pid in sorted(ends):
                # A match ending exactly at a newline ends on the line before it.
                at = end - 1 if end > 0 else 0
                if not start <= at <= stop:  # a line of its own (most lines match twice)
                    start, stop = _line_bounds(block, at)
                    owners = lines.setdefault(start, (stop, set()))[1]
                owners.add(owner[pid])
        return _finish(block, lines, self._sampler)


class RE2Automaton:
    """RE2 in two passes: a Set says which patterns occur in the block at all (one DFA
    pass, ~600 MB/s), then only those patterns are searched for their lines.

    One big alternation would be simpler, but past ~100 patterns RE2's DFA runs out of
    memory and falls back to the NFA at ~1 MB/s.
    """

    name = "re2"

    def __init__(self, regexes: Sequence[tuple[int, str]], sampler: Sampler, forms: Forms) -> None:
        import re2

        options = _re2_options()
        self._sampler = sampler
        self._owner: list[int] = []
        self._each = []
        self._set = re2.Set.SearchSet(options)
        for sig, rx in regexes:
            for pat, caseless in forms[rx]:
                wrapped = _wrapped(pat, caseless)
                try:
                    self._each.append(re2.compile(wrapped, options))
                    self._set.Add(wrapped)
                except re2.error as e:
                    raise AutomatonError(sig, f"RE2 cannot compile {wrapped!r}: {e}") from None
                self._owner.append(sig)
        self._empty = not self._each
        if not self._empty:
            self._set.Compile()

    def scan(self, block: bytes) -> list[LineHit]:
        if not block:
            return []
        lines: dict[int, tuple[int, set[int]]] = {}
        n = len(block)
        for pid in (self._set.Match(block) if not self._empty else None) or ():
            search = self._each[pid].search
            pos = 0
            while pos < n:
                m = search(block, pos)
                if m is None:
                    break
                start, end = _line_bounds(block, m.start())
                lines.setdefault(start, (end, set()))[1].add(self._owner[pid])
                pos = end + 1
        return _finish(block, lines, self._sampler)


# Terminal escapes a colored console leaves in its lines (torchtitan's step line is
# `\x1b[31mstep: 10  \x1b[32mloss: 7.9`, loguru's and rich's levels, pytest's colours):
# CSI sequences and OSC titles, on one line (read.lines.ANSI is their text form; lines.clean
# removes them from each line read). Colours (SGR) are nearly all of them and go first by a
# simpler pattern (split by it takes ~8 ms a colored MiB, by the general one twice that).
# Each pattern is one group, so that a split gives the pieces kept and the escapes between
# them, alternately.
_COLOURS = re.compile(rb"(\x1b\[[0-9;]*m)")
_ESCAPES = re.compile(rb"(\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)))")


class _Uncolored:
    """An automaton that matches a block as a person reads it: without its terminal
    escapes (the signatures are written for that text), its hits given back as spans of
    the block itself, so that a hit's line number, byte offset and raw text stay the
    file's (an escape holds no newline)."""

    def __init__(self, inner: Automaton) -> None:
        self._inner = inner
        self.name = inner.name

    def scan(self, block: bytes) -> list[LineHit]:
        scan = self._inner.scan
        if b"\x1b" not in block:
            return scan(block)
        parts = _COLOURS.split(block)
        plain = b"".join(parts[0::2])
        if b"\x1b" in plain:  # cursor moves (tqdm's nested bars), titles
            parts = _ESCAPES.split(block)
            plain = b"".join(parts[0::2])
        if len(parts) == 1:
            return scan(block)
        # A hit's line is the same line of `block` (a line number counted in `plain`,
        # walked to in `block`): hits are few, so stepping over the lines between is cheap.
        out = []
        line = pos = k = first = 0  # `first`: where line k of `block` starts
        for start, _, candidates in scan(plain):
            line += plain.count(b"\n", pos, start)
            pos = start
            while k < line:
                first = block.index(b"\n", first) + 1
                k += 1
            end = block.find(b"\n", first)
            out.append((first, len(block) if end < 0 else end, candidates))
        return out


def refusal(rx: str) -> str | None:
    """Why an installed engine cannot compile this signature regex, if one cannot.

    Run at load on users' pattern files, so that a signature is refused with its file
    and id whichever engine the job later runs on (the built-ins are tested on every
    engine instead: compiling ~800 regexes one by one would slow every start-up).
    """
    import re2

    options, hs = _re2_options(), "hyperscan" in available_engines()
    for pat, caseless in variants(rx):
        form = _wrapped(pat, caseless)
        try:
            re2.compile(form, options)
        except re2.error as e:
            return f"RE2 cannot compile {form!r}: {e}"
        if hs:
            import hyperscan

            flags = [hyperscan.HS_FLAG_CASELESS if caseless else 0]
            try:
                hyperscan.Database().compile(
                    expressions=[pat.encode("ascii")], ids=[0], elements=1, flags=flags
                )
            except hyperscan.error as e:
                return f"Hyperscan cannot compile {pat!r}: {e}"
    return None


def available_engines() -> list[str]:
    """Installed engines, the default first: Hyperscan where its wheel installs (x86_64,
    aarch64), else RE2.

    Hyperscan scans a block about four times as fast as the RE2 Set (1,100 against 280
    MB/s here, the sampler aside). python-hyperscan 0.9.1 wraps Vectorscan 5.4.12,
    which silently misses matches for some pattern sets: two patterns sharing a prefix
    of a literal, a one-character `\\d+` and a literal, one of them 16 bytes longer
    (tests/test_automaton.py keeps the real case); a fuzzer of pattern sets shaped like
    ours found 11 in 13,126 (Intel Hyperscan 5.4 and Vectorscan 5.4.11: none). The
    built-in catalogue is found exactly (every corpus line, example and 1,150 random
    subsets against RE2), and `build` takes the default only for a pattern set whose
    every example it finds, else RE2.
    """
    names = ["re2"]
    try:
        import hyperscan  # noqa: F401

        names.insert(0, "hyperscan")
    except ImportError:
        pass
    return names


def build(
    regexes: Sequence[tuple[int, str]],
    engine: str | None = None,
    sampled: Sequence[Collection[int]] = (),
    keys: Sequence[Callable[[bytes, int], bytes] | None] = (),
    probes: Sequence[tuple[int, bytes]] = (),
) -> Automaton:
    """The automaton for these regexes; `engine` (or $HA_ANALYZE_ENGINE) forces a backend.

    `sampled`: groups of owner indices whose lines are only needed near the start and end
    of each block, each with a key function or None (see Sampler and _Group). `probes`:
    (owner, line) pairs the automaton must find (the signatures' examples); the default
    engine is used only if it finds every one, else the next (see available_engines).
    """
    forced = engine or os.environ.get("HA_ANALYZE_ENGINE")
    forms = relaxed([rx for _, rx in regexes])
    group_of = {owner: k for k, group in enumerate(sampled) for owner in group}
    groups: list[list[tuple[int, str]]] = [[] for _ in sampled]
    for owner, rx in regexes:
        if owner in group_of:
            groups[group_of[owner]].append((owner, rx))
    keys = keys or [None] * len(groups)
    rest = [(owner, rx) for owner, rx in regexes if owner not in group_of]
    backends: dict[str, Callable[[], Automaton]] = {
        "hyperscan": lambda: _Uncolored(
            HyperscanAutomaton(rest, Sampler(groups, keys, "hyperscan", forms), forms)
        ),
        "re2": lambda: _Uncolored(RE2Automaton(rest, Sampler(groups, keys, "re2", forms), forms)),
    }
    if forced is not None:
        if forced not in backends:
            raise ValueError(
                f"unknown engine {forced!r}; available: {', '.join(available_engines())}"
            )
        return backends[forced]()
    engines = available_engines()
    for name in engines[:-1]:
        candidate = backends[name]()
        if _finds_all(candidate, forms, probes):
            return candidate
    return backends[engines[-1]]()


def _finds_all(auto: Automaton, forms: Forms, probes: Sequence[tuple[int, bytes]]) -> bool:
    """Whether the automaton finds every probe; a pass is cached (~30 ms a start-up) under
    the engine, its version, this module, the regexes and the probes."""
    import importlib  # importlib.metadata would cost ~19 ms of start-up

    version = str(getattr(importlib.import_module(auto.name), "__version__", "?"))
    regexes = json.dumps(sorted(forms)).encode()  # the forms follow from them and _SOURCE
    parts = (auto.name.encode(), version.encode(), _SOURCE, regexes, repr(sorted(probes)).encode())
    name = f"probes-{cache.key(*parts)}.ok"
    if cache.read(name) == b"ok":
        return True
    if missed(auto, probes):
        return False
    cache.write(name, b"ok")
    return True


def missed(auto: Automaton, probes: Sequence[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """The probes (owner, text of one or more lines) whose owner the automaton does not
    find on any of their lines, all probes scanned as one block."""
    block = b"".join(text.rstrip(b"\n") + b"\n" for _, text in probes)
    found: list[tuple[int, int, tuple[int, ...]]] = auto.scan(block)
    out, k, pos = [], 0, 0
    for owner, text in probes:
        end = pos + len(text.rstrip(b"\n")) + 1
        seen = False
        while k < len(found) and found[k][0] < end:
            seen = seen or owner in found[k][2]
            k += 1
        if not seen:
            out.append((owner, text))
        pos = end
    return out
