"""Variable parts of a log line -> placeholders, for learning and for templates.

Two lines of one failure differ in ranks, sizes, addresses, paths and times; a
classifier that learns `GPU 3` or `/home/alice` learns the incident, not the failure,
and a template miner would see a thousand templates where there is one. Masking keeps
the words a framework always prints and replaces what changes from run to run.
"""

from __future__ import annotations

import re

# Order matters: wider forms first, so a path's digits are not masked one by one.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\b"), "<ID>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?"), "<PATH>"),
    (re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:py|cc|cpp|c|h|so|go|rs)\b(?::\d+)?"), "<FILE>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<IP>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<HEX>"),
    # bare hex ids (commit hashes, comm ids): six or more hex digits with a digit and a
    # letter, so that words (`added`) and names (`bf16`, `A100`) stay
    (re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{6,}\b"), "<HEX>"),
    (re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"), "<NUM>"),
)
_SPACE = re.compile(r"\s+")
# A framework's list of what might have caused an error, printed after it (Ray's "There
# are some potential root causes. (1) The process is killed by SIGKILL by OOM killer
# ...", newer Rays "Some common causes include: (1) the process was killed by the OOM
# killer"): guesses, not what happened; read, they made a dead actor a host OOM (b5
# first look gpu-09, b6 gpu-13)
_GUESSES = re.compile(
    r"\s(?:There (?:are|is) )?(?:some |the )?(?:most )?(?:common|possible|potential|likely|"
    r"typical) (?:root )?(?:causes?|reasons?)\b.*",
    re.DOTALL | re.IGNORECASE,
)
_KEPT = 400  # characters kept per masked line: the head of a line says what it is


def mask(message: str) -> str:
    """A line's message (analyzer.read.lines.message_of: prefixes, ANSI and redraws
    gone) -> its variable parts masked, and the guesses it lists after the error cut."""
    text = _GUESSES.sub("", message[:2000])
    for rx, repl in _RULES:
        text = rx.sub(repl, text)
    return _SPACE.sub(" ", text).strip()[:_KEPT]
