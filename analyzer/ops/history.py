"""Earlier attempts of the same job: the strongest evidence that a restart will not help.

A restart that fails with the same root cause and no training progress in between will
fail again: the failure is in the job, not in luck. A host named by the root cause of
several attempts is bad hardware, whatever each verdict alone said. The history comes
from verdict JSON lines (`--history verdicts.jsonl`, one per attempt, oldest first) or
from the logs of `attempt_N/` folders, each analysed on its own.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..job.model import cordonable
from ..sinks.prose import say
from ..types import AnalyzerError, Verdict

_ATTEMPT = re.compile(r"^attempt[_-]?(\d+)$")


@dataclass(frozen=True)
class Attempt:
    category: str
    recovery: str
    signature: str | None = None
    host: str | None = None
    last_step: int | None = None  # the furthest step any rank reached
    confidence: float = 1.0  # the verdict's; a line of history without one counts as sure

    @classmethod
    def of(cls, verdict: Verdict | Mapping[str, Any]) -> Attempt:
        d = verdict.to_dict() if isinstance(verdict, Verdict) else verdict
        rc = d.get("root_cause") or {}
        # the host the verdict points at (`act_on`), not the root line's writer: a
        # survivor that reported losing its peer is no suspect (older lines: the root's)
        act_on = d.get("act_on")
        if isinstance(act_on, Mapping) and isinstance(act_on.get("hosts"), list):
            host = next((h for h in act_on["hosts"] if isinstance(h, str)), None)
        else:
            host = rc.get("host")
        steps = [p["last_step"] for p in d.get("progress") or [] if p.get("last_step") is not None]
        return cls(
            str(d.get("category", "unknown")),
            str(d.get("recovery", "unconditional_restart")),
            rc.get("signature"),
            host,
            max(steps) if steps else None,
            float(d["confidence"]) if isinstance(d.get("confidence"), int | float) else 1.0,
        )


# the end of a history file that is read: a job's attempts take a few KB each
MAX_HISTORY_BYTES = 16 << 20


def load_history(path: str | Path, notes: list[str] | None = None) -> list[Attempt]:
    """Verdict JSON objects, one per line, oldest first (blank lines ignored); a line of
    `decide --format json` output counts by its verdict.

    A line that is no verdict (torn by a writer that died mid-line, binary, nested past
    any verdict's depth) is skipped and said in `notes`: one bad line must not stop a
    restart controller. Of a file larger than MAX_HISTORY_BYTES the end is read (the
    latest attempts). A file that cannot be read at all is an AnalyzerError."""
    notes = notes if notes is not None else []
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - MAX_HISTORY_BYTES))
            data = f.read(MAX_HISTORY_BYTES)
    except OSError as e:
        raise AnalyzerError(f"{path}: cannot read history: {e.strerror or e}") from None
    lines = data.split(b"\n")
    if size > MAX_HISTORY_BYTES:
        lines = lines[1:]  # the first is the rest of a line that began before the end
        notes.append(f"{path}: only its last {MAX_HISTORY_BYTES:,} bytes were read")
    out = []
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
            out.append(Attempt.of(obj.get("verdict", obj)))
        except (ValueError, TypeError, AttributeError, RecursionError) as e:
            notes.append(f"{path}:{n}: skipped, not a verdict JSON object ({type(e).__name__})")
    return out


def attempt_dirs(root: str | Path) -> list[Path]:
    """The `attempt_N` folders directly under `root`, in attempt order."""
    try:
        found = [
            (int(m.group(1)), p)
            for p in Path(root).iterdir()
            if p.is_dir() and (m := _ATTEMPT.match(p.name))
        ]
    except OSError:
        return []
    return [p for _, p in sorted(found)]


def sticky(current: Attempt, history: Sequence[Attempt]) -> str | None:
    """Why restarting again is pointless, or None: the previous attempt failed the same
    way (same signature, or same category when no signature decided) and this one got
    no further in training."""
    if not history:
        return None
    prev = history[-1]
    if prev.category != current.category or prev.signature != current.signature:
        return None
    if current.last_step is not None and (
        prev.last_step is None or current.last_step > prev.last_step
    ):
        return None  # it trained further before failing: the restart helped
    what = current.signature or current.category
    steps = (
        say("policy.sticky.no-step", "en")
        if current.last_step is None
        else say("policy.sticky.step", "en", step=current.last_step)
    )
    return say("policy.sticky", "en", what=what, steps=steps)


def lemon_hosts(attempts: Sequence[Attempt]) -> tuple[str, ...]:
    """Hosts named by the root cause of two or more failed attempts."""
    counts = Counter(
        a.host for a in attempts if a.host and cordonable(a.host) and a.category != "none"
    )
    return tuple(sorted(h for h, n in counts.items() if n >= 2))
