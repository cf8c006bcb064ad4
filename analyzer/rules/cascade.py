"""Cascade rules (patterns/cascades/cascades.yaml): which symptoms a root cause explains.

Data, not code, so that users can teach the engine their own cascades (a
cascades.yaml in a folder passed with --patterns adds rules). A finding is explained
by the root cause when a rule fits both and the finding's delay after the root cause
lies within the rule's window.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..types import Explained, Finding, Hit, PatternError
from .taxonomy import CATEGORIES
from .yamlfile import YamlError, load_file, rule_files


@dataclass(frozen=True)
class Selector:
    categories: frozenset[str]
    signatures: frozenset[str]

    def fits(self, category: str, signature: str) -> bool:
        if not self.categories and not self.signatures:
            return True
        return category in self.categories or signature in self.signatures


@dataclass(frozen=True)
class Rule:
    id: str
    why: str
    cause: Selector
    symptom: Selector
    min_delay: float
    max_delay: float


def _selector(value: Any, where: str) -> Selector:
    if not isinstance(value, dict) or set(value) - {"categories", "signatures"}:
        raise PatternError(f"{where}: must be a mapping with 'categories' and/or 'signatures'")
    lists = {k: value.get(k) or [] for k in ("categories", "signatures")}
    for k, v in lists.items():
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise PatternError(f"{where}: {k}: must be a list of ids")
    cats = frozenset(lists["categories"])
    unknown = cats - set(CATEGORIES)
    if unknown:
        raise PatternError(f"{where}: categories: not taxonomy ids: {', '.join(sorted(unknown))}")
    return Selector(cats, frozenset(lists["signatures"]))


def _load_file(path: Path) -> list[Rule]:
    try:
        doc = load_file(path) or {}
    except YamlError as e:
        raise PatternError(f"cannot read cascade rules: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("cascades") or [], list):
        raise PatternError(f"{path}: a cascades file is a mapping with a list 'cascades'")
    rules = []
    for i, d in enumerate(doc.get("cascades") or []):
        where = f"{path}: {d.get('id', f'cascades[{i}]') if isinstance(d, dict) else i}"
        if not isinstance(d, dict) or not isinstance(d.get("id"), str):
            raise PatternError(f"{where}: id: missing")
        extra = set(d) - {"id", "why", "cause", "symptom", "min_delay", "max_delay"}
        if extra:
            raise PatternError(f"{where}: {', '.join(sorted(extra))}: unknown field")
        try:
            lo, hi = float(d.get("min_delay", 0)), float(d.get("max_delay", 86400))
        except (TypeError, ValueError):
            raise PatternError(f"{where}: min_delay/max_delay: must be numbers") from None
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise PatternError(f"{where}: min_delay/max_delay: finite, min <= max")
        rules.append(
            Rule(
                id=d["id"],
                why=str(d.get("why", "")),
                cause=_selector(d.get("cause", {}), f"{where}: cause"),
                symptom=_selector(d.get("symptom", {}), f"{where}: symptom"),
                min_delay=lo,
                max_delay=hi,
            )
        )
    return rules


def load_rules(builtin: bool, extra: Sequence[str | os.PathLike[str]] = ()) -> tuple[Rule, ...]:
    """The built-in rules (when `builtin`), then those of each extra folder's cascade
    files (analyzer.rules.yamlfile tells them by place)."""
    files = rule_files("cascades", builtin, [os.fspath(p) for p in extra])
    return tuple(r for f in files for r in _load_file(f))


def explain(
    category: str, root: Hit, findings: Sequence[Finding], rules: Sequence[Rule]
) -> list[Explained]:
    """The findings that the root cause (`root`, of `category`) accounts for, each with
    the first rule that fits it."""
    out = []
    for f in findings:
        first = f.first
        if f.signature is root.signature and first.text == root.text:
            continue
        delay = None
        if root.time and first.time and root.time.absolute and first.time.absolute:
            delay = first.time.epoch - root.time.epoch
        for rule in rules:
            if not rule.cause.fits(category, root.signature.id):
                continue
            if not rule.symptom.fits(first.signature.category, first.signature.id):
                continue
            if delay is not None and not rule.min_delay <= delay <= rule.max_delay:
                continue
            out.append(
                Explained(
                    signature=f.signature.id,
                    category=f.signature.category,
                    count=f.count,
                    ranks=len(f.ranks),
                    rule=rule.id,
                    delay=delay,
                )
            )
            break
    return out
