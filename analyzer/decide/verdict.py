"""Root-cause candidates -> one Verdict: category, recovery, confidence, summary.

Ranking (documented in patterns/README.md): causes outrank symptoms outrank
confirmations; then fatal > error > warning; then the earliest time, file order where no
time is known. `info` findings are context and never decide. Teardown noise is kept out
of the top by the signatures' roles, not by special cases here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import PurePath
from typing import Any

from ..job import stacks
from ..job.correlate import ROLE_RANK, SEVERITY_RANK, Evidence, template
from ..job.model import JobModel, cordonable
from ..job.timeline import STEP_IN_PATH, Busy, Stall
from ..read.errors import ErrorLine
from ..rules.cascade import Rule, explain
from ..rules.formats import Formats
from ..rules.taxonomy import CATEGORIES, NONE
from ..sinks.prose import TEXT, category_name, finding_kind, headline, say
from ..types import (
    ActOn,
    CategoryId,
    Checkpoint,
    Finding,
    Hit,
    Identity,
    ModelOpinion,
    RecoveryId,
    RootCause,
    Spread,
    Stats,
    Verdict,
)
from ..unknowns.classifier import Model
from ..unknowns.region import (
    ErrorLines,
    below_error,
    error_level,
    error_looking,
    harmless,
    stating,
    where_only,
)
from .culprit import Culprit, Lag, Lost, chains, spread, walk_table

MAX_FINDINGS = 200
# The classifier decides only at or above this calibrated probability; below it the
# verdict stays what the signatures said (`unknown` or `none`): a wrong confident answer
# sends a restart controller down the wrong path, an honest unknown does not.
MODEL_THRESHOLD = 0.6
# A signature verdict less sure than this rests on weak evidence (a bare SIGKILL read as
# host OOM, a warning-level cause among rivals): the summary says it is a guess, and the
# default policy restarts once before it stops on one (analyzer.ops.policy).
GUESS_BELOW = 0.6

_BASE_CONFIDENCE = {
    "cause": {"fatal": 0.9, "error": 0.75, "warning": 0.55},
    "symptom": {"fatal": 0.6, "error": 0.5, "warning": 0.4},
    "confirmation": {"fatal": 0.4, "error": 0.35, "warning": 0.3},
}


def render_message(hit: Hit, lang: str = "en") -> str:
    """The signature's message with the line's captures, in Chinese where the signature
    has one (`message_zh`) and `lang` asks."""
    sig = hit.signature
    text = sig.message_zh if lang == "zh" and sig.message_zh else sig.message
    try:
        return text.format_map(_Default(hit.captures))
    except (ValueError, IndexError):
        return sig.title


class _Default(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def _confidence(root: Hit, candidates: list[Hit]) -> float:
    """By the root line's role and severity, less for rivals of its tier, more for support;
    of its reading (an `unknown` OSError raised in `torch.load` reads checkpoint_corrupt,
    and is as sure as that reading), at most 0.3 when the reading is `unknown`."""
    sig = root.signature
    category = reading(root)
    conf = _BASE_CONFIDENCE[sig.role][sig.severity]
    tier = (ROLE_RANK[sig.role], SEVERITY_RANK[sig.severity])
    rivals = {
        h.signature.category
        for h in candidates
        if (ROLE_RANK[h.signature.role], SEVERITY_RANK[h.signature.severity]) == tier
        and h.signature.category not in (category, sig.category)
    }
    conf -= 0.1 * min(len(rivals), 3)
    support = sum(1 for h in candidates if h.signature.category == category)
    if support >= 2:
        conf += 0.05
    if category == "unknown":
        conf = min(conf, 0.3)
    return max(0.05, min(0.99, conf))


def reading(root: Hit) -> str:
    """The category of a root-cause line: its signature's, or the more specific one its
    signature names for a traceback that passes through a matching frame (`raised_in`:
    a FileNotFoundError raised while loading a checkpoint is `checkpoint_corrupt`), or
    for a line raised where one installed package called another (`raised_between`:
    `'AcceleratorState' object has no attribute 'mixed_precision'` raised in accelerate
    as transformers called it is two versions that do not fit, not the job's bug)."""
    for category, rx in root.signature.raised_in:
        if any(_FRAME.search(x) and re.search(rx, x) for x in root.context):
            return category
    for category, rx in root.signature.raised_between:
        if re.search(rx, root.log.message) and len(set(_installed(root.context))) >= 2:
            return category
    return root.signature.category


_FRAME = re.compile(r'File "[^"]*", line \d+, in \S')
# an installed package's frame: the package (or module) right under site-/dist-packages
_INSTALLED = re.compile(r'File "[^"]*[/\\](?:site|dist)-packages[/\\]([\w.-]+?)(?:[/\\]|\.py")')


def _installed(context: tuple[str, ...]) -> list[str]:
    """The packages of a traceback's innermost frames that are all in installed packages
    (from the last frame back to the first of the job's own)."""
    out = []
    for x in reversed([x for x in context if _FRAME.search(x)]):
        m = _INSTALLED.search(x)
        if m is None:
            break
        out.append(m.group(1))
    return out


def _summary(
    culprit: Culprit, findings: list[Finding], lang: str, category: str, explained: frozenset[str]
) -> str:
    """Reason `found`: the category, who, the signature's message and what else was seen."""
    root = culprit.hit
    assert root is not None
    where = []
    failed = root.captures.get("failed_host")  # the lost node the line reports
    if culprit.rank is not None and not failed:
        where.append(f"rank {culprit.rank}")
    if host := failed or culprit.host:
        where.append(host)
    telling = [f for f in findings if f.signature.severity != "info"]  # info is context
    others = Counter(
        finding_kind(f.signature.category, f.signature.id in explained)
        for f in telling
        if f.first is not root and f.signature.role != "cause"
        for _ in range(f.count)
    )
    n_other = sum(f.count for f in telling) - 1
    more = ""
    if n_other > 0:
        kinds = ", ".join(f"{k} x{v}" for k, v in others.most_common(3))
        secondary = say("reason.found.secondary", lang, kinds=kinds) if kinds else ""
        more = say("reason.found.more", lang, n=n_other, secondary=secondary)
    return say(
        "reason.found",
        lang,
        category=headline(category_name(category, lang), lang),
        where=say("reason.found.where", lang, where=", ".join(where)) if where else "",
        message=render_message(root, lang),
        more=more,
    )


# culprit rules that read a line as another category than its own, each with the
# sentence (prose `reason.<rule>`, the reason code its id) that says why
_READING_RULES = frozenset(
    {"shm-space", "terminated", "teardown", "unreachable-store", "one-node-path"}
)


def _reading_said(culprit: Culprit, lang: str) -> str:
    """Why the rule that chose the root read it as it did, where it is such a rule."""
    if culprit.rule not in _READING_RULES:
        return ""
    return say(f"reason.{culprit.rule}", lang, host=culprit.host)


def _said(*parts: tuple[str, str]) -> dict[str, Any]:
    """A summary made of reasons (code, sentence): the sentences said, the codes of
    those said (Verdict.reasons)."""
    said = [(code, text) for code, text in parts if text]
    return {"summary": "".join(t for _, t in said), "reasons": tuple(c for c, _ in said)}


def _waited(culprit: Culprit | None, spread_: Spread | None, lang: str) -> str:
    """Reason `waits-end`: for a culprit found at the end of the wait graph (rule
    `waits-for`), the chains that lead to it: what a reader checks the verdict against."""
    if culprit is None or culprit.rule != "waits-for" or culprit.hit is None or not spread_:
        return ""
    return say("reason.waits-end", lang, rank=culprit.rank, chains="; ".join(chains(spread_.waits)))


def _unresponsive(culprit: Culprit, lang: str) -> str:
    """Reason `unresponsive`: the rank its launcher had to kill (rule `unresponsive`)."""
    if culprit.rule != "unresponsive":
        return ""
    rank = culprit.rank
    if rank is not None:
        who = say("who.Rank", lang, rank=rank)
    else:  # the launcher's forced kill names the process, not its rank
        pid = culprit.hit.captures.get("pid", "?") if culprit.hit is not None else "?"
        who = say("who.pid", lang, pid=pid)
    return say("reason.unresponsive", lang, who=who)


def _lagged(lag: Lag | None, lang: str) -> str:
    """Reason `lag`: for a rank behind its process group (rule `lags`), the numbers the
    verdict rests on."""
    if lag is None:
        return ""
    ahead = ", ".join(map(str, lag.ahead[:8])) + (" ..." if len(lag.ahead) > 8 else "")
    return say(
        "reason.lag",
        lang,
        rank=lag.rank,
        enqueued=lag.enqueued,
        ahead=ahead,
        ahead_enqueued=lag.ahead_enqueued,
    )


# A dump of one rank outside any collective while other ranks' dumps wait in one: it
# shows where the rank is and that the others wait for it, as good as a cause line
_STUCK_CONFIDENCE = 0.75


def _others_wait(rank: int | None, hits: list[Hit]) -> bool:
    """Whether the logs show the other ranks waiting for the root's: another rank's
    stack dump waits inside a collective, or the ranks' records name it as the one
    that never joined (a hang cause with its `culprit_rank`: Flight Recorder dumps
    matched across ranks, fr_trace, monitored_barrier)."""
    return any(
        (
            h.signature.stack is not None
            and stacks.waits_inside(h.captures)
            and h.rank is not None
            and h.rank != rank
        )
        or (
            h.signature.category == "hang"
            and h.signature.role == "cause"
            and rank is not None
            and h.captures.get("culprit_rank") == str(rank)
        )
        for h in hits
    )


def _guess(confidence: float, lang: str) -> str:
    """Reason `weak-evidence`: said plainly when the line that decides is weak evidence
    of its category."""
    return (
        say("reason.weak-evidence", lang, confidence=confidence) if confidence < GUESS_BELOW else ""
    )


def _when(hit: Hit) -> str:
    """When a line was logged: its time, else where it is (a line with no date)."""
    return (hit.time.iso() if hit.time else None) or f"{hit.file}:{hit.line}"


def _stall_root(stall: Stall, lang: str) -> tuple[RootCause, str, str]:
    """The line a hang cites, its summary and its reason (`hang.silent`: the one rank
    that reported no timeout; `hang.together`: every rank stopped at one step;
    `hang.stalled`: a rank stopped long before the logs end)."""
    last = stall.last
    step = last.captures.get("step", "?")
    minutes = stall.gap / 60
    values = {"step": step, "when": _when(last), "minutes": minutes, "step_time": stall.step_time}
    if stall.reason == "silent":
        reason = "hang.silent"
        who = say("who.rank", lang, rank=last.rank) if last.rank is not None else last.host
        summary = say("reason.hang.silent", lang, who=who or last.file, **values)
        message = say("root.silent", "en", step=step)
    elif stall.reason == "together":
        reason = "hang.together"
        summary = say("reason.hang.together", lang, ranks=stall.ranks, **values)
        message = say("root.stalled", "en", step=step, minutes=minutes)
    else:
        reason = "hang.stalled"
        who = say("who.Rank", lang, rank=last.rank) if last.rank is not None else last.file
        summary = say("reason.hang.stalled", lang, who=who, **values)
        message = say("root.stalled", "en", step=step, minutes=minutes)
    # "together": the line is every rank's; no rank is shown to hang
    return _progress_root(last, message, named=stall.reason != "together"), summary, reason


def _lost_root(lost: Lost, lang: str, who: Identity | None) -> tuple[RootCause, str, str]:
    """Reason `node-lost`: the lost node's last line, and who lost it first; `node-empty`:
    a node that logged no line, cited at the first report of a rank waiting for it (the
    node named, as its host where its path names one; never a rank: none of its lines
    said which)."""
    last, peer = lost.last, lost.reported
    if lost.empty is not None:
        name = lost.empty[1]
        summary = say(
            "reason.node-empty",
            lang,
            node=name,
            reporters=lost.reporters,
            others=peer.host or (f"rank {peer.rank}" if peer.rank is not None else peer.file),
            when=_when(peer),
        )
        root = _progress_root(peer, say("root.empty", "en", node=name), who=who)
        return root, summary, "node-empty"
    node = last.host or (
        say("who.node-of", lang, rank=last.rank) if last.rank is not None else last.file
    )
    summary = say(
        "reason.node-lost",
        lang,
        node=node,
        when=_when(last),
        reporters=lost.reporters,
        others=peer.host or f"rank {peer.rank}",
    )
    return _progress_root(last, say("root.lost", "en")), summary, "node-lost"


def _progress_root(
    last: Hit, message: str, named: bool = True, who: Identity | None = None
) -> RootCause:
    """A progress line cited as the root cause: where a rank stopped, or what it was busy
    with; `named`: the line's rank and host are the culprit's (not so when every rank
    stopped at the same step); `who`: the culprit is another's (a node that logged
    nothing, as the job model resolved it)."""
    rank, host = (last.rank, last.host) if who is None else (who.rank, who.host)
    return RootCause(
        file=last.file,
        line=last.line,
        offset=last.offset,
        rank=rank if named else None,
        host=host if named else None,
        time=last.time.iso() if last.time else None,
        signature=None,
        text=last.text,
        message=message,
        context=(last.text,),
        context_first_line=last.line,
    )


def _busy_root(busy: Busy, lang: str) -> tuple[RootCause, str, str]:
    """Reason `busy`: the rank's own work that outlasted the collective timeout."""
    last = busy.last
    kind = last.signature.progress or "work"
    phase = f"phase.{kind}"
    work = last.captures.get("what") or (say(phase, lang) if phase in TEXT else kind)
    ran, limit = busy.seconds / 60, busy.timeout / 60
    who = (
        say("who.Rank", lang, rank=last.rank)
        if last.rank is not None
        else say("who.process", lang, file=last.file)
    )
    summary = say("reason.busy", lang, who=who, work=work, ran=ran, limit=limit)
    return _progress_root(last, say("root.busy", "en", ran=ran, limit=limit)), summary, "busy"


# Steps up to this one count as "the start": no checkpoint of the run predates them.
_EARLY_STEPS = 2
# Nor does one within the first hundredth of the steps a run plans, where the logs show
# no save: trainers save every few hundred steps of tens of thousands (HF's default 500)
_EARLY_SHARE = 0.01


def _diverged_from_the_start(root: Hit, ev: Evidence) -> bool:
    """NaN from the first steps of a fresh run (or from its first hundredth, no save in
    the logs): there is no good checkpoint to roll back to, and a restart diverges the
    same way, so the setup must change (the taxonomy's 'restart would fail the same way
    again')."""
    if root.signature.category != "numerical_error" or ev.timeline.resumed:
        return False
    step = ev.timeline.step_at(root.file_index, root.line)
    if step is None:
        return False
    totals = [
        int(t)
        for st in ev.timeline.streams.values()
        if st.file_index == root.file_index and st.last is not None
        if (t := st.last.captures.get("total", "")).isdigit()
    ]
    early = ev.timeline.saved is None and bool(totals) and step <= max(totals) * _EARLY_SHARE
    return step <= _EARLY_STEPS or early


# where downloaded and pretrained models live: a file there is an input of the job, not
# one of its own checkpoints (the Hugging Face hub cache, torch.hub, ModelScope)
_MODEL_CACHE = re.compile(
    r"[/\\]\.cache[/\\](?:huggingface|torch[/\\]hub)[/\\]|models--[\w.-]+--|modelscope[/\\]hub[/\\]"
)
_PRETRAINED_LOAD = re.compile(r"\bin (?:from_pretrained|_load_pretrained_model)\b")


def _mismatched(root: Hit, hits: list[Hit], category: str) -> tuple[str, list[str]] | None:
    """Ranks timed out in different collectives at the same sequence number (rank 0 in
    ALLREDUCE #308004, rank 1 in _ALLGATHER_BASE #308004): the program issued different
    collectives on different ranks (a branch one rank took, a size that differs), a
    desync a restart meets again at the same point (the taxonomy's 'restart would fail
    the same way'). The sequence number and the operations, else None."""
    if category != "collective_timeout":
        return None
    ops: dict[str, set[str]] = {}
    for h in hits:
        seq, op = h.captures.get("seq"), h.captures.get("op")
        if seq and op and h.signature.category == "collective_timeout":
            ops.setdefault(seq, set()).add(op)
    mixed = sorted((seq, sorted(o)) for seq, o in ops.items() if len(o) > 1)
    return mixed[0] if mixed else None


def _idle_wait(root: Hit, ev: Evidence, category: str) -> Hit | None:
    """A collective timeout that a serving worker met while it waited for the driver's
    next request (the input-loop frame of its traceback), with no load report showing
    requests held: the server sat idle longer than the timeout, nothing broke, and a
    restart times out the same way after the next idle spell (the taxonomy's 'restart
    would fail the same way'). A driver stuck with requests running is not this."""
    if category != "collective_timeout" or root.signature.role != "symptom":
        return None
    return ev.timeline.idle_wait(root)


def _idle_summary(frame: Hit, lang: str) -> str:
    """Reason `idle-wait`: where the serving rank waited, and what to change."""
    where = frame.captures.get("frame") or say("reason.idle-wait.loop", lang)
    return say("reason.idle-wait", lang, where=where)


def _fixed_input(root: Hit, ev: Evidence) -> bool:
    """A corrupt file that the job reads as a fixed input (a model in a download cache,
    or loaded by `from_pretrained` in a run that did not resume): no older checkpoint
    replaces it, so a restart fails the same way until the file is fetched again."""
    if reading(root) != "checkpoint_corrupt":
        return False
    text = " ".join((root.text, *root.context))
    if STEP_IN_PATH.search(text):
        return False  # checkpoint-500, global_step400: one of the run's own saves
    pretrained = _PRETRAINED_LOAD.search(text) and not ev.timeline.resumed
    return bool(_MODEL_CACHE.search(text) or pretrained)


def model_region(errors: ErrorLines | None, ev: Evidence) -> tuple[list[ErrorLine], bool]:
    """The lines the classifier reads, and whether they come after training stopped.

    Only lines after the last progress line of their file count when there are any: a
    failure ends a rank's training, while an error-looking line the run trained past (a
    warning, a retried call, a print quoting a failure) did not stop it. Training uses
    this same function, so the model learns from what it will be shown.
    """
    region = errors.region() if errors is not None else []
    last: dict[str, int] = {}
    for p in ev.progress:
        if p.last_line is not None:
            last[p.file] = max(last.get(p.file, 0), p.last_line)
    # A checkpoint save or an evaluation begun after the last step is progress too: a
    # run that stops there shows no failure in the lines before it.
    for s in ev.timeline.streams.values():
        if s.last_phase is not None:
            last[s.file] = max(last.get(s.file, 0), s.last_phase.line)
    # A file without progress (a kernel log, a scheduler's) is placed by time: its lines
    # from before the job's last steps are ones the job trained past.
    ends = [
        s.last.time.epoch - 2 * (s.step_time() or 0.0)
        for s in ev.timeline.streams.values()
        if s.last and s.last.time and s.last.time.absolute
    ]
    until = max(ends, default=None)

    def counts(x: ErrorLine) -> bool:
        if x.file in last:
            return x.line > last[x.file]
        return until is None or not (x.time and x.time.absolute and x.time.epoch < until)

    after = [x for x in region if counts(x)]
    return (after, True) if after else (region, False)


def _ask_model(
    model: Model | None,
    errors: ErrorLines | None,
    ev: Evidence,
    lang: str,
    failed: bool,
    context: Callable[[str], bool],
    formats: Formats | None = None,
) -> tuple[ModelOpinion, RootCause | None, str] | None:
    """The classifier's reading of the failure region: opinion, evidence line, summary.
    It reads each line's message without the prefixes the job's `formats` know."""
    region, after = model_region(errors, ev)
    if model is None or not region:
        return None
    messages = [x.message(formats) for x in region]
    pred = model.predict(messages)
    # A hang is measured, not read: where the timeline had steps to judge and found no
    # stall, a model's "hang" (from words like "gpu util 0%") is overruled, unless the
    # caller knows the job failed: then logs that end without a cause, read as idle
    # devices and stopped steps, are the hang the platform saw.
    judged = any(p.step_seconds is not None for p in ev.progress)  # a step time to judge by
    measured = pred.category == "hang" and judged and not ev.stalls and not failed
    sure = (
        bool(after)
        and pred.category not in (NONE, "unknown")
        and pred.probability >= MODEL_THRESHOLD
        and not measured
    )
    # it cites a line that says what failed, never one that only says where (a
    # traceback's header or frame: an excerpt cut before the error names no cause)
    told = stating(region)
    line = region[model.strongest_line(messages, pred.category, told)] if sure and told else None
    # a notice or warning it would cite gives way, unless the caller knows the job failed,
    # to its strongest line at an error level (the exception under a `resume:` notice)
    leveled = [i for i in told if error_level(region[i].text)]
    if line is not None and not failed and below_error(line.text) and leveled:
        line = region[model.strongest_line(messages, pred.category, leveled)]
    # the line it would cite must state a failure (analyzer.unknowns.region): never one that calls
    # itself harmless or that a signature knows as context; a warning, a last line that
    # does not look like an error at all, or one its file went on past as if nothing had
    # happened, only when the caller knows the job failed
    sure = (
        line is not None
        and not harmless(line.text)
        and (
            failed
            or (
                error_looking(line.text)
                and not below_error(line.text)
                and not (errors is not None and errors.went_on(line.file, line.line))
            )
        )
        and not context(line.text)
    )
    opinion = ModelOpinion(pred.category, pred.probability, pred.alternatives, sure)
    if line is None or not sure:
        return opinion, None, ""
    summary = say(
        "reason.classifier",
        lang,
        category=headline(category_name(pred.category, lang), lang),
        p=pred.probability,
        text=line.text[:200],
    )
    message = say("root.classifier", "en", category=pred.category, p=pred.probability)
    rc = _cited(line, message, ev.job, formats)
    return opinion, rc, summary


def _cited(line: ErrorLine, message: str, job: JobModel, formats: Formats | None) -> RootCause:
    """A root cause no signature matched: an error line the classifier or the caller's
    `failed` made the evidence. It names the rank that logged the line (its prefix, its
    file), never a host: a classifier's reading is a guess, and a guess does not cordon
    a node."""
    return RootCause(
        file=line.file,
        line=line.line,
        offset=0,
        rank=job.line_identity(line.file, line.line, line.text, formats).rank,
        host=None,
        time=line.time.iso() if line.time else None,
        signature=None,
        text=line.text,
        message=message,
        context=(),
        context_first_line=line.line,
    )


def _unrecognised(
    errors: ErrorLines | None, ev: Evidence, context: Callable[[str], bool]
) -> ErrorLine | None:
    """The line to cite when the caller knows the job failed and neither a signature nor
    the classifier says why: the failure region's first line that states an error (at an
    error level or naming an exception first, else any error-looking line that is not a
    warning or a notice), or, when an excerpt ends inside a traceback, its header. A person (and a
    blind labeller) reads the first error of the process that went wrong as the evidence
    of an unrecognised failure; "no line says why" hid the line that does. Never a line
    that calls itself harmless, that a signature knows as context, or that its file went
    on past as if nothing had happened."""
    region, _ = model_region(errors, ev)
    told = [
        region[i]
        for i in stating(region)
        if error_looking(region[i].text)
        and not below_error(region[i].text)
        and not harmless(region[i].text)
        and not context(region[i].text)
        and not (errors is not None and errors.went_on(region[i].file, region[i].line))
    ]
    leveled = [x for x in told if error_level(x.text)]
    headers = [x for x in region if where_only(x) and "Traceback" in x.text]
    return next(iter(leveled or told or headers), None)


# Captures that name a device in root-cause lines (Xid PCI ids, NPU/card ids, bus ids).
_DEVICE_KEYS = ("pci", "busid", "device", "card", "gpu", "npu", "uuid")


# The categories whose symptoms a survivor writes about another (a peer it lost, a
# collective its peers never joined): the writer is no suspect. A device fault's symptom
# (an AI Core exception, a GSP timeout) is written on the faulty node itself.
_REPORTED = frozenset({"network_fault", "collective_timeout"})


def _with_targets(
    job: JobModel,
    who: Identity | None = None,
    aside: str = "",
    reporter: bool = False,
    **fields: Any,
) -> Verdict:
    """A Verdict whose `act_on` names what its root cause points at: the host, rank and
    device of who is at fault (`who`; the root line's captures first); for a link
    fault both ends, when the line names the peer (an address, a remote rank). Its
    category and recovery are the taxonomy's ids (an id nobody declared raises here, in
    the suite, not in a controller that acts on it). `reporter`: the root line is a
    symptom its writer reported of another (a peer lost, a collective that timed out)
    and no rule pointed elsewhere: the writer's host is no host to act on (a node that
    died must not make its survivors lemons)."""
    fields["category"] = CategoryId(fields["category"])
    fields["recovery"] = RecoveryId(fields["recovery"])
    if aside:  # the alarming line it set aside, said in every verdict's summary
        fields["summary"] = f"{fields['summary']} {aside}"
        fields["reasons"] = (*fields["reasons"], "set-aside")
    rc: RootCause | None = fields.get("root_cause")
    if rc is not None:
        hosts = [rc.host] if rc.host and not reporter else []
        # a node the line says failed (Ray's GCS, Slurm's `Node failure on`): the line's
        # writer is a survivor reporting it, never the host to cordon
        failed = rc.captures.get("failed_host")
        if failed:
            hosts = [job.peer(failed) or failed]
        if fields.get("category") == "network_fault":
            caps = rc.captures
            peer = job.peer(caps.get("peer") or caps.get("remote"), caps.get("remote_rank"))
            if peer and peer not in hosts and not peer.startswith("127."):
                hosts.append(peer)
        devices = [f"{k}={rc.captures[k]}" for k in _DEVICE_KEYS if k in rc.captures]
        if who is not None and not devices:
            devices += [f"device={who.device}"] if who.device else []
            devices += [f"busid={who.busid}"] if who.busid else []
        fields["act_on"] = ActOn(
            hosts=tuple(h for h in hosts if cordonable(h)),
            ranks=(rc.rank,) if rc.rank is not None else (),
            devices=tuple(devices),
        )
    return Verdict(**fields)


def _checkpoint(ev: Evidence) -> Checkpoint | None:
    saved = ev.timeline.saved
    if saved is None:
        return None
    step, hit = saved
    reached = [p.last_step for p in ev.progress if p.last_step is not None]
    lost = max(reached) - step if step is not None and reached and max(reached) >= step else None
    return Checkpoint(hit.captures.get("path"), step, lost, hit.file, hit.line)


def _silent_summary(ev: Evidence, stats: Stats, lang: str) -> tuple[str, str]:
    """What the logs of a job known to have failed do show, when none says why: where
    each process stood (a save begun and never finished first, else the furthest step);
    and its reason (`failed-unread`, `failed-saving`, `failed-steps`, `failed-silent`)."""
    if not stats.lines:
        return say("reason.failed-unread", lang), "failed-unread"
    streams = list(ev.timeline.streams.values())
    saving = [
        s
        for s in streams
        if s.last_phase is not None and s.last_phase.signature.progress == "checkpoint_save"
    ]
    if saving:
        s = min(saving, key=lambda s: (s.last_phase.line if s.last_phase else 0, s.file_index))
        who = f"rank {s.rank}" if s.rank is not None else PurePath(s.file).name
        at = (
            say("reason.failed-saving.at", lang, step=s.last_step)
            if s.last_step is not None
            else ""
        )
        return say("reason.failed-saving", lang, who=who, at=at), "failed-saving"
    stepped = [s for s in streams if s.last_step is not None]
    if stepped:
        s = max(stepped, key=lambda s: (s.last_step or 0, -s.file_index))
        who = f"rank {s.rank}" if s.rank is not None else PurePath(s.file).name
        return say("reason.failed-steps", lang, who=who, step=s.last_step), "failed-steps"
    return say("reason.failed-silent", lang), "failed-silent"


def _set_aside(ev: Evidence, lang: str) -> str:
    """Reason `set-aside`: a sentence on the first fatal or error line of a kernel or
    system log that could not decide because of its time or place (an old Xid in a
    kernel log collected whole): the reader sees that it was seen, and why it is not
    the cause."""
    aside = [
        h for h in ev.candidates if h.signature.severity in ("fatal", "error") and not ev.in_span(h)
    ]
    if not aside:
        return ""
    h = aside[0]
    when = ""
    if ev.span is not None and h.time is not None and h.time.absolute:
        t = h.time.epoch
        gap = ev.span[0] - t if t < ev.span[0] else t - ev.span[1]
        ago = (
            say("ago.days", lang, n=gap / 86400)
            if gap >= 86400
            else say("ago.hours", lang, n=gap / 3600)
            if gap >= 3600
            else say("ago.minutes", lang, n=gap / 60)
        )
        side = say("side.before" if t < ev.span[0] else "side.after", lang)
        when = say("reason.set-aside.when", lang, ago=ago, side=side)
    return say(
        "reason.set-aside",
        lang,
        signature=h.signature.id,
        where=say("reason.set-aside.where", lang, host=h.host) if h.host else "",
        place=f"{h.file}:{h.line}",
        when=when,
    )


def decide(
    ev: Evidence,
    stats: Stats,
    lang: str = "en",
    rules: Sequence[Rule] = (),
    errors: ErrorLines | None = None,
    model: Callable[[], Model | None] | None = None,
    failed: bool = False,
    context: Callable[[str], bool] = lambda text: False,
    formats: Formats | None = None,
) -> Verdict:
    """Pick the root cause and map it to recovery per the taxonomy.

    Signatures and the timeline decide first. The classifier is asked only when they
    found nothing, or only a signature of category `unknown`; it decides when it is sure.
    `model` loads it: only then (it is 11 MB and 0.1 s that most verdicts do not need).
    `failed`: the caller knows the job failed (its exit status), so logs that show no
    cause give `unknown`, never `none`: a job killed in silence looks like a healthy
    excerpt, and only the caller can tell them apart. `context`: whether the signatures
    know a line as context only (matcher.context_only); the classifier never cites one.
    `formats`: the job's line formats (the classifier reads messages without them). The
    summary also names an alarming line set aside as outside the job's span.
    """
    culprit, deciding_hits, trained = walk_table(ev)
    spread_ = spread(ev, deciding_hits, culprit)
    verdict = partial(
        _with_targets,
        ev.job,
        stats=stats,
        progress=ev.progress,
        events=ev.events,
        clock_skew=ev.clock_skew,
        checkpoint=_checkpoint(ev),
        spread=spread_,
        culprit_rule=culprit.rule if culprit is not None else None,
        aside=_set_aside(ev, lang),
    )
    findings = ev.findings
    shown = tuple(findings[:MAX_FINDINGS])

    def measured(
        category: str,
        found: tuple[RootCause, str, str],
        last: Hit,
        confidence: float,
        stop: bool,
        who: Identity | None = None,
    ) -> Verdict:
        """A verdict the timeline decided (a stall, a lost node, a rank's own long work);
        `stop`: a restart would do the same again; `who`: at fault, where not the line's."""
        cat = CATEGORIES[category]
        rc, summary, reason = found
        return verdict(
            category=cat.id,
            recovery="fix_and_resubmit" if stop else cat.recovery,
            retryable=False if stop else cat.retryable,
            confidence=confidence,
            summary=summary,
            reasons=(reason,),
            root_cause=rc,
            who=who or last.identity,
            findings=shown,
            decided_by="timeline",
            explained=tuple(explain(cat.id, last, findings, rules)),
        )

    if culprit is not None and culprit.stall is not None:
        stall = culprit.stall
        found = _stall_root(stall, lang)
        return measured("hang", found, stall.last, 0.75 if deciding_hits else 0.7, False)
    if culprit is not None and culprit.lost is not None:
        lost = culprit.lost
        # a node that logged nothing is who is at fault, not the rank whose report is cited
        who = ev.job.node_identity(lost.empty) if lost.empty is not None else None
        return measured("unknown", _lost_root(lost, lang, who), lost.last, 0.6, False, who)
    if culprit is not None and culprit.busy is not None:
        busy = culprit.busy
        return measured("collective_timeout", _busy_root(busy, lang), busy.last, 0.6, True)
    asked = None
    root = culprit.hit if culprit is not None else None
    final = culprit is not None and culprit.final  # a rule read the logs to the end
    # a run whose final attempt trained to its end asks the model nothing when no line
    # decides: what looks like an error in it did not stop it (an earlier attempt's end)
    ended = root is None and not failed and trained
    if not ended and (
        root is None
        or (root.signature.category == "unknown" and not final and not root.signature.final)
    ):
        asked = _ask_model(model() if model else None, errors, ev, lang, failed, context, formats)
    if asked is not None and asked[1] is not None:
        opinion, model_root, model_summary = asked
        cat = CATEGORIES[opinion.category]
        return verdict(
            category=cat.id,
            recovery=cat.recovery,
            retryable=cat.retryable,
            confidence=opinion.probability,
            summary=model_summary,
            reasons=("classifier",),
            root_cause=model_root,
            findings=shown,
            decided_by="model",
            model=opinion,
            culprit_rule=None,
        )
    verdict = partial(verdict, model=asked[0] if asked else None)
    if root is None and (failed or not stats.complete):
        # the caller knows the job failed; or a reading the deadline cut short, which never
        # says "healthy": the cause may sit in what was not read
        unknown, cut = CATEGORIES["unknown"], not failed
        seen = None if cut else _unrecognised(errors, ev, context)
        summary, reason = (
            (say("reason.cut-short", lang, files=stats.files, lines=stats.lines), "cut-short")
            if cut
            else (
                (
                    say("reason.failed-unrecognised", lang, text=seen.text[:200]),
                    "failed-unrecognised",
                )
                if seen is not None
                else _silent_summary(ev, stats, lang)
            )
        )
        return verdict(
            category=unknown.id,
            recovery=unknown.recovery,
            retryable=unknown.retryable,
            confidence=0.3 if cut else 0.5,
            summary=summary,
            reasons=(reason,),
            root_cause=(
                _cited(seen, say("root.unrecognised", "en"), ev.job, formats) if seen else None
            ),
            findings=shown,
            decided_by="none" if cut else "caller",
        )
    if root is None:
        reason = "healthy" if stats.lines else "no-lines"
        return verdict(
            category=NONE,
            recovery=NONE,
            retryable=None,
            confidence=0.7 if stats.lines else 0.0,
            summary=say(f"reason.{reason}", lang),
            reasons=(reason,),
            root_cause=None,
            findings=shown,
            decided_by="none",
        )
    assert culprit is not None
    sig = root.signature
    lag = culprit.lag
    category = (
        "hang" if lag is not None else (culprit.reading if culprit.reading else reading(root))
    )
    explained = tuple(explain(category, root, findings, rules))
    kinds = frozenset(e.signature for e in explained)
    cat = CATEGORIES[category]
    own = category == sig.category  # the signature's own recovery is for its own reading
    recovery = (sig.recovery if own else None) or cat.recovery
    retryable = sig.retryable if own and sig.retryable_set else cat.retryable
    if recovery != cat.recovery and retryable is False:
        retryable = True  # the signature's own recovery is a restart of some kind: it helps
    idle = _idle_wait(root, ev, category)
    mismatch = _mismatched(root, deciding_hits, category)
    fixed = _diverged_from_the_start(root, ev) or _fixed_input(root, ev) or idle or mismatch
    if fixed and not sig.recovery:
        recovery, retryable = "fix_and_resubmit", False
    rc = RootCause(
        file=root.file,
        line=root.line,
        offset=root.offset,
        rank=culprit.rank,
        host=culprit.host,
        time=root.time.iso() if root.time else None,
        signature=sig.id,
        text=root.text,
        message=render_message(root),
        context=root.context,
        context_first_line=root.context_first_line,
        captures=dict(root.captures),
    )
    key = (sig.id, template(root))
    root_first = [f for f in findings if (f.signature.id, template(f.first)) == key]
    rest = [f for f in findings if f not in root_first]
    ordered = tuple((root_first + rest)[:MAX_FINDINGS])
    confidence = _confidence(root, deciding_hits)
    if (
        lag is not None
        or culprit.rule == "unresponsive"
        or (
            (culprit.rule == "stuck" or sig.category == "hang")
            and _others_wait(culprit.rank, deciding_hits)
        )
    ):  # the logs show the others waiting for the root's rank
        confidence = max(confidence, _STUCK_CONFIDENCE)
    return verdict(
        category=category,
        recovery=recovery,
        retryable=retryable,
        confidence=confidence,
        **_said(
            ("found", _summary(culprit, findings, lang, category, kinds)),
            ("waits-end", _waited(culprit, spread_, lang)),
            ("lag", _lagged(lag, lang)),
            ("unresponsive", _unresponsive(culprit, lang)),
            ("idle-wait", _idle_summary(idle, lang) if idle else ""),
            (
                "mismatch",
                say("reason.mismatch", lang, seq=mismatch[0], ops=" / ".join(mismatch[1]))
                if mismatch
                else "",
            ),
            (culprit.rule, _reading_said(culprit, lang)),
            ("weak-evidence", _guess(confidence, lang)),
        ),
        root_cause=rc,
        who=culprit.who,
        reporter=sig.role == "symptom"
        and category == sig.category
        and category in _REPORTED
        and culprit.host == root.host,
        findings=ordered,
        decided_by="signature",
        explained=explained,
    )
