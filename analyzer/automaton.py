"""Multi-pattern automata that find candidate lines in whole blocks of bytes.

Running Python regexes over every line is 150-300x slower than grep; a multi-pattern
automaton over ~1 MiB blocks is not (see issue 2 / issue 8 measurements). The automaton
is only a prefilter: it must never miss a line that the exact per-line check would
accept, and it may report extra lines, which the exact check then drops. To stay a
superset it scans "relaxed" regexes: named groups made plain and ^/$ anchors removed
(they refer to the message after the rank prefix, which the automaton cannot see).

Two backends give the same candidates: Hyperscan (fast, x86_64/aarch64 wheels) and RE2
(portable, linear-time too). The engine takes Hyperscan when it is importable.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Protocol

# (line start offset in block, line end offset, signature indices)
LineHit = tuple[int, int, tuple[int, ...]]


class Automaton(Protocol):
    name: str

    def scan(self, block: bytes) -> list[LineHit]:
        """Candidate lines of `block`, in order, each with the signatures that may match."""
        ...


def relax(rx: str) -> tuple[str, bool]:
    """Turn a signature regex into the automaton's superset form.

    Returns the pattern and whether it is case-insensitive (a leading `(?i)`).
    """
    caseless = rx.startswith("(?i)")
    if caseless:
        rx = rx[4:]
    out: list[str] = []
    i, n, in_class = 0, len(rx), False
    while i < n:
        c = rx[i]
        if c == "\\" and i + 1 < n:
            out.append(rx[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            if rx.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
            out.append(c)
            i += 1
            continue
        if c in "^$":
            i += 1
            continue
        if rx.startswith("(?P<", i):
            j = rx.index(">", i)
            out.append("(?:")
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), caseless


def _line_bounds(block: bytes, pos: int) -> tuple[int, int]:
    start = block.rfind(b"\n", 0, pos) + 1
    end = block.find(b"\n", pos)
    return start, (len(block) if end < 0 else end)


class HyperscanAutomaton:
    name = "hyperscan"

    def __init__(self, regexes: Sequence[tuple[int, str]]) -> None:
        import hyperscan

        self._hs = hyperscan
        self._owner = [sig for sig, _ in regexes]
        exprs, flags = [], []
        for _, rx in regexes:
            pat, caseless = relax(rx)
            exprs.append(pat.encode("utf-8"))
            flags.append(hyperscan.HS_FLAG_CASELESS if caseless else 0)
        self._db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        if exprs:
            self._db.compile(
                expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs), flags=flags
            )
        self._empty = not exprs
        self._local = threading.local()

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
    name = "re2"

    def __init__(self, regexes: Sequence[tuple[int, str]]) -> None:
        import re2

        self._owner = [sig for sig, _ in regexes]
        parts = []
        self._set = re2.Set.SearchSet()
        for _, rx in regexes:
            pat, caseless = relax(rx)
            wrapped = f"(?i:{pat})" if caseless else f"(?:{pat})"
            parts.append(wrapped)
            self._set.Add(wrapped.encode("utf-8"))
        self._set.Compile()
        self._any = re2.compile("|".join(parts).encode("utf-8")) if parts else None

    def scan(self, block: bytes) -> list[LineHit]:
        if self._any is None or not block:
            return []
        out: list[LineHit] = []
        pos, n = 0, len(block)
        search, match_set = self._any.search, self._set.Match
        while pos < n:
            m = search(block, pos)
            if m is None:
                break
            start, end = _line_bounds(block, m.start())
            ids = match_set(block[start:end])
            if ids:
                out.append((start, end, tuple(sorted({self._owner[i] for i in ids}))))
            pos = end + 1
        return out


def available_engines() -> list[str]:
    names = []
    try:
        import hyperscan  # noqa: F401

        names.append("hyperscan")
    except ImportError:
        pass
    names.append("re2")
    return names


def build(regexes: Sequence[tuple[int, str]], engine: str | None = None) -> Automaton:
    """The automaton for these regexes; `engine` (or $HA_ANALYZE_ENGINE) forces a backend."""
    engine = engine or os.environ.get("HA_ANALYZE_ENGINE") or available_engines()[0]
    if engine == "hyperscan":
        return HyperscanAutomaton(regexes)
    if engine == "re2":
        return RE2Automaton(regexes)
    raise ValueError(f"unknown engine {engine!r}; available: {', '.join(available_engines())}")
