"""The JSON contract: exactly one object, `Verdict.to_dict()`, nothing else on stdout."""

from __future__ import annotations

import json

from ..types import Verdict


def render(verdict: Verdict, lang: str = "en") -> str:
    """The verdict as JSON; the same in every language (the summary is in `lang` already)."""
    return json.dumps(verdict.to_dict(), ensure_ascii=False, indent=2)
