"""Where a verdict goes: the terminal (text, a timeline) or a program (JSON).

`SINKS` is the registry the CLI's `--format` choices read: adding an output is one
module with `render(verdict, lang) -> str` and one entry here. Sinks are imported only
when chosen, so a controller that asks for JSON never loads the text renderer.
"""

from __future__ import annotations

import importlib
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..types import Verdict


@dataclass(frozen=True)
class Sink:
    """One output of a verdict. `module` (under analyzer.sinks) renders it; `notes_apart`:
    the output is one document a program parses, so the reading's notes go to stderr."""

    name: str
    module: str
    notes_apart: bool = False

    def render(self, verdict: Verdict, lang: str = "en") -> str:
        rendered: str = importlib.import_module(f"{__name__}.{self.module}").render(verdict, lang)
        return rendered


SINKS: dict[str, Sink] = {
    s.name: s
    for s in (
        Sink("text", "text"),
        Sink("json", "json", notes_apart=True),
        Sink("timeline", "timeline"),
    )
}


def text_width(text: str) -> int:
    """Terminal columns a text takes: a CJK character takes two (the Chinese reports
    line up only when padded by this, not by len)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
