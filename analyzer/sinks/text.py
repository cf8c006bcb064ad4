"""The terminal report: headline, root-cause evidence with context, grouped findings.

Written for an engineer right after a failure: the answer first, then the line to look
at, then what else was seen (counted, never 800 copies), then what could not be read.
"""

from __future__ import annotations

import click

from ..taxonomy import category_name, recovery_name
from ..types import Finding, Verdict
from .timeline import spread_lines

_LABELS = {
    "en": {
        "root": "Root cause",
        "also": "Also found",
        "read": "Read",
        "files": "files",
        "lines": "lines",
        "in": "in",
        "unreadable": "Could not read",
        "skipped": "Skipped",
        "notes": "Notes",
        "retry": "retryable",
        "conf": "confidence",
        "none": "no finding",
        "ranks": "ranks",
        "more": "more findings not shown",
        "explained": "explained",
        "model": "Classifier",
        "unsure": "not sure enough to decide",
    },
    "zh": {
        "root": "根因",
        "also": "其他发现",
        "read": "已读取",
        "files": "个文件",
        "lines": "行",
        "in": "用时",
        "unreadable": "无法读取",
        "skipped": "已跳过",
        "notes": "说明",
        "retry": "可重试",
        "conf": "置信度",
        "none": "无发现",
        "ranks": "个 rank",
        "more": "条发现未显示",
        "explained": "由根因导致",
        "model": "分类模型",
        "unsure": "把握不足，未采用",
    },
}
_RETRY = {True: "yes", False: "no", None: "unknown"}
_SHOWN = 12
_WIDTH = 160


def _short(text: str, width: int = _WIDTH) -> str:
    text = text.strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def _finding_line(f: Finding, lab: dict[str, str], why: str = "") -> str:
    s = f.signature
    ranks = (
        f" {len(f.ranks)} {lab['ranks']}"
        if len(f.ranks) > 1
        else (f" rank {f.ranks[0]}" if f.ranks else "")
    )
    head = (
        f"  {s.role:<12} {s.category:<18} {s.id}  x{f.count}{ranks}  {f.first.file}:{f.first.line}"
    )
    return head + why + "\n      " + click.style(_short(f.first.text), dim=True)


def render(verdict: Verdict, lang: str = "en") -> str:
    lab = _LABELS[lang]
    out: list[str] = []
    colour = (
        "green"
        if verdict.category == "none"
        else ("yellow" if verdict.category in ("unknown", "preempted") else "red")
    )
    head = (
        f"{verdict.category.upper()} ({category_name(verdict.category, lang)})"
        f"  ->  {verdict.recovery} ({recovery_name(verdict.recovery, lang)})"
    )
    out.append(click.style(head, fg=colour, bold=True))
    out.append(
        f"{lab['conf']} {verdict.confidence:.2f}   {lab['retry']}: {_RETRY[verdict.retryable]}"
        f"   decided by: {verdict.decided_by}"
    )
    out.append(verdict.summary)
    rc = verdict.root_cause
    if rc:
        where = [f"{rc.file}:{rc.line}"]
        if rc.rank is not None:
            where.append(f"rank {rc.rank}")
        if rc.host:
            where.append(f"host {rc.host}")
        if rc.time:
            where.append(rc.time)
        out.append("")
        out.append(
            click.style(f"{lab['root']}: ", bold=True)
            + "  ".join(where)
            + f"  [{rc.signature or verdict.decided_by}]"
        )
        width = len(str(rc.context_first_line + len(rc.context)))
        for i, text in enumerate(rc.context or (rc.text,)):
            n = rc.context_first_line + i
            mark = ">" if n == rc.line else " "
            line = f" {mark} {n:>{width}} | {_short(text, 200)}"
            out.append(click.style(line, bold=True) if n == rc.line else line)
    if verdict.spread is not None:
        out.append("")
        out += [f"  {line}" for line in spread_lines(verdict.spread)]
    m = verdict.model
    if m is not None:
        alts = ", ".join(f"{c} {p:.2f}" for c, p in m.alternatives)
        out.append("")
        out.append(
            click.style(f"{lab['model']}: ", bold=True)
            + f"{m.category} p={m.probability:.2f}"
            + ("" if m.decided else f" ({lab['unsure']})")
            + (f"; then {alts}" if alts else "")
        )
    others = [
        f
        for f in verdict.findings
        if not (rc and f.first.text == rc.text and f.signature.id == rc.signature)
    ]
    if others:
        total = sum(f.count for f in others)
        out.append("")
        out.append(
            click.style(f"{lab['also']} ({len(others)} / {total} {lab['lines']}):", bold=True)
        )
        explained = {e.signature: e for e in verdict.explained}
        for f in others[:_SHOWN]:
            e = explained.get(f.signature.id)
            why = ""
            if e is not None:
                delay = f", {e.delay:+.0f}s" if e.delay is not None else ""
                why = click.style(f"  <- {lab['explained']} ({e.rule}{delay})", fg="cyan")
            out.append(_finding_line(f, lab, why))
        if len(others) > _SHOWN:
            out.append(f"  ... {len(others) - _SHOWN} {lab['more']} (--format json)")
    st = verdict.stats
    out.append("")
    out.append(
        click.style(
            f"{lab['read']} {st.files} {lab['files']}, {st.lines:,} {lab['lines']}, "
            f"{st.bytes / 1e6:.1f} MB {lab['in']} {st.seconds:.2f}s ({st.engine})",
            dim=True,
        )
    )
    if st.unreadable:
        out.append(click.style(f"{lab['unreadable']}: " + ", ".join(st.unreadable), fg="yellow"))
    if st.skipped:
        out.append(
            f"{lab['skipped']}: "
            + ", ".join(st.skipped[:10])
            + (" ..." if len(st.skipped) > 10 else "")
        )
    for note in st.notes[:10]:
        if not note.endswith(("not a log", "not a regular file")):
            out.append(click.style(f"  {note}", fg="yellow"))
    return "\n".join(out)
