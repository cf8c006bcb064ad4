"""The pattern files a user would hand to grep instead of running ha-analyze (issue 19).

The speed benchmarks compare ha-analyze with grep on the same signatures. A fair yardstick
is what a user would write by hand, not the engine's own regexes converted (that is
`bench_scan.py --mib`, through analyzer.rules.export):

  user_eres       ONE POSIX ERE per signature: for each of its match regexes the literal
                  runs the regex cannot match without (3+ characters, in order) joined
                  with `.*`, a signature's regexes joined with `|`, ERE metacharacters
                  escaped, a `(?i)` regex's letters as `[aA]`; duplicates dropped.
  user_literals   the catalogue's `literals` field, one per line, for `grep -F -f`.

The repository has no code that derives required literals from a regex (each
signature's `literals` are hand-written alternatives, any ONE of which is in every line
it matches, so they cannot be joined with `.*`); the runs are read from the regex's parse
tree here. The `literals` are exactly what a `grep -F` prefilter needs, so that set
uses them as they are.

    python benchmarks/usersets.py OUTDIR      writes OUTDIR/user.ere and OUTDIR/literals.txt
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

try:  # the parser behind `re`, as analyzer.rules.signatures uses it
    import re._parser as _sre  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # Python 3.10
    import sre_parse as _sre

from analyzer.rules.signatures import load_patterns
from analyzer.types import Signature

_ERE_SPECIAL = frozenset(".[]()*+?{}|^$\\")
_MIN_RUN = 3  # shorter runs (`:`, `] `, `=`) are not what anyone types into a grep pattern
_B = "\x00"  # a word boundary `\b` inside a piece: users keep it (`(nan|inf)\b`), GNU grep has it


# What a match must contain, in order: segments of adjacent items, an item being a run
# of fixed text or a tuple of plain words one of which is there (`(?:nan|inf)`).
Item = str | tuple[str, ...]
Segment = list[Item]


def literal_runs(rx: str) -> list[list[Segment]]:
    """The segments a match of `rx` must contain, in order, per top-level alternative.

    A segment ends at anything that is not fixed text (a class, a repeat, an optional
    part); a group's content continues the segment around it, a part repeated at least
    once contributes its own segments, and an alternation of plain words stays in its
    segment as a choice (the parser factors `speed|scale` into `s(?:peed|cale)`). `\\b`
    stays where it is; other anchors match nothing and are skipped.
    """
    tree: Any = _sre.parse(rx)
    items = list(tree)
    if len(items) == 1 and items[0][0] is _sre.BRANCH:
        return [_segments(alt) for alt in items[0][1][1]]
    return [_segments(items)]


def _plain(seq: Iterable[Any]) -> str | None:
    """The text of a sequence of fixed characters, or None."""
    out = []
    for op, av in seq:
        if op is _sre.LITERAL:
            out.append(chr(av))
        elif op is _sre.IN and len(av) == 1 and av[0][0] is _sre.LITERAL:
            out.append(chr(av[0][1]))
        else:
            return None
    return "".join(out)


def _segments(items: Iterable[Any]) -> list[Segment]:
    segments: list[Segment] = []
    cur: Segment = []

    def flush() -> None:
        if any(item != _B for item in cur):
            segments.append(list(cur))
        cur.clear()

    def walk(seq: Iterable[Any]) -> None:
        for op, av in seq:
            if op is _sre.LITERAL:
                cur.append(chr(av))
            elif op is _sre.SUBPATTERN:
                walk(av[-1])
            elif op is _sre.AT:
                if av is _sre.AT_BOUNDARY:
                    cur.append(_B)
            elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
                lo, _, sub = av
                flush()
                if lo >= 1:
                    walk(sub)
                    flush()
            elif op is _sre.IN and len(av) == 1 and av[0][0] is _sre.LITERAL:
                cur.append(chr(av[0][1]))
            elif op is _sre.BRANCH:
                words = [_plain(alt) for alt in av[1]]
                if all(words):
                    cur.append(tuple(w for w in words if w))
                else:
                    flush()
            else:
                flush()

    walk(items)
    flush()
    return segments


def _escape(text: str, caseless: bool) -> str:
    out = []
    for ch in text:
        if ch == _B:
            out.append("\\b")
        elif ch in _ERE_SPECIAL:
            out.append("\\" + ch)
        elif caseless and ch.isascii() and ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        else:
            out.append(ch)
    return "".join(out)


def _word(segment: Segment, caseless: bool) -> str | None:
    """A segment as the ERE a user types (edge blanks dropped), or None when it has
    fewer than _MIN_RUN fixed characters (its choices counted by their shortest)."""
    items: list[Item] = []
    for item in segment:  # adjacent characters into one run
        if isinstance(item, str) and items and isinstance(items[-1], str):
            items[-1] += item
        else:
            items.append(item)
    if isinstance(items[0], str):
        items[0] = items[0].lstrip()
    if isinstance(items[-1], str):
        items[-1] = items[-1].rstrip()
    size = sum(
        len(i.replace(_B, "")) if isinstance(i, str) else min(len(w) for w in i) for i in items
    )
    if size < _MIN_RUN:
        return None
    return "".join(
        _escape(i, caseless)
        if isinstance(i, str)
        else "(" + "|".join(_escape(w, caseless) for w in i) + ")"
        for i in items
    )


def regex_ere(rx: str) -> list[str]:
    """The hand-written ERE forms of one match regex (one per top-level alternative
    that has a segment worth typing)."""
    caseless = rx.startswith("(?i)")
    forms: list[str] = []
    for segments in literal_runs(rx):
        words = [w for seg in segments if (w := _word(seg, caseless))]
        if words:
            forms.append(".*".join(words))
    return forms


def signature_ere(sig: Signature) -> str:
    """ONE ERE for a signature: its regexes' forms as alternatives; a regex (or one of
    its alternatives) without a literal run of 3+ characters is stood in for by the
    signature's `literals`, as a user would fall back to the words they know."""
    forms: list[str] = []
    short = False
    for rx in sig.match:
        got = regex_ere(rx)
        short = short or len(got) < len(literal_runs(rx))
        forms += got
    if short:
        forms += [_escape(lit, False) for lit in sig.literals]
    return "|".join(dict.fromkeys(forms))


def user_eres(sigs: Sequence[Signature] | None = None) -> list[str]:
    """One ERE per signature of the catalogue, duplicates dropped, in catalogue order."""
    sigs = load_patterns().signatures if sigs is None else sigs
    return list(dict.fromkeys(signature_ere(s) for s in sigs))


def user_literals(sigs: Sequence[Signature] | None = None) -> list[str]:
    """The catalogue's literals, one entry each, duplicates dropped."""
    sigs = load_patterns().signatures if sigs is None else sigs
    return list(dict.fromkeys(lit for s in sigs for lit in s.literals))


def write_sets(outdir: Path) -> tuple[Path, Path]:
    """Write user.ere and literals.txt into `outdir`; refuse a set GNU grep cannot parse."""
    outdir.mkdir(parents=True, exist_ok=True)
    ere, lit = outdir / "user.ere", outdir / "literals.txt"
    ere.write_text("".join(e + "\n" for e in user_eres()), encoding="utf-8")
    lit.write_text("".join(s + "\n" for s in user_literals()), encoding="utf-8")
    for flag, path in (("-E", ere), ("-F", lit)):
        r = subprocess.run(
            ["grep", "-c", flag, "-f", str(path), "/dev/null"],
            capture_output=True,
            text=True,
            env={**os.environ, "LC_ALL": "C"},
            check=False,
        )
        if r.returncode == 2:
            raise ValueError(f"grep {flag} cannot read {path}: {r.stderr.strip()}")
    return ere, lit


def grep_count(pattern_file: Path, log: Path, fixed: bool = False) -> int:
    """Lines of `log` that grep -c counts for a pattern file (C locale, as benchmarked)."""
    r = subprocess.run(
        ["grep", "-c", "-F" if fixed else "-E", "-f", str(pattern_file), str(log)],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C"},
        check=False,
    )
    if r.returncode not in (0, 1):
        raise RuntimeError(r.stderr.strip())
    return int(r.stdout.strip() or 0)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    e, li = write_sets(Path(sys.argv[1]))
    print(
        f"{e}: {len(e.read_text().splitlines())} EREs; {li}: {len(li.read_text().splitlines())} literals"
    )
