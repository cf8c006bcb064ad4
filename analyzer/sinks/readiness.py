"""The readiness table as text: one row per recovery feature, its state and evidence."""

from __future__ import annotations

import json

from ..decide.readiness import Readiness
from . import text_width
from .prose import say


def render(r: Readiness, lang: str = "en") -> str:
    how = (
        say("readiness.given", lang)
        if r.scenario_given
        else say("scenario.inferred", lang, why=r.scenario_why)
    )
    ranks = say("scenario.ranks", lang, n=r.ranks) if r.ranks else say("scenario.no-ranks", lang)
    scenario = say(f"scenario.{r.scenario}", lang)
    head = say("scenario.head", lang, scenario=scenario, how=how, ranks=ranks, nodes=r.nodes)
    out = [head, ""]
    width = max(text_width(row.name) for row in r.rows)
    for row in r.rows:
        state, need = say(f"state.{row.state}", lang), say(f"need.{row.need}", lang)
        out.append(f"  {_pad(row.name, width)}  {_pad(state, 12)} ({need})  {row.detail}")
        for line in row.evidence:
            out.append(f"      {line.file}:{line.line}  {line.text.strip()[:160]}")
    return "\n".join(out)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - text_width(text))


def render_json(r: Readiness) -> str:
    return json.dumps(r.to_dict(), ensure_ascii=False, indent=2)
