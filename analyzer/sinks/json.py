"""The JSON contract: exactly one object, `Verdict.to_dict()`, nothing else on stdout."""

from __future__ import annotations

import json

from ..types import Verdict


def render(verdict: Verdict) -> str:
    return json.dumps(verdict.to_dict(), ensure_ascii=False, indent=2)
