"""`--format timeline`: one line per rank around the failure, readable in a terminal.

For each stream (file and rank): its last progress and when, whether it stalled, and the
most telling line it printed, ordered by time, with the root cause marked. A 1,000-rank
job prints the ranks that matter first and folds ranks with the same story.
"""

from __future__ import annotations

from collections import defaultdict

import click

from ..culprit import chains
from ..types import RankEvent, RankProgress, Reported, Spread, Verdict

_MAX_ROWS = 40


def _clock(iso: str | None) -> str:
    return iso[11:23] if iso else "?"


def _row(
    key: tuple[str, int | None], prog: RankProgress | None, event: RankEvent | None
) -> tuple[str, str]:
    file, rank = key
    who = f"rank {rank:<5}" if rank is not None else "-" + " " * 9
    if prog is not None and prog.last_time:
        step = prog.last_step if prog.last_step is not None else "?"
        last = f"step {step} @ {_clock(prog.last_time)}"
        if prog.stalled_seconds:
            last += f" STALLED {prog.stalled_seconds / 60:.0f} min"
    else:
        last = "-"
    what = f"{_clock(event.time)} {event.role:<12} {event.signature}" if event is not None else "-"
    sort_time = (event.time if event else None) or (prog.last_time if prog else None) or "~"
    return sort_time, f"{who} {last:<36} {what}   {file}"


def _at(r: Reported) -> str:
    where = ", ".join(x for x in (r.host, f"device {r.device}" if r.device else None) if x)
    return f"rank {r.rank}" + (f" ({where})" if where else "") + f" at {_clock(r.time)}"


def spread_lines(spread: Spread | None) -> list[str]:
    """The spread of a failure across ranks, in words (`--format text` too)."""
    if spread is None:
        return []
    out = [
        f"first to report: {_at(spread.first)}; last: {_at(spread.last)}"
        f" ({spread.ranks} ranks reported, clocks corrected)"
    ]
    if spread.waits:
        out.append("waited for: " + "; ".join(chains(spread.waits)))
    if spread.link:
        out.append(f"link: rank {spread.link[0]} <-> rank {spread.link[1]}")
    return out


def render(verdict: Verdict) -> str:
    progress = {(p.file, p.rank): p for p in verdict.progress}
    events = {(e.file, e.rank): e for e in verdict.events}
    keys = sorted({*progress, *events}, key=lambda k: (k[0], -1 if k[1] is None else k[1]))
    rows = {k: (progress.get(k), events.get(k)) for k in keys}
    rc = verdict.root_cause
    out = [
        click.style(
            f"{verdict.category.upper()} -> {verdict.recovery}"
            f"   confidence {verdict.confidence:.2f}",
            bold=True,
        ),
        verdict.summary,
        "",
        f"{'who':<10} {'last progress':<36} {'first telling line (time, role, signature)'}   file",
    ]
    lines = []
    for key, (prog, event) in rows.items():
        sort_time, text = _row(key, prog, event)
        is_root = rc is not None and (
            (event is not None and (event.file, event.line) == (rc.file, rc.line))
            or (prog is not None and (prog.file, prog.last_line) == (rc.file, rc.line))
        )
        lines.append((sort_time, ("> " if is_root else "  ") + text, is_root))
    lines.sort(key=lambda t: t[0])
    folded: dict[str, int] = defaultdict(int)
    shown = 0
    for _, text, is_root in lines:
        if shown >= _MAX_ROWS and not is_root:
            folded[text.split("   ")[0][14:]] += 1
            continue
        out.append(click.style(text, bold=True) if is_root else text)
        shown += 1
    if folded:
        out.append(f"  ... {sum(folded.values())} more streams (--format json lists them all)")
    if verdict.spread is not None:
        out += ["", *spread_lines(verdict.spread)]
    if rc is not None:
        out += ["", f"root cause: {rc.file}:{rc.line}  {rc.text.strip()[:160]}"]
    return "\n".join(out)
