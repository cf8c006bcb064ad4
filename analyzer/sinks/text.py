"""The terminal report: headline, root-cause evidence with context, grouped findings.

Written for an engineer right after a failure: the answer first, then the line to look
at, then what else was seen (counted, never 800 copies), then what could not be read.
"""

from __future__ import annotations

import textwrap

import click

from ..decide.verdict import finding_kind
from ..ops.history import Attempt
from ..ops.policy import decide
from ..rules.signatures import section
from ..rules.taxonomy import category_name, recovery_meaning, recovery_name
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
        "decided": "decided by",
        "todo": "What to do",
        "then": "then",
        "cordon": "Cordon {hosts} and reschedule the job elsewhere.",
        "move": "Move the pod(s) on {hosts} to other nodes.",
        "resume": "Resume from {path} (step {step}; {lost} steps since it are lost).",
        "resume_bare": "Resume from {path}.",
        "no_ckpt": "The logs show no complete checkpoint: a restart begins at step 0.",
        "signature": "From {sig}",
        "controller": "A restart controller (`decide`, default policy) would {action}: {reason}.",
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
        "controller": "重启控制器（`decide`，默认策略）会 {action}：{reason}。",
        "ranks": "个 rank",
        "more": "条发现未显示",
        "explained": "由根因导致",
        "model": "分类模型",
        "unsure": "把握不足，未采用",
        "decided": "判定依据",
        "todo": "建议操作",
        "then": "其次",
        "cordon": "隔离 {hosts}，将作业重新调度到其他节点。",
        "move": "将 {hosts} 上的 Pod 迁移到其他节点。",
        "resume": "从 {path} 恢复（第 {step} 步；其后 {lost} 步需重算）。",
        "resume_bare": "从 {path} 恢复。",
        "no_ckpt": "日志中没有完整的检查点：重启将从第 0 步开始。",
        "signature": "签名 {sig} 的建议（英文）",
    },
}
_RETRY = {
    "en": {True: "yes", False: "no", None: "unknown"},
    "zh": {True: "是", False: "否", None: "未知"},
}
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


def _finding_line(f: Finding, lab: dict[str, str], kind: str, why: str = "") -> str:
    s = f.signature
    ranks = (
        f" {len(f.ranks)} {lab['ranks']}"
        if len(f.ranks) > 1
        else (f" rank {f.ranks[0]}" if f.ranks else "")
    )
    head = f"  {s.role:<12} {kind:<18} {s.id}  x{f.count}{ranks}  {f.first.file}:{f.first.line}"
    return head + why + "\n      " + click.style(_short(f.first.text), dim=True)


def _advice(verdict: Verdict, lab: dict[str, str], lang: str) -> list[str]:
    """What to do, last: the recovery, the hosts it acts on, the checkpoint a restart
    resumes from, then the root signature's own advice."""
    if verdict.category == "none":
        return []
    rec = verdict.recovery
    items = [f"{rec} ({recovery_name(rec, lang)}): {recovery_meaning(rec, lang)}"]
    decision = decide(Attempt.of(verdict))
    if decision.recovery != rec:  # one answer: say what a controller does and why
        action = f"{decision.action} ({decision.recovery}, exit {decision.exit_code})"
        items.insert(0, lab["controller"].format(action=action, reason=decision.reason))
    hosts = ", ".join(verdict.act_on.hosts)
    if hosts and rec == "isolate_and_reschedule":
        items.append(lab["cordon"].format(hosts=hosts))
    elif hosts and rec == "pod_reschedule":
        items.append(lab["move"].format(hosts=hosts))
    ck = verdict.checkpoint
    if rec in _RESTARTS:
        if ck is not None and ck.path and ck.step is not None and ck.steps_lost is not None:
            items.append(lab["resume"].format(path=ck.path, step=ck.step, lost=ck.steps_lost))
        elif ck is not None and ck.path:
            items.append(lab["resume_bare"].format(path=ck.path))
        elif verdict.progress:
            items.append(lab["no_ckpt"])
    wanted = verdict.root_cause.signature if verdict.root_cause else None
    sig = next((f.signature for f in verdict.findings if f.signature.id == wanted), None)
    advice = section(sig.description, "What to do") if sig is not None else ""
    if advice:
        items.append(f"{lab['signature'].format(sig=sig.id if sig else '')}: {advice}")
    wrap = textwrap.TextWrapper(width=_WRAP, initial_indent="  - ", subsequent_indent="    ")
    return ["", click.style(f"{lab['todo']}:", bold=True), *(wrap.fill(i) for i in items)]


def render(verdict: Verdict, lang: str = "en") -> str:
    lab = _LABELS[lang]
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
            f"{lab['conf']} {verdict.confidence:.2f}   "
            f"{lab['retry']}: {_RETRY[lang][verdict.retryable]}   "
            f"{lab['decided']}: {verdict.decided_by}"
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
        out += [f"  {line}" for line in spread_lines(verdict.spread, lang)]
    m = verdict.model
    if m is not None and not clean:  # no guess about a run in which nothing failed
        alts = ", ".join(f"{c} {p:.2f}" for c, p in m.alternatives)
        out.append("")
        out.append(
            click.style(f"{lab['model']}: ", bold=True)
            + f"{m.category} p={m.probability:.2f}"
            + ("" if m.decided else f" ({lab['unsure']})")
            + (f"; {lab['then']} {alts}" if alts else "")
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
            kind = finding_kind(f.signature.category, e is not None, lang)
            out.append(_finding_line(f, lab, kind, why))
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
    out += _advice(verdict, lab, lang)
    return "\n".join(out)
