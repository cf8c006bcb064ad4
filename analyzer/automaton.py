"""Multi-pattern automata that find candidate lines in whole blocks of bytes.

Running Python regexes over every line is 150-300x slower than grep; a multi-pattern
automaton over ~1 MiB blocks is not (see issue 2 / issue 8 measurements). The automaton
is only a prefilter: it must never miss a line that the exact per-line check would
accept, and it may report extra lines, which the exact check then drops. To stay a
superset it scans "relaxed" regexes: named groups made plain and ^/$ anchors removed
(they refer to the message after the rank prefix, which the automaton cannot see).

Two backends: RE2 (portable, linear-time; the default) and Hyperscan (about twice as
fast on the scan itself, x86_64/aarch64 wheels, opt-in with --engine hyperscan because of
an upstream bug that loses matches, see available_engines).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from . import cache

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
                atom, wide = body, True
            elif any(ord(ch) > 127 for ch in body):
                atom, wide = "[\\x00-\\xff]", True
            else:
                atom = body
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


class AutomatonError(ValueError):
    """A regex that an automaton backend refuses; `index` is the signature's position."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def _line_bounds(block: bytes, pos: int) -> tuple[int, int]:
    start = block.rfind(b"\n", 0, pos) + 1
    end = block.find(b"\n", pos)
    return start, (len(block) if end < 0 else end)


class HyperscanAutomaton:
    name = "hyperscan"

    def __init__(self, regexes: Sequence[tuple[int, str]]) -> None:
        import hyperscan

        self._hs = hyperscan
        self._owner: list[int] = []
        exprs, flags = [], []
        for sig, rx in regexes:
            for pat, caseless in variants(rx):
                self._owner.append(sig)
                exprs.append(pat.encode("ascii"))
                flags.append(hyperscan.HS_FLAG_CASELESS if caseless else 0)
        self._empty = not exprs
        if not self._empty:
            self._db = self._load_or_compile(exprs, flags)
        self._local = threading.local()

    def _load_or_compile(self, exprs: list[bytes], flags: list[int]) -> Any:
        """Compiling a few hundred patterns takes ~0.3 s; a cached database loads in ~1 ms.

        The cache key covers every expression and flag; Hyperscan itself refuses a
        database from another version or CPU, and then we compile again.
        """
        hs = self._hs
        name = f"hyperscan-{cache.key(repr((exprs, flags)).encode())}.db"
        blob = cache.read(name)
        if blob is not None:
            try:
                return hs.loadb(blob, hs.HS_MODE_BLOCK)
            except hs.error:
                pass
        db = hs.Database(mode=hs.HS_MODE_BLOCK)
        try:
            db.compile(
                expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs), flags=flags
            )
        except hs.error:
            raise self._culprit(exprs, flags) from None
        cache.write(name, hs.dumpb(db))
        return db

    def _culprit(self, exprs: list[bytes], flags: list[int]) -> ValueError:
        for i, (expr, flag) in enumerate(zip(exprs, flags, strict=True)):
            try:
                self._hs.Database().compile(expressions=[expr], ids=[0], elements=1, flags=[flag])
            except self._hs.error as e:
                return AutomatonError(self._owner[i], f"Hyperscan cannot compile {expr!r}: {e}")
        return ValueError("Hyperscan could not compile the signature set")

    def scan(self, block: bytes) -> list[LineHit]:
        if self._empty or not block:
            return []
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hs.Scratch(self._db)
        ends: list[tuple[int, int]] = []
        add = ends.append

        def on_match(pid: int, start: int, end: int, flags: int, ctx: object) -> None:
            add((end, pid))

        self._db.scan(block, match_event_handler=on_match, scratch=scratch)
        if not ends:
            return []
        ends.sort()
        out: list[LineHit] = []
        line_start, line_end = -1, -1
        sigs: set[int] = set()
        for end, pid in ends:
            # A match ending exactly at a newline ends on the line before it.
            pos = end - 1 if end > 0 else 0
            if pos > line_end:
                if sigs:
                    out.append((line_start, line_end, tuple(sorted(sigs))))
                line_start, line_end = _line_bounds(block, pos)
                sigs = set()
            sigs.add(self._owner[pid])
        if sigs:
            out.append((line_start, line_end, tuple(sorted(sigs))))
        return out


class RE2Automaton:
    """RE2 in two passes: a Set says which patterns occur in the block at all (one DFA
    pass, ~600 MB/s), then only those patterns are searched for their lines.

    One big alternation would be simpler, but past ~100 patterns RE2's DFA runs out of
    memory and falls back to the NFA at ~1 MB/s.
    """

    name = "re2"

    def __init__(self, regexes: Sequence[tuple[int, str]]) -> None:
        import re2

        # Latin-1 mode: patterns and text are bytes, as for Hyperscan.
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.log_errors = False
        self._owner: list[int] = []
        self._each = []
        self._set = re2.Set.SearchSet(options)
        for sig, rx in regexes:
            for pat, caseless in variants(rx):
                wrapped = (f"(?i:{pat})" if caseless else f"(?:{pat})").encode("ascii")
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
        if self._empty or not block:
            return []
        present = self._set.Match(block)
        if not present:
            return []
        lines: dict[int, tuple[int, set[int]]] = {}
        n = len(block)
        for pid in present:
            search = self._each[pid].search
            pos = 0
            while pos < n:
                m = search(block, pos)
                if m is None:
                    break
                start, end = _line_bounds(block, m.start())
                lines.setdefault(start, (end, set()))[1].add(self._owner[pid])
                pos = end + 1
        return [(start, end, tuple(sorted(sigs))) for start, (end, sigs) in sorted(lines.items())]


def available_engines() -> list[str]:
    """Installed engines, the default first.

    RE2 is the default: Hyperscan 5.4 (python-hyperscan 0.9.1) silently misses matches
    for some pattern sets, e.g. `(?:error=\\d+ : |\\(\\d+ vs\\. 0\\)  )the launch` next to
    `(?:RuntimeError: |\\(\\d+ vs\\. 0\\)  )CUDNN` (tests/test_automaton.py keeps the
    case). A missed line is a wrong verdict; RE2 costs about 15% of end-to-end speed.
    """
    names = ["re2"]
    try:
        import hyperscan  # noqa: F401

        names.append("hyperscan")
    except ImportError:
        pass
    return names


def build(regexes: Sequence[tuple[int, str]], engine: str | None = None) -> Automaton:
    """The automaton for these regexes; `engine` (or $HA_ANALYZE_ENGINE) forces a backend."""
    engine = engine or os.environ.get("HA_ANALYZE_ENGINE") or available_engines()[0]
    if engine == "hyperscan":
        return HyperscanAutomaton(regexes)
    if engine == "re2":
        return RE2Automaton(regexes)
    raise ValueError(f"unknown engine {engine!r}; available: {', '.join(available_engines())}")
