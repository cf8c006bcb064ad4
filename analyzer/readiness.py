"""HA readiness: whether a job is set up so that the platform's recovery can work, read
from the logs of its run (`ha-analyze readiness`).

Training platforms recommend high-availability settings per job scenario (single node,
multi-node, long-running large model); recovery fails when they are missing: a restart
from step 0 because no checkpoint was complete, a checkpoint on a node-local disk the
rescheduled job cannot see, a script that crashes on restart because its output folder
exists, a 30-minute collective timeout that makes every hang cost 30 minutes. One row per
recovery feature of the taxonomy: what the logs show (the evidence line), and a state:
`in_place`, `missing`, or `cannot_tell`. Many of the lines are hidden at default log
levels (torchrun's launch config needs LOGLEVEL=INFO, HF Trainer's saves INFO): a line
that is not there is `cannot_tell`, never `missing`, unless the logs show the framework
that always prints it. corpora/readiness/FORMATS.md lists the formats and their sources.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from .correlate import Evidence
from .job import path_attempt
from .timeline import checkpoint_step
from .types import Hit, Stats
from .verdict import render_message

SCHEMA = "ha-analyze/readiness/1"
Scenario = Literal["single_node", "multi_node", "large_model"]
SCENARIOS: tuple[Scenario, ...] = ("single_node", "multi_node", "large_model")
State = Literal["in_place", "missing", "cannot_tell"]
Need = Literal["required", "recommended", "optional", "not_needed", "by_pool"]

# The platform's table (issue 21): what each scenario needs of each feature.
FEATURES: tuple[str, ...] = (
    "checkpoint_resume",
    "auto_restart",
    "unconditional_restart",
    "hang_detection",
    "operator_retry",
    "rescheduling",
    "failure_analysis",
)
_NEEDS: dict[str, tuple[Need, Need, Need]] = {
    "checkpoint_resume": ("recommended", "required", "required"),
    "auto_restart": ("recommended", "recommended", "required"),
    "unconditional_restart": ("not_needed", "recommended", "recommended"),
    "hang_detection": ("optional", "recommended", "recommended"),
    "operator_retry": ("not_needed", "not_needed", "recommended"),
    "rescheduling": ("not_needed", "by_pool", "by_pool"),
    "failure_analysis": ("recommended", "recommended", "required"),
}
NAMES = {
    "en": {
        "checkpoint_resume": "checkpoint resume",
        "auto_restart": "auto restart",
        "unconditional_restart": "unconditional restart",
        "hang_detection": "hang detection / hang restart",
        "operator_retry": "operator re-execution",
        "rescheduling": "pod rescheduling / isolate and reschedule",
        "failure_analysis": "log failure analysis",
    },
    "zh": {
        "checkpoint_resume": "断点续训练",
        "auto_restart": "自动重启",
        "unconditional_restart": "无条件自动重启",
        "hang_detection": "作业卡死检测 / 卡死重启",
        "operator_retry": "算子重执行",
        "rescheduling": "Pod重调度 / 隔离式Job重调度",
        "failure_analysis": "日志故障分析",
    },
}

# Scenario thresholds, when the caller names none: a job of two nodes or more is
# multi-node; one of 10B parameters or more, or multi-node and running three days or
# longer, a long-running large-model job.
_LARGE_PARAMS = 10e9
_LONG_RUN_S = 3 * 86400

# Where a checkpoint path lives (corpora/readiness/FORMATS.md section 7): object stores
# and cluster filesystems are shared; a node's own disks are not; a relative path is the
# job's working folder, wherever that is.
_SHARED = re.compile(
    r"^(?:s3|obs|gs|hdfs|oss|abfss?|az)://|^/(?:lustre|fsx|gpfs|nfs|mnt/nfs|mnt/sfs\w*|"
    r"sfs\w*|mnt/lustre|mnt/gpfs|mnt/fsx|shared|mnt/shared|opt/ml/checkpoints)(?:/|$)",
    re.IGNORECASE,
)
_LOCAL = re.compile(
    r"^/(?:tmp|dev/shm|root|cache|local_disk\d*|mnt/localssd|mnt/local\w*|nvme\w*|"
    r"opt/dlami/nvme|opt/sagemaker|scratch/local|localdisk\w*)(?:/|$)",
    re.IGNORECASE,
)
# frameworks whose checkpoint saves are printed at default log levels: their step lines
# without a save line mean no save (torchtitan, Megatron, DeepSpeed, Lightning)
_SAVES_ALWAYS_PRINTED = frozenset({"megatron", "deepspeed", "lightning", "torchtitan"})
# a collective timeout longer than this makes every hang cost more than half an hour
_LONG_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class Line:
    """A line of the logs that a row rests on."""

    file: str
    line: int
    text: str

    @staticmethod
    def of(hit: Hit) -> Line:
        return Line(hit.file, hit.line, hit.text)


@dataclass(frozen=True)
class Row:
    """One recovery feature: what the scenario needs, what the logs show."""

    feature: str
    name: str  # as the platform names it, in the report's language
    need: Need
    state: State
    detail: str
    evidence: tuple[Line, ...] = ()


@dataclass(frozen=True)
class Readiness:
    """Every row of the table for one job, and the scenario they were judged for."""

    scenario: Scenario
    scenario_given: bool
    scenario_why: str
    rows: tuple[Row, ...]
    ranks: int
    nodes: int
    schema: str = SCHEMA

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def row(self, feature: str) -> Row:
        return next(r for r in self.rows if r.feature == feature)


def assess(
    ev: Evidence, stats: Stats, scenario: Scenario | None = None, lang: str = "en"
) -> Readiness:
    """The readiness table of one job's evidence (analyzer.analysis.Analyzer.evidence)."""
    seen = {p.rank for p in ev.progress if p.rank is not None} | set(ev.job.rank_host)
    ranks = max(ev.job.world, len(seen))
    hosts = set(ev.job.rank_host.values())
    nodes = max(len(hosts), 2 if ev.job.multi_node else 1)
    given = scenario is not None
    settings = _by_kind(ev.settings)
    chosen, why = (
        (scenario, "given") if scenario is not None else _infer(ev, settings, ranks, nodes)
    )
    k = SCENARIOS.index(chosen)
    rows = [
        _checkpoint_row(ev, settings, chosen),
        _restart_row(ev, settings),
        _row(
            "unconditional_restart",
            "cannot_tell",
            "a platform setting: the job's logs do not show it",
        ),
        _hang_row(ev, settings),
        _retry_row(ev, settings),
        _row(
            "rescheduling",
            "cannot_tell",
            "a resource-pool capability: the job's logs do not show it",
        ),
        _row(
            "failure_analysis",
            "in_place" if stats.lines else "missing",
            f"{stats.files} files, {stats.lines:,} lines of the job's logs were read"
            if stats.lines
            else "no log line of the job could be read",
        ),
    ]
    names = NAMES["zh" if lang == "zh" else "en"]
    out = tuple(
        Row(r.feature, names[r.feature], _NEEDS[r.feature][k], r.state, r.detail, r.evidence)
        for r in rows
    )
    return Readiness(chosen, given, why, out, ranks, nodes)


def _infer(
    ev: Evidence, settings: dict[str, list[Hit]], ranks: int, nodes: int
) -> tuple[Scenario, str]:
    """The scenario the logs show: the model's size, the nodes, the run's length."""
    params = _parameters(settings.get("model_size", []))
    if params is not None and params >= _LARGE_PARAMS:
        return "large_model", f"{params / 1e9:.1f}B parameters"
    span = _span(ev)
    if nodes >= 2 and span is not None and span >= _LONG_RUN_S:
        return "large_model", f"{nodes} nodes for {span / 86400:.1f} days"
    if nodes >= 2:
        return "multi_node", f"{nodes} nodes, {ranks} ranks"
    return "single_node", f"{nodes or 1} node, {ranks} ranks"


def _parameters(lines: Sequence[Hit]) -> float | None:
    """The model's parameter count: the largest a trainer prints, or Megatron's count
    per (tensor, pipeline) shard summed over the shards."""
    whole: list[int] = []
    shards: dict[tuple[str, str], int] = {}
    for h in lines:
        n = int(h.captures.get("parameters", "").replace(",", "") or 0)
        if "tp" in h.captures:
            key = (h.captures["tp"], h.captures.get("pp", "0"))
            shards[key] = max(shards.get(key, 0), n)
        else:
            whole.append(n)
    total = max([*whole, sum(shards.values())])
    return float(total) if total else None


def _span(ev: Evidence) -> float | None:
    """Seconds from the first timed step to the last progress of any stream."""
    starts = [t for st in ev.timeline.streams.values() for t in st.marks.values()]
    ends = [
        st.last.time.epoch
        for st in ev.timeline.streams.values()
        if st.last is not None and st.last.time is not None and st.last.time.absolute
    ]
    return max(ends) - min(starts) if starts and ends else None


def _by_kind(settings: Sequence[Hit]) -> dict[str, list[Hit]]:
    out: dict[str, list[Hit]] = {}
    for h in settings:
        if h.signature.setting is not None:
            out.setdefault(h.signature.setting, []).append(h)
    return out


def _lines(hits: Sequence[Hit]) -> tuple[Line, ...]:
    """The evidence of a row, each line once."""
    return tuple(dict.fromkeys(Line.of(h) for h in hits))


def _row(feature: str, state: State, detail: str, evidence: tuple[Line, ...] = ()) -> Row:
    """A row as a rule finds it; its name and need are the table's (`assess`)."""
    return Row(feature, feature, "not_needed", state, detail, evidence)


def where(path: str) -> Literal["shared", "local", "unknown"]:
    """Whether a checkpoint path is on storage a rescheduled job can see."""
    if _SHARED.search(path):
        return "shared"
    if _LOCAL.search(path):
        return "local"
    return "unknown"


def _checkpoint_row(ev: Evidence, settings: dict[str, list[Hit]], scenario: Scenario) -> Row:
    saves = [h for h in ev.timeline.saves if h.signature.progress != "checkpoint_load"]
    loads = [h for h in ev.timeline.saves if h.signature.progress == "checkpoint_load"]
    broken = settings.get("not_reentrant", [])
    if broken:
        return _row(
            "checkpoint_resume",
            "missing",
            "the script fails when it starts again: " + broken[0].text[:200],
            tuple(Line.of(h) for h in broken[:3]),
        )
    if not saves:
        families = {
            h.signature.family for s in ev.timeline.streams.values() for h in (s.last,) if h
        }
        printed = families & _SAVES_ALWAYS_PRINTED
        if printed and ev.timeline.streams:
            return _row(
                "checkpoint_resume",
                "missing",
                f"{', '.join(sorted(printed))} steps and no checkpoint saved",
            )
        return _row(
            "checkpoint_resume",
            "cannot_tell",
            "no checkpoint save in the logs (saves may be logged below the level kept)",
        )
    paths = [p for p in (h.captures.get("path") for h in saves) if p]
    places = {where(p) for p in paths}
    cadence = _cadence(saves)
    what = sorted({h.captures.get("what", "") for h in settings.get("saved_state", [])} - {""})
    # one save is logged by every rank, and in a console copy too
    distinct = {checkpoint_step(h) or h.captures.get("path") or h.text for h in saves}
    parts = [f"{len(distinct)} checkpoint save(s)"]
    parts += [cadence] if cadence else []
    parts += [f"saved: {', '.join(what)}"] if what else []
    if loads:
        parts.append(f"resumed: {loads[-1].text.strip()[:120]}")
    fresh = settings.get("fresh_start", [])
    if fresh:
        parts.append("a later start loaded no checkpoint")
    evidence = _lines([saves[0], saves[-1], *loads[-1:], *fresh[:1]])
    if "local" in places and scenario != "single_node":
        local = next(p for p in paths if where(p) == "local")
        return _row(
            "checkpoint_resume",
            "missing",
            f"checkpoints on a node-local path ({local}): a rescheduled job cannot "
            "see them; " + "; ".join(parts),
            evidence,
        )
    if fresh and not loads:
        return _row("checkpoint_resume", "missing", "; ".join(parts), evidence)
    if (places <= {"shared"} and paths) or scenario == "single_node":
        return _row("checkpoint_resume", "in_place", "; ".join(parts), evidence)
    return _row(
        "checkpoint_resume",
        "cannot_tell",
        "saves seen, but not whether their path is on shared storage: " + "; ".join(parts),
        evidence,
    )


def _cadence(saves: list[Hit]) -> str:
    """The median interval between distinct saves, in steps and in time."""
    first: dict[int, float | None] = {}
    for h in saves:
        step = checkpoint_step(h)
        if step is not None:
            when = h.time.epoch if h.time is not None and h.time.absolute else None
            held = first.get(step)
            first[step] = when if held is None else min(held, when or held)
    steps = sorted(first)
    times = sorted(t for t in first.values() if t is not None)
    out = []
    if len(steps) >= 2:
        gaps = sorted(b - a for a, b in itertools.pairwise(steps))
        out.append(f"every {gaps[len(gaps) // 2]} steps")
    if len(times) >= 2:
        spans = sorted(b - a for a, b in itertools.pairwise(times))
        secs = spans[len(spans) // 2]
        out.append(f"every {secs / 60:.1f} min" if secs >= 60 else f"every {secs:.0f} s")
    return ", ".join(out)


def _restart_row(ev: Evidence, settings: dict[str, list[Hit]]) -> Row:
    restarted = settings.get("restarted", [])
    allowed = settings.get("restarts_allowed", [])
    if restarted:
        return _row("auto_restart", "in_place", render_message(restarted[0]), _lines(restarted[:2]))
    later = sorted({a for a in map(path_attempt, ev.job.names.values()) if a})
    if later:
        attempts = ", ".join(map(str, later))
        return _row("auto_restart", "in_place", f"the logs hold restarted attempts ({attempts})")
    values = [int(v) for v in (h.captures.get("value", "") for h in allowed) if v.isdigit()]
    if values:
        shown = _lines(allowed[:2])
        if max(values) > 0:
            budget = f"the launcher allows {max(values)} restart(s)"
            return _row("auto_restart", "in_place", budget, shown)
        none = "the launcher allows no restart (max_restarts 0)"
        return _row("auto_restart", "missing", none, shown)
    return _row(
        "auto_restart",
        "cannot_tell",
        "no restart setting in the logs (torchrun prints its launch config at "
        "LOGLEVEL=INFO); a platform's restart is not in the job's logs",
    )


def _seconds(h: Hit) -> float | None:
    caps = h.captures
    for key, scale in (("timeout_ms", 1e-3), ("ms", 1e-3), ("s", 1.0), ("minutes", 60.0)):
        raw = caps.get(key, "")
        if raw.isdigit():
            return int(raw) * scale
    return None


def _hang_row(ev: Evidence, settings: dict[str, list[Hit]]) -> Row:
    timed = [h for h in settings.get("collective_timeout", []) if _seconds(h) is not None]
    # a collective timeout the logs report states the timeout in force
    timed += [h for h in ev.candidates if h.captures.get("timeout_ms", "").isdigit()][:4]
    if not timed:
        return _row(
            "hang_detection", "cannot_tell", "no collective timeout or watchdog setting in the logs"
        )
    longest = max(timed, key=lambda h: _seconds(h) or 0.0)
    secs = _seconds(longest) or 0.0
    evidence = (Line.of(longest),)
    if secs > _LONG_TIMEOUT_S:
        return _row(
            "hang_detection",
            "missing",
            f"collective timeout {secs / 60:.0f} min: a hang costs that long before "
            "anything notices (lower the timeout, or let the platform detect hangs "
            "from the logs)",
            evidence,
        )
    return _row("hang_detection", "in_place", f"collective timeout {secs / 60:.1f} min", evidence)


def _retry_row(ev: Evidence, settings: dict[str, list[Hit]]) -> Row:
    retry = settings.get("op_retry", [])
    if not retry:
        why = "no HCCL_OP_RETRY_ENABLE in the logs (CANN prints it to run/plog at INFO)"
        return _row("operator_retry", "cannot_tell", why)
    value = retry[-1].captures.get("value", "")
    on = bool(re.search(r"[1-9]", value)) and not re.fullmatch(r"(?:L\d:0,?)+", value)
    return _row(
        "operator_retry",
        "in_place" if on else "missing",
        f"HCCL_OP_RETRY_ENABLE {value}",
        (Line.of(retry[-1]),),
    )
