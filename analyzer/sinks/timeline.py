"""`--format timeline`: one line per rank around the failure, readable in a terminal.

For each stream (file and rank): its last progress and when, whether it stalled, and the
most telling line it printed, ordered by time, with the root cause marked. A 1,000-rank
job prints the ranks that matter first and folds ranks with the same story.
"""

from __future__ import annotations

import click

from ..decide.culprit import chains
from ..types import RankEvent, RankProgress, Reported, Spread, Verdict
from . import text_width
from .prose import say

_MAX_ROWS = 40


def _clock(iso: str | None) -> str:
    return iso[11:23] if iso else "?"


# the columns of a row, in order: who, last progress, the telling line's time, role and
# signature, the file; each is padded to the widest shown, so they line up whatever the
# names' lengths
_COLUMNS = ("who", "last", "time", "role", "line", "file")


def _row(
    key: tuple[str, int | None], prog: RankProgress | None, event: RankEvent | None
) -> tuple[str, tuple[str, ...]]:
    """A stream's sort time and its cells."""
    file, rank = key
    who = f"rank {rank}" if rank is not None else "-"
    if prog is not None and prog.last_time:
        step = prog.last_step if prog.last_step is not None else "?"
        last = f"step {step} @ {_clock(prog.last_time)}"
        if prog.stalled_seconds:
            last += f" STALLED {prog.stalled_seconds / 60:.0f} min"
    else:
        last = "-"
    when, role, sig = (
        (_clock(event.time), event.role, event.signature) if event is not None else ("-", "", "-")
    )
    sort_time = (event.time if event else None) or (prog.last_time if prog else None) or "~"
    return sort_time, (who, last, when, role, sig, file)


def _at(r: Reported, lang: str) -> str:
    where = ", ".join(x for x in (r.host, f"device {r.device}" if r.device else None) if x)
    at = say("spread.at", lang)
    return f"rank {r.rank}" + (f" ({where})" if where else "") + f" {at} {_clock(r.time)}"


def spread_lines(spread: Spread | None, lang: str = "en") -> list[str]:
    """The spread of a failure across ranks, in words (`--format text` too)."""
    if spread is None:
        return []
    first, last = _at(spread.first, lang), _at(spread.last, lang)
    out = [say("spread.head", lang, first=first, last=last, n=spread.ranks)]
    if spread.waits:
        out.append(say("spread.waits", lang) + say("sep.clause", lang).join(chains(spread.waits)))
    if spread.link:
        link = say("spread.link", lang)
        out.append(f"{link}rank {spread.link[0]} <-> rank {spread.link[1]}")
    return out


def render(verdict: Verdict, lang: str = "en") -> str:
    progress = {(p.file, p.rank): p for p in verdict.progress}
    events = {(e.file, e.rank): e for e in verdict.events}
    keys = sorted({*progress, *events}, key=lambda k: (k[0], -1 if k[1] is None else k[1]))
    rc = verdict.root_cause
    rows = []
    for key in keys:
        prog, event = progress.get(key), events.get(key)
        sort_time, cells = _row(key, prog, event)
        is_root = rc is not None and (
            (event is not None and (event.file, event.line) == (rc.file, rc.line))
            or (prog is not None and (prog.file, prog.last_line) == (rc.file, rc.line))
        )
        rows.append((sort_time, cells, is_root))
    rows.sort(key=lambda t: t[0])
    shown = [r for i, r in enumerate(rows) if i < _MAX_ROWS or r[2]]
    head = tuple(say(f"column.{c}", lang) for c in _COLUMNS)
    columns = zip(head, *(cells for _, cells, _ in shown), strict=True)
    widths = [max(text_width(c) for c in column) for column in columns]

    def line(mark: str, cells: tuple[str, ...]) -> str:
        padded = [c + " " * (w - text_width(c)) for c, w in zip(cells[:-1], widths, strict=False)]
        return f"{mark} " + "  ".join((*padded, cells[-1]))

    out = [
        click.style(
            f"{verdict.category.upper()} -> {verdict.recovery}"
            f"   confidence {verdict.confidence:.2f}",
            bold=True,
        ),
        verdict.summary,
        "",
        line(" ", head),
    ]
    for _, cells, is_root in shown:
        text = line(">" if is_root else " ", cells)
        out.append(click.style(text, bold=True) if is_root else text)
    if len(rows) > len(shown):
        out.append(f"  ... {len(rows) - len(shown)} more streams (--format json lists them all)")
    if verdict.spread is not None:
        out += ["", *spread_lines(verdict.spread, lang)]
    if rc is not None:
        label = say("column.root", lang)
        out += ["", f"{label}: {rc.file}:{rc.line}  {rc.text.strip()[:160]}"]
    return "\n".join(out)
