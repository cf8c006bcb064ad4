"""Signatures in other tools' regex dialects, for comparisons and for use outside.

`grep -c -E -f` with the same signature set is the yardstick of the speed benchmarks
(issue 8): the export must be the same patterns, not a hand-picked few. POSIX ERE has no
non-capturing or named groups, no `\\d`/`\\s`/`\\w` and no lazy quantifiers, and inside
a bracket expression a backslash is a literal character; those are rewritten, and a
regex that needs more (byte escapes, lookaround, an escaped `]` in a class) is left out.
`\\b` is dropped and counts above 69 are opened (`{0,1000}` -> `{0,}`: GNU grep builds
large counted repeats into huge automata, minutes for the catalogue), so an exported
pattern may match a little more than the signature; `(?i)` is dropped too (run grep
with `-i` for those).
"""

from __future__ import annotations

import re

_OUTSIDE = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "s": "[[:space:]]",
    "S": "[^[:space:]]",
    "w": "[[:alnum:]_]",
    "W": "[^[:alnum:]_]",
    "b": "",
    "t": "\t",
}
_BIG_REPEAT = re.compile(r"\{(\d+),(\d{3,}|[7-9]\d)\}")
_INSIDE = {"d": "0-9", "s": "[:space:]", "w": "[:alnum:]_", "t": "\t"}


def to_ere(rx: str) -> str | None:
    """The POSIX ERE form of a signature regex, or None when ERE cannot say it."""
    if rx.startswith("(?i)"):
        rx = rx[4:]
    out: list[str] = []
    i, n = 0, len(rx)
    while i < n:
        ch = rx[i]
        if ch == "\\" and i + 1 < n:
            nxt = rx[i + 1]
            if nxt in _OUTSIDE:
                out.append(_OUTSIDE[nxt])
            elif nxt.isalnum():
                return None  # \x41, \1, \A, ...: no ERE form
            else:
                out.append("\\" + nxt)
            i += 2
        elif ch == "[":
            end, cls = _bracket(rx, i)
            if cls is None:
                return None
            out.append(cls)
            i = end
        elif ch == "(" and rx.startswith("(?", i):
            if rx.startswith("(?:", i):
                i += 3
            elif rx.startswith("(?P<", i) and ">" in rx[i:]:
                i = rx.index(">", i) + 1
            else:
                return None
            out.append("(")
        elif ch == "?" and out and out[-1] in ("*", "+", "?", "}"):
            i += 1  # a lazy quantifier: ERE has only greedy ones, same matches per line
        else:
            out.append(ch)
            i += 1
    return _BIG_REPEAT.sub(lambda m: "{" + m.group(1) + ",}", "".join(out))


def _bracket(rx: str, start: int) -> tuple[int, str | None]:
    """A Python character class at `start` -> (index after it, its POSIX form)."""
    i = start + 1
    negate = i < len(rx) and rx[i] == "^"
    if negate:
        i += 1
    items: list[str] = []
    dash = False
    first = True
    while i < len(rx):
        ch = rx[i]
        if ch == "]" and not first:
            body = "".join(items) + ("-" if dash else "")
            return i + 1, "[" + ("^" if negate else "") + body + "]"
        first = False
        if ch == "\\" and i + 1 < len(rx):
            nxt = rx[i + 1]
            if nxt in _INSIDE:
                items.append(_INSIDE[nxt])
            elif nxt == "-":
                dash = True  # a literal '-' goes last, where POSIX reads it as itself
            elif nxt in "]^" or nxt.isalnum():
                return i, None
            else:
                items.append(nxt)  # \[ \. \' ... are the character itself
            i += 2
            continue
        if ch == "[":
            items.append("[")
        else:
            items.append(ch)
        i += 1
    return i, None
