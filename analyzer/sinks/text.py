"""The terminal report: headline, root-cause evidence with context, grouped findings.

Written for an engineer right after a failure: the answer first, then the line to look
at, then what else was seen (counted, never 800 copies), then what could not be read.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import click

from ..ops.history import Attempt
from ..ops.policy import decide
from ..rules.signatures import section
from ..types import Finding, Verdict
from .prose import category_name, finding_kind, recovery_meaning, recovery_name, say
from .timeline import spread_lines

# the labels of one language: label(key, **values)
Label = Callable[..., str]


def _labels(lang: str) -> Label:
    def label(key: str, **values: object) -> str:
        return say(f"label.{key}", lang, **values)

    return label


_RETRY = {True: "retry.yes", False: "retry.no", None: "retry.unknown"}
# recoveries that restart the job, which then resumes from the newest checkpoint
_RESTARTS = frozenset(
    {"checkpoint_resume", "auto_restart", "unconditional_restart", "hang_restart",
     "pod_reschedule", "isolate_and_reschedule"}
)  # fmt: skip
_SHOWN = 12
_WIDTH = 160
_WRAP = 96


def _short(text: str, width: int = _WIDTH) -> str:
    text = text.strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def _finding_line(f: Finding, lab: Label, kind: str, why: str = "") -> str:
    s = f.signature
    ranks = (
        f" {len(f.ranks)} {lab('ranks')}"
        if len(f.ranks) > 1
        else (f" rank {f.ranks[0]}" if f.ranks else "")
    )
    head = f"  {s.role:<12} {kind:<18} {s.id}  x{f.count}{ranks}  {f.first.file}:{f.first.line}"
    return head + why + "\n      " + click.style(_short(f.first.text), dim=True)


def _advice(verdict: Verdict, lab: Label, lang: str) -> list[str]:
    """What to do, last: the recovery, the hosts it acts on, the checkpoint a restart
    resumes from, then the root signature's own advice."""
    if verdict.category == "none":
        return []
    rec = verdict.recovery
    items = [f"{rec} ({recovery_name(rec, lang)}): {recovery_meaning(rec, lang)}"]
    decision = decide(Attempt.of(verdict))
    if decision.recovery != rec:  # one answer: say what a controller does and why
        action = f"{decision.action} ({decision.recovery}, exit {decision.exit_code})"
        items.insert(0, lab("controller", action=action, reason=decision.reason))
    hosts = ", ".join(verdict.act_on.hosts)
    if hosts and rec == "isolate_and_reschedule":
        items.append(lab("cordon", hosts=hosts))
    elif hosts and rec == "pod_reschedule":
        items.append(lab("move", hosts=hosts))
    ck = verdict.checkpoint
    if rec in _RESTARTS:
        if ck is not None and ck.path and ck.step is not None and ck.steps_lost is not None:
            items.append(lab("resume", path=ck.path, step=ck.step, lost=ck.steps_lost))
        elif ck is not None and ck.path:
            items.append(lab("resume_bare", path=ck.path))
        elif verdict.progress:
            items.append(lab("no_ckpt"))
    wanted = verdict.root_cause.signature if verdict.root_cause else None
    sig = next((f.signature for f in verdict.findings if f.signature.id == wanted), None)
    advice = section(sig.description, "What to do") if sig is not None else ""
    if advice:
        items.append(f"{lab('signature', sig=sig.id if sig else '')}: {advice}")
    wrap = textwrap.TextWrapper(width=_WRAP, initial_indent="  - ", subsequent_indent="    ")
    return ["", click.style(f"{lab('todo')}:", bold=True), *(wrap.fill(i) for i in items)]


def render(verdict: Verdict, lang: str = "en") -> str:
    lab = _labels(lang)
    out: list[str] = []
    clean = verdict.category == "none"
    colour = (
        "green" if clean else ("yellow" if verdict.category in ("unknown", "preempted") else "red")
    )
    head = (
        f"{verdict.category.upper()} ({category_name(verdict.category, lang)})"
        f"  ->  {verdict.recovery} ({recovery_name(verdict.recovery, lang)})"
    )
    out.append(click.style(head, fg=colour, bold=True))
    if not clean:  # a clean run has nothing to be confident about
        out.append(
            f"{lab('conf')} {verdict.confidence:.2f}   "
            f"{lab('retry')}: {say(_RETRY[verdict.retryable], lang)}   "
            f"{lab('decided')}: {verdict.decided_by}"
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
            click.style(f"{lab('root')}: ", bold=True)
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
        out += [f"  {line}" for line in spread_lines(verdict.spread, lang)]
    m = verdict.model
    if m is not None and not clean:  # no guess about a run in which nothing failed
        alts = ", ".join(f"{c} {p:.2f}" for c, p in m.alternatives)
        out.append("")
        out.append(
            click.style(f"{lab('model')}: ", bold=True)
            + f"{m.category} p={m.probability:.2f}"
            + ("" if m.decided else f" ({lab('unsure')})")
            + (f"; {lab('then')} {alts}" if alts else "")
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
            click.style(f"{lab('also')} ({len(others)} / {total} {lab('lines')}):", bold=True)
        )
        explained = {e.signature: e for e in verdict.explained}
        for f in others[:_SHOWN]:
            e = explained.get(f.signature.id)
            why = ""
            if e is not None:
                delay = f", {e.delay:+.0f}s" if e.delay is not None else ""
                why = click.style(f"  <- {lab('explained')} ({e.rule}{delay})", fg="cyan")
            kind = finding_kind(f.signature.category, e is not None, lang)
            out.append(_finding_line(f, lab, kind, why))
        if len(others) > _SHOWN:
            out.append(f"  ... {len(others) - _SHOWN} {lab('more')} (--format json)")
    st = verdict.stats
    out.append("")
    out.append(
        click.style(
            f"{lab('read')} {st.files} {lab('files')}, {st.lines:,} {lab('lines')}, "
            f"{st.bytes / 1e6:.1f} MB {lab('in')} {st.seconds:.2f}s ({st.engine})",
            dim=True,
        )
    )
    if st.unreadable:
        out.append(click.style(f"{lab('unreadable')}: " + ", ".join(st.unreadable), fg="yellow"))
    if st.skipped:
        out.append(
            f"{lab('skipped')}: "
            + ", ".join(st.skipped[:10])
            + (" ..." if len(st.skipped) > 10 else "")
        )
    for note in st.notes[:10]:
        if not note.endswith(("not a log", "not a regular file")):
            out.append(click.style(f"  {note}", fg="yellow"))
    out += _advice(verdict, lab, lang)
    return "\n".join(out)
