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
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from ..job.correlate import Evidence
from ..job.model import path_attempts, short
from ..job.timeline import checkpoint_step
from ..sinks.prose import say as words
from ..types import Hit, Stats
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
# what a saved-state line names (Accelerate's words, DeepSpeed's file names)
_STATE_NAMES = {"optim": "optimizer", "Random": "RNG", "Gradient scaler": "gradient scaler"}
# a collective timeout this long makes every hang cost half an hour or more (issue 21's
# example: HF's ddp_timeout default, HCCL_EXEC_TIMEOUT's 1836 s)
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
    # what the reading noted: unreadable paths, damaged archives (Stats.notes)
    notes: tuple[str, ...] = ()
    schema: str = SCHEMA

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def row(self, feature: str) -> Row:
        return next(r for r in self.rows if r.feature == feature)


@dataclass(frozen=True)
class _Say:
    """Renders a detail in the table's language (analyzer.sinks.prose, `readiness.*`)."""

    lang: str

    def __call__(self, key: str, **values: Any) -> str:
        return words(f"readiness.{key}", self.lang, **values)

    def join(self, parts: Sequence[str]) -> str:
        return words("sep.clause", self.lang).join(parts)


def assess(
    ev: Evidence, stats: Stats, scenario: Scenario | None = None, lang: str = "en"
) -> Readiness:
    """The readiness table of one job's evidence (analyzer.analysis.Analyzer.evidence)."""
    say = _Say("zh" if lang == "zh" else "en")
    seen = {p.rank for p in ev.progress if p.rank is not None} | set(ev.job.rank_host)
    ranks = max(ev.job.world, len(seen))
    # the hosts lines name, and those the files' paths do (a platform's <host>/ folders:
    # a clean run's lines may name none)
    hosts = {short(h) for h in [*ev.job.rank_host.values(), *ev.job.file_host.values()] if h}
    nodes = max(len(hosts), 2 if ev.job.multi_node else 1)
    given = scenario is not None
    settings = _by_kind(ev.settings)
    chosen, why = (
        (scenario, say("given"))
        if scenario is not None
        else _infer(ev, settings, ranks, nodes, say)
    )
    k = SCENARIOS.index(chosen)
    read = say("read", files=stats.files, lines=stats.lines) if stats.lines else say("unread")
    rows = [
        _checkpoint_row(ev, settings, chosen, say),
        _restart_row(ev, settings, say),
        _row("unconditional_restart", "cannot_tell", say("platform")),
        _hang_row(ev, settings, say),
        _retry_row(settings, say),
        _row("rescheduling", "cannot_tell", say("pool")),
        _row("failure_analysis", "in_place" if stats.lines else "missing", read),
    ]
    out = tuple(
        Row(
            r.feature,
            words(f"feature.{r.feature}", say.lang),
            _NEEDS[r.feature][k],
            r.state,
            r.detail,
            r.evidence,
        )
        for r in rows
    )
    return Readiness(chosen, given, why, out, ranks, nodes, stats.notes)


def _infer(
    ev: Evidence, settings: dict[str, list[Hit]], ranks: int, nodes: int, say: _Say
) -> tuple[Scenario, str]:
    """The scenario the logs show: the model's size, the nodes, the run's length."""
    params = _parameters(settings.get("model_size", []))
    if params is not None and params >= _LARGE_PARAMS:
        return "large_model", say("params", n=params / 1e9)
    span = _span(ev)
    if nodes >= 2 and span is not None and span >= _LONG_RUN_S:
        return "large_model", say("long_run", nodes=nodes, days=span / 86400)
    if nodes >= 2:
        return "multi_node", say("nodes", nodes=nodes, ranks=ranks)
    return "single_node", say("node", nodes=nodes or 1, ranks=ranks) if ranks else say("one")


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


def _later(h: Hit, saves: Sequence[Hit]) -> bool:
    """Whether `h` comes after the first save: a later attempt's folder, a later time,
    or further down the file the save is in. A first run that finds no checkpoint to
    load is no failure of recovery; a start after a save that finds none is."""
    first = saves[0]
    if path_attempts(h.file) > min(path_attempts(s.file) for s in saves):
        return True
    if h.time is not None and first.time is not None and h.time.absolute and first.time.absolute:
        return h.time.epoch > first.time.epoch
    return h.file == first.file and h.line > first.line


def _config(settings: dict[str, list[Hit]]) -> dict[str, Hit]:
    """The checkpoint settings the job printed, by key (the last printed wins)."""
    return {h.captures.get("key", ""): h for h in settings.get("save_config", [])}


def _checkpoint_row(
    ev: Evidence, settings: dict[str, list[Hit]], scenario: Scenario, say: _Say
) -> Row:
    saves = [h for h in ev.timeline.saves if h.signature.progress != "checkpoint_load"]
    loads = [h for h in ev.timeline.saves if h.signature.progress == "checkpoint_load"]
    broken = settings.get("not_reentrant", [])
    if broken:
        return _row(
            "checkpoint_resume",
            "missing",
            say("not_reentrant", line=broken[0].text.strip()[:200]),
            _lines(broken[:3]),
        )
    config = _config(settings)
    off = [
        h
        for key, h in config.items()
        if (key == "save" and h.captures.get("value") == "None")
        or (key == "save_strategy" and h.captures.get("value", "").lower() == "no")
    ]
    if off and not saves:
        setting = f"{off[0].captures['key']} {off[0].captures['value']}"
        return _row("checkpoint_resume", "missing", say("saves_off", setting=setting), _lines(off))
    if not saves:
        return _without_saves(ev, config, scenario, say)
    configured = config.get("save")
    paths = [p for p in (h.captures.get("path") for h in saves) if p]
    if configured and configured.captures.get("value") not in (None, "None"):
        paths.append(configured.captures["value"])
    places = {where(p) for p in paths}
    # one save is logged by every rank, and in a console copy too
    distinct = {checkpoint_step(h) or h.captures.get("path") or h.text for h in saves}
    cadence = _cadence(saves, say)
    parts = [say("saves", n=len(distinct)), *([cadence] if cadence else [])]
    saved = (h.captures.get("what", "") for h in settings.get("saved_state", []))
    what = sorted({_STATE_NAMES.get(w, w.lower()) for w in saved} - {""})
    parts += [say("saved", what=", ".join(what))] if what else []
    split = _split(ev, loads[-1]) if loads else None
    if loads:
        parts.append(_resumed(ev, loads[-1], say))
    if split is not None:
        ranks, first, step = split
        parts.insert(0, say("split", ranks=ranks, first=first, step=step))
    fresh = [h for h in settings.get("fresh_start", []) if _later(h, saves)]
    if fresh:
        parts.append(say("fresh_later"))
    partial = settings.get("weights_only", [])
    if partial:
        lacking = sorted({h.captures.get("what") or "save_only_model" for h in partial})
        parts.append(say("weights_only", what=", ".join(lacking)))
    evidence = _lines([saves[0], saves[-1], *loads[-1:], *fresh[:1], *partial[:1]])
    if "local" in places and scenario != "single_node":
        local = next(p for p in paths if where(p) == "local")
        detail = say.join([say("local", path=local), *parts])
        return _row("checkpoint_resume", "missing", detail, evidence)
    if (fresh and not loads) or (partial and scenario == "large_model") or split is not None:
        return _row("checkpoint_resume", "missing", say.join(parts), evidence)
    if (places <= {"shared"} and paths) or scenario == "single_node":
        return _row("checkpoint_resume", "in_place", say.join(parts), evidence)
    detail = say.join([say("unknown_place"), *parts])
    return _row("checkpoint_resume", "cannot_tell", detail, evidence)


def _without_saves(ev: Evidence, config: dict[str, Hit], scenario: Scenario, say: _Say) -> Row:
    """No save in the logs: a configured node-local folder, or a framework that always
    prints its saves, still decides; else the logs cannot tell."""
    configured = config.get("save")
    target = configured.captures.get("value", "") if configured else ""
    if configured and where(target) == "local" and scenario != "single_node":
        return _row("checkpoint_resume", "missing", say("local", path=target), _lines([configured]))
    families = {h.signature.family for s in ev.timeline.streams.values() for h in (s.last,) if h}
    printed = families & _SAVES_ALWAYS_PRINTED
    if printed:
        names = ", ".join(sorted(printed))
        return _row("checkpoint_resume", "missing", say("no_saves_printed", families=names))
    if config:
        setting = ", ".join(f"{k} {h.captures.get('value', '')}" for k, h in config.items())
        detail = say("configured", setting=setting)
        return _row("checkpoint_resume", "cannot_tell", detail, _lines(list(config.values())))
    return _row("checkpoint_resume", "cannot_tell", say("no_saves"))


def _split(ev: Evidence, load: Hit) -> tuple[str, int, int] | None:
    """Ranks of the resumed attempt that started below the step it resumed at while the
    others resumed: the checkpoint was not there for every rank (each node's own disk,
    whatever the path looks like). Their ranks, their first step, the resumed step."""
    step = checkpoint_step(load)
    attempt = path_attempts(load.file)
    if step is None or not attempt:  # one console of every attempt: first steps say nothing
        return None
    starts = {
        st.rank: min(st.mark_lines)
        for st in ev.timeline.streams.values()
        if st.rank is not None and st.mark_lines and path_attempts(st.file) == attempt
    }
    behind = sorted(r for r, first in starts.items() if first < step)
    if not behind or len(behind) == len(starts):
        return None
    return ", ".join(map(str, behind)), min(starts[r] for r in behind), step


def _resumed(ev: Evidence, load: Hit, say: _Say) -> str:
    """Where the newest resume started, and how far its attempt then trained: a resume
    that never got past its step has not shown that the run can go on."""
    step = checkpoint_step(load)
    if step is None:
        return say("resumed", line=load.text.strip()[:120])
    attempt = path_attempts(load.file)
    reached = [
        p.last_step
        for p in ev.progress
        if p.last_step is not None and path_attempts(p.file) == attempt
    ]
    out = say("resumed_at", n=step)
    if reached and max(reached) > step:
        out += words("sep.comma", say.lang) + say("reached", m=max(reached))
    return out


def _cadence(saves: list[Hit], say: _Say) -> str:
    """The median interval between distinct saves, in steps and in time."""
    first: dict[int, float | None] = {}
    for h in saves:
        step = checkpoint_step(h)
        if step is not None:
            when = h.time.epoch if h.time is not None and h.time.absolute else None
            held = first.get(step)
            first[step] = when if held is None else min(held, when or held)
    steps = sorted(first)
    # distinct times only: saves printed without their own time share a neighbour's
    times = sorted({t for t in first.values() if t is not None})
    out = []
    if len(steps) >= 2:
        gaps = sorted(b - a for a, b in itertools.pairwise(steps))
        out.append(say("every_steps", n=gaps[len(gaps) // 2]))
    if len(times) >= 2:
        spans = sorted(b - a for a, b in itertools.pairwise(times))
        secs = spans[len(spans) // 2]
        out.append(say("every_min", m=secs / 60) if secs >= 60 else say("every_s", s=secs))
    return words("sep.comma", say.lang).join(out)


def _restart_row(ev: Evidence, settings: dict[str, list[Hit]], say: _Say) -> Row:
    row = _restarts(ev, settings, say)
    nodes = {
        h.captures.get("key"): h.captures.get("value", "") for h in settings.get("elastic", [])
    }
    low, high = nodes.get("min_nodes", ""), nodes.get("max_nodes", "")
    if low.isdigit() and high.isdigit() and int(low) < int(high):
        detail = say.join([row.detail, say("elastic", low=low, high=high)])
        return replace(row, detail=detail)
    return row


def _restarts(ev: Evidence, settings: dict[str, list[Hit]], say: _Say) -> Row:
    restarted = settings.get("restarted", [])
    allowed = settings.get("restarts_allowed", [])
    if restarted:
        detail = render_message(restarted[0], say.lang)
        return _row("auto_restart", "in_place", detail, _lines(restarted[:2]))
    later = sorted({t for t in map(path_attempts, ev.job.names.values()) if any(t)})
    if later:
        attempts = ", ".join(map(str, sorted({a for t in later for a in t if a})))
        # a line the first restarted attempt logged: where the restart shows
        streams = ev.timeline.streams.values()
        seen = [*ev.timeline.saves, *ev.settings, *(s.last for s in streams if s.last)]
        again = sorted(
            (h for h in seen if path_attempts(h.file) == later[0]), key=lambda h: (h.file, h.line)
        )
        detail = say("attempts", attempts=attempts)
        return _row("auto_restart", "in_place", detail, _lines(again[:1]))
    values = [int(v) for v in (h.captures.get("value", "") for h in allowed) if v.isdigit()]
    if values:
        shown = _lines(allowed[:2])
        if max(values) > 0:
            return _row("auto_restart", "in_place", say("budget", n=max(values)), shown)
        return _row("auto_restart", "missing", say("no_budget"), shown)
    return _row("auto_restart", "cannot_tell", say("no_restart_setting"))


def _seconds(h: Hit) -> float | None:
    caps = h.captures
    for key, scale in (("timeout_ms", 1e-3), ("ms", 1e-3), ("s", 1.0), ("minutes", 60.0)):
        raw = caps.get(key, "")
        if raw.isdigit():
            return int(raw) * scale
    return None


def _hang_row(ev: Evidence, settings: dict[str, list[Hit]], say: _Say) -> Row:
    timed = [h for h in settings.get("collective_timeout", []) if _seconds(h) is not None]
    # a collective timeout the logs report states the timeout in force
    timed += [h for h in ev.candidates if h.captures.get("timeout_ms", "").isdigit()][:4]
    watchdog = settings.get("watchdog", [])
    off = [h for h in watchdog if h.captures.get("async") == "0"]
    unmonitored = [h for h in watchdog if h.captures.get("monitoring") == "0"]
    notes = [say("no_monitor")] if unmonitored else []
    if off:
        detail = say.join([say("no_async"), *notes])
        return _row("hang_detection", "missing", detail, _lines([off[0], *unmonitored[:1]]))
    if not timed:
        return _row("hang_detection", "cannot_tell", say.join([say("no_timeout"), *notes]))
    longest = max(timed, key=lambda h: _seconds(h) or 0.0)
    secs = _seconds(longest) or 0.0
    evidence = _lines([longest, *unmonitored[:1]])
    if secs >= _LONG_TIMEOUT_S:
        detail = say.join([say("long_timeout", m=secs / 60), *notes])
        return _row("hang_detection", "missing", detail, evidence)
    detail = say.join([say("timeout", m=secs / 60), *notes])
    return _row("hang_detection", "in_place", detail, evidence)


def _retry_row(settings: dict[str, list[Hit]], say: _Say) -> Row:
    retry = settings.get("op_retry", [])
    if not retry:
        return _row("operator_retry", "cannot_tell", say("no_retry"))
    value = retry[-1].captures.get("value", "")
    on = bool(re.search(r"[1-9]", value)) and not re.fullmatch(r"(?:L\d:0,?)+", value)
    return _row(
        "operator_retry",
        "in_place" if on else "missing",
        say("retry", value=value),
        (Line.of(retry[-1]),),
    )
