"""Root-cause candidates -> one Verdict: category, recovery, confidence, summary.

Ranking (documented in patterns/README.md): causes outrank symptoms outrank
confirmations; then fatal > error > warning; then the earliest time, file order where no
time is known. `info` findings are context and never decide. Teardown noise is kept out
of the top by the signatures' roles, not by special cases here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from .correlate import ROLE_RANK, SEVERITY_RANK, template
from .taxonomy import CATEGORIES, NONE, category_name
from .types import Finding, Hit, RootCause, Stats, Verdict

MAX_FINDINGS = 200

_BASE_CONFIDENCE = {
    "cause": {"fatal": 0.9, "error": 0.75, "warning": 0.55},
    "symptom": {"fatal": 0.6, "error": 0.5, "warning": 0.4},
    "confirmation": {"fatal": 0.4, "error": 0.35, "warning": 0.3},
}


def render_message(hit: Hit) -> str:
    caps = hit.captures
    try:
        return hit.signature.message.format_map(_Default(caps))
    except (ValueError, IndexError):
        return hit.signature.title


class _Default(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def _confidence(root: Hit, candidates: list[Hit]) -> float:
    sig = root.signature
    conf = _BASE_CONFIDENCE[sig.role][sig.severity]
    tier = (ROLE_RANK[sig.role], SEVERITY_RANK[sig.severity])
    rivals = {
        h.signature.category
        for h in candidates
        if (ROLE_RANK[h.signature.role], SEVERITY_RANK[h.signature.severity]) == tier
        and h.signature.category != sig.category
    }
    conf -= 0.1 * min(len(rivals), 3)
    support = sum(1 for h in candidates if h.signature.category == sig.category)
    if support >= 2:
        conf += 0.05
    if sig.category == "unknown":
        conf = min(conf, 0.3)
    return max(0.05, min(0.99, conf))


def _summary(root: Hit, findings: list[Finding], lang: str) -> str:
    sig = root.signature
    where = []
    if root.rank is not None:
        where.append(f"rank {root.rank}")
    if root.host:
        where.append(root.host)
    others = Counter(
        f.signature.category
        for f in findings
        if f.first is not root and f.signature.role != "cause"
        for _ in range(f.count)
    )
    n_other = sum(f.count for f in findings) - 1
    if lang == "zh":
        head = f"{category_name(sig.category, 'zh')}"
        loc = f"（{', '.join(where)}）" if where else ""
        tail = f"；另有 {n_other} 条相关日志" if n_other > 0 else ""
        return f"{head}{loc}：{render_message(root)}{tail}。"
    loc = f" on {', '.join(where)}" if where else ""
    tail = ""
    if n_other > 0:
        kinds = ", ".join(f"{k} x{v}" for k, v in others.most_common(3))
        tail = f"; {n_other} more matching lines" + (f" (secondary: {kinds})" if kinds else "")
    return f"{category_name(sig.category, 'en').capitalize()}{loc}: {render_message(root)}{tail}."


def deciding(candidates: list[Hit], counts: Mapping[str, int], completed: bool) -> list[Hit]:
    """The candidates allowed to decide the verdict.

    `info` lines are context. A signature with `min_count` decides only when it matched
    that often (one NaN gradient norm is a skipped fp16 step, a run of them divergence).
    Once a completion marker shows that the run (or its worker group) finished, only a
    cause can make it a failure: teardown and timeouts around a successful elastic
    restart are not one.
    """
    out = [
        h
        for h in candidates
        if h.signature.severity != "info" and counts.get(h.signature.id, 0) >= h.signature.min_count
    ]
    if completed:
        out = [h for h in out if h.signature.role == "cause"]
    return out


def decide(
    candidates: list[Hit],
    findings: list[Finding],
    stats: Stats,
    lang: str = "en",
    counts: Mapping[str, int] | None = None,
    completed: bool = False,
) -> Verdict:
    """Pick the root cause and map it to recovery per the taxonomy."""
    deciding_hits = deciding(candidates, counts or {}, completed)
    shown = tuple(findings[:MAX_FINDINGS])
    if not deciding_hits:
        summary = (
            ("未发现故障迹象。" if lang == "zh" else "No failure found in the logs.")
            if stats.lines
            else ("没有可读取的日志。" if lang == "zh" else "No log lines could be read.")
        )
        return Verdict(
            category=NONE,
            recovery=NONE,
            retryable=None,
            confidence=0.7 if stats.lines else 0.0,
            summary=summary,
            root_cause=None,
            findings=shown,
            stats=stats,
            decided_by="none",
        )
    root = deciding_hits[0]
    sig = root.signature
    cat = CATEGORIES[sig.category]
    recovery = sig.recovery or cat.recovery
    retryable = sig.retryable if sig.retryable_set else cat.retryable
    rc = RootCause(
        file=root.file,
        line=root.line,
        offset=root.offset,
        rank=root.rank,
        host=root.host,
        time=root.time.iso() if root.time else None,
        signature=sig.id,
        text=root.text,
        message=render_message(root),
        context=root.context,
        context_first_line=root.context_first_line,
    )
    key = (sig.id, template(root.text))
    root_first = [f for f in findings if (f.signature.id, template(f.first.text)) == key]
    rest = [f for f in findings if f not in root_first]
    ordered = tuple((root_first + rest)[:MAX_FINDINGS])
    return Verdict(
        category=sig.category,
        recovery=recovery,
        retryable=retryable,
        confidence=_confidence(root, deciding_hits),
        summary=_summary(root, findings, lang),
        root_cause=rc,
        findings=ordered,
        stats=stats,
        decided_by="signature",
    )
