"""The readiness table as text: one row per recovery feature, its state and evidence."""

from __future__ import annotations

import json

from ..decide.readiness import Readiness
from . import text_width

_SCENARIO_ZH = {"single_node": "单机", "multi_node": "多机分布式", "large_model": "大模型长稳训练"}

_STATE = {
    "en": {"in_place": "in place", "missing": "MISSING", "cannot_tell": "cannot tell"},
    "zh": {"in_place": "已具备", "missing": "缺失", "cannot_tell": "无法判断"},
}
_NEED = {
    "en": {
        "required": "required",
        "recommended": "recommended",
        "optional": "optional",
        "not_needed": "-",
        "by_pool": "by resource pool",
    },
    "zh": {
        "required": "必选",
        "recommended": "推荐",
        "optional": "可选",
        "not_needed": "-",
        "by_pool": "视资源池能力",
    },
}


def render(r: Readiness, lang: str = "en") -> str:
    lang = "zh" if lang == "zh" else "en"
    if lang == "zh":
        how = "指定" if r.scenario_given else "推断：" + r.scenario_why
        ranks = f"{r.ranks} 个 rank" if r.ranks else "rank 数未知"
        head = f"场景：{_SCENARIO_ZH[r.scenario]}（{how}），{ranks}，{r.nodes} 个节点"
    else:
        how = "given" if r.scenario_given else "inferred: " + r.scenario_why
        ranks = f"{r.ranks} ranks" if r.ranks else "ranks unknown"
        head = f"scenario: {r.scenario} ({how}), {ranks}, {r.nodes} node(s)"
    out = [head, ""]
    width = max(text_width(row.name) for row in r.rows)
    for row in r.rows:
        state, need = _STATE[lang][row.state], _NEED[lang][row.need]
        out.append(f"  {_pad(row.name, width)}  {_pad(state, 12)} ({need})  {row.detail}")
        for line in row.evidence:
            out.append(f"      {line.file}:{line.line}  {line.text.strip()[:160]}")
    return "\n".join(out)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - text_width(text))


def render_json(r: Readiness) -> str:
    return json.dumps(r.to_dict(), ensure_ascii=False, indent=2)
