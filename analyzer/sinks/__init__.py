"""Where a verdict goes: the terminal (text) or a program (JSON)."""

from __future__ import annotations

import unicodedata


def text_width(text: str) -> int:
    """Terminal columns a text takes: a CJK character takes two (the Chinese reports
    line up only when padded by this, not by len)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
