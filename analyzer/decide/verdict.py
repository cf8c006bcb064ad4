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
from ..rules.taxonomy import CATEGORIES, NONE, category_name
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
from ..unknowns.region import ErrorLines, error_looking, harmless, warning_only
from .culprit import Culprit, Lag, Lost, chains, choose, deciding, spread

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
    sig = root.signature
    conf = _BASE_CONFIDENCE[sig.role][sig.severity]
    tier = (ROLE_RANK[sig.role], SEVERITY_RANK[sig.severity])
    rivals = {
        h.signature.category
        for h in candidates
        if (ROLE_RANK[h.signature.role], SEVERITY_RANK[h.signature.severity]) == tier
        and h.signature.category != sig.category
    }
    conf -= 0.1 * min(len(rivals), 3)
    support = sum(1 for h in candidates if h.signature.category == sig.category)
    if support >= 2:
        conf += 0.05
    if sig.category == "unknown":
        conf = min(conf, 0.3)
    return max(0.05, min(0.99, conf))


def reading(root: Hit) -> str:
    """The category of a root-cause line: its signature's, or the more specific one its
    signature names for a traceback that passes through a matching frame (`raised_in`:
    a FileNotFoundError raised while loading a checkpoint is `checkpoint_corrupt`)."""
    for category, rx in root.signature.raised_in:
        if any(_FRAME.search(x) and re.search(rx, x) for x in root.context):
            return category
    return root.signature.category


_FRAME = re.compile(r'File "[^"]*", line \d+, in \S')


def finding_kind(category: str, explained: bool, lang: str = "en") -> str:
    """What a finding is, as the reports name it: a `preempted` line that the root cause
    explains is the launcher's SIGTERM to the other workers after the failure, their
    teardown, not a preemption of the job."""
    if explained and category == "preempted":
        return "拆除" if lang == "zh" else "teardown"
    return category


def _summary(
    culprit: Culprit, findings: list[Finding], lang: str, category: str, explained: frozenset[str]
) -> str:
    root = culprit.hit
    assert root is not None
    where = []
    if culprit.rank is not None:
        where.append(f"rank {culprit.rank}")
    if culprit.host:
        where.append(culprit.host)
    telling = [f for f in findings if f.signature.severity != "info"]  # info is context
    others = Counter(
        finding_kind(f.signature.category, f.signature.id in explained)
        for f in telling
        if f.first is not root and f.signature.role != "cause"
        for _ in range(f.count)
    )
    n_other = sum(f.count for f in telling) - 1
    if lang == "zh":
        head = f"{category_name(category, 'zh')}"
        loc = f"（{', '.join(where)}）" if where else ""
        tail = f"；另有 {n_other} 条相关日志" if n_other > 0 else ""
        return f"{head}{loc}：{render_message(root, 'zh')}{tail}。"
    loc = f" on {', '.join(where)}" if where else ""
    tail = ""
    if n_other > 0:
        kinds = ", ".join(f"{k} x{v}" for k, v in others.most_common(3))
        tail = f"; {n_other} more matching lines" + (f" (secondary: {kinds})" if kinds else "")
    return f"{category_name(category, 'en').capitalize()}{loc}: {render_message(root)}{tail}."


def _waited(culprit: Culprit | None, spread_: Spread | None, lang: str) -> str:
    """For a culprit found at the end of the wait graph (rule `waits-for`), the chains that lead
    to it: what a reader checks the verdict against."""
    if culprit is None or culprit.rule != "waits-for" or culprit.hit is None or not spread_:
        return ""
    shown = "; ".join(chains(spread_.waits))
    rank = culprit.rank
    if lang == "zh":
        return f" 各 rank 的等待链止于 rank {rank}：{shown}。"
    return f" The ranks' waits end at rank {rank}: {shown}."


def _lagged(lag: Lag | None, lang: str) -> str:
    """For a rank behind its process group (rule `lags`): the numbers the verdict rests on."""
    if lag is None:
        return ""
    ahead = ", ".join(map(str, lag.ahead[:8])) + (" ..." if len(lag.ahead) > 8 else "")
    if lang == "zh":
        return (
            f" rank {lag.rank} 最后入队的集合通信是第 {lag.enqueued} 个，而 rank {ahead} "
            f"已入队第 {lag.ahead_enqueued} 个并在其中等待：rank {lag.rank} 停止了发起集合通信。"
        )
    return (
        f" Rank {lag.rank} last enqueued collective {lag.enqueued}; ranks {ahead} enqueued "
        f"{lag.ahead_enqueued} and wait in it: rank {lag.rank} stopped issuing collectives."
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
    """Said plainly when the line that decides is weak evidence of its category."""
    if confidence >= GUESS_BELOW:
        return ""
    if lang == "zh":
        return f" 证据薄弱（置信度 {confidence:.2f}）：这是推测，请按下文的建议核实。"
    return (
        f" The evidence is weak (confidence {confidence:.2f}): this is a guess; "
        "check it as the advice below says."
    )


def _stall_root(stall: Stall, lang: str, ev: Evidence) -> tuple[RootCause, str]:
    last = stall.last
    step = last.captures.get("step", "?")
    minutes = stall.gap / 60
    if stall.reason == "silent":
        who = f"rank {last.rank}"
        summary = (
            f"作业卡死：其他 rank 报告集合通信超时，{who} 没有；它最后的进度是第 {step} 步"
            f"（{last.time.iso() if last.time else '?'}），其他 rank 在等它。"
            if lang == "zh"
            else f"Job hung: the other ranks report a collective timeout and {who} does not; "
            f"its last progress was step {step} ({last.time.iso() if last.time else '?'}): "
            "the others waited for it."
        )
    elif stall.reason == "together":
        ranks = stall.ranks
        when = last.time.iso() if last.time else "?"
        summary = (
            f"作业卡死：全部 {ranks} 个 rank 都在第 {step} 步（{when}）之后同时停止前进，"
            f"其后 {minutes:.0f} 分钟日志仍在继续；日志无法说明其他 rank 在等哪一个："
            "请在终止前抓取各 rank 的调用栈（py-spy dump，或由 ha-run 自动抓取）。"
            if lang == "zh"
            else f"Job hung: all {ranks} ranks stopped progressing together after step {step} "
            f"({when}); the logs go on for {minutes:.0f} more minutes without progress "
            f"(median step {stall.step_time:.3g} s). They all block in one collective, and "
            "the logs do not show which rank the others wait for: take a stack dump of every "
            "rank before killing the job (py-spy dump, or ha-run, which takes one)."
        )
    elif lang == "zh":
        who = f"rank {last.rank}" if last.rank is not None else last.file
        summary = (
            f"作业卡死：{who} 在第 {step} 步（{last.time.iso() if last.time else '?'}）之后"
            f"停止前进，其后 {minutes:.0f} 分钟日志仍在继续（中位步长 {stall.step_time:.3g} 秒）。"
        )
    else:
        who = f"Rank {last.rank}" if last.rank is not None else f"{last.file}"
        summary = (
            f"Job hung: {who} stopped progressing after step {step} "
            f"({last.time.iso() if last.time else '?'}); the logs go on for {minutes:.0f} more "
            f"minutes without progress (median step {stall.step_time:.3g} s)."
        )
    message = (
        f"last progress (step {step}); no collective timeout reported, the others waited"
        if stall.reason == "silent"
        else f"last progress (step {step}); {minutes:.0f} min without progress"
    )
    # "together": the line is every rank's; no rank is shown to hang
    return _progress_root(last, message, named=stall.reason != "together"), summary


def _lost_root(lost: Lost, lang: str) -> tuple[RootCause, str]:
    last, peer = lost.last, lost.reported
    node = last.host or (f"the node of rank {last.rank}" if last.rank is not None else last.file)
    node_zh = last.host or (f"rank {last.rank} 所在节点" if last.rank is not None else last.file)
    when = last.time.iso() if last.time else "?"
    others = peer.host or f"rank {peer.rank}"
    if lang == "zh":
        summary = (
            f"节点丢失：{node_zh} 的日志在 {when} 之后中断，没有任何错误，也没有退出过程；"
            f"同时 {others} 等 {lost.reporters} 个 rank 报告与对端失去连接。"
            f"根因在 {node_zh}（掉电、内核崩溃或其 Pod 被杀），其他节点只是受害者。"
        )
    else:
        summary = (
            f"Node lost: the logs of {node} stop at {when} with no error and no teardown, while "
            f"{lost.reporters} rank(s) elsewhere ({others} first) lost their peers. The cause "
            f"is on {node} (power, a kernel panic, its pod killed); the others are symptoms."
        )
    message = "last line of a node whose ranks all stopped with no error; its peers lost it"
    return _progress_root(last, message), summary


def _progress_root(last: Hit, message: str, named: bool = True) -> RootCause:
    """A progress line cited as the root cause: where a rank stopped, or what it was busy
    with; `named`: the line's rank and host are the culprit's (not so when every rank
    stopped at the same step)."""
    return RootCause(
        file=last.file,
        line=last.line,
        offset=last.offset,
        rank=last.rank if named else None,
        host=last.host if named else None,
        time=last.time.iso() if last.time else None,
        signature=None,
        text=last.text,
        message=message,
        context=(last.text,),
        context_first_line=last.line,
    )


# what a rank busy in a phase of that kind was doing
_PHASES = {
    "en": {"checkpoint_save": "saving a checkpoint", "eval": "evaluating"},
    "zh": {"checkpoint_save": "保存检查点", "eval": "评估"},
}


def _busy_root(busy: Busy, lang: str) -> tuple[RootCause, str]:
    last = busy.last
    kind = last.signature.progress or "work"
    work = last.captures.get("what") or _PHASES[lang if lang == "zh" else "en"].get(kind, kind)
    ran, limit = busy.seconds / 60, busy.timeout / 60
    if lang == "zh":
        who = f"rank {last.rank}" if last.rank is not None else f"{last.file} 的进程"
        summary = (
            f"集合通信超时：{who} 在忙自己的工作（{work}，{ran:.0f} 分钟），"
            f"达到集合通信超时（{limit:.0f} 分钟），其他 rank 在集合通信中等它直至超时；"
            "重启会同样超时：延长超时，或在建立进程组之前（或在每个 rank 上）完成这项工作。"
        )
    else:
        who = f"Rank {last.rank}" if last.rank is not None else f"The process of {last.file}"
        summary = (
            f"Collective timeout: {who} was busy with work of its own ({work}, {ran:.0f} min), "
            f"as long as the collective timeout ({limit:.0f} min), while "
            "the other ranks waited for it in a collective; a restart times out the same way: "
            "raise the timeout, or do that work before the process group is created or on "
            "every rank."
        )
    message = f"own work for {ran:.0f} min; the collective timeout is {limit:.0f} min"
    return _progress_root(last, message), summary


# Steps up to this one count as "the start": no checkpoint of the run predates them.
_EARLY_STEPS = 2


def _diverged_from_the_start(root: Hit, ev: Evidence) -> bool:
    """NaN from the first steps of a fresh run: there is no good checkpoint to roll back
    to, and a restart diverges the same way, so the setup must change (the taxonomy's
    'restart would fail the same way again')."""
    if root.signature.category != "numerical_error" or ev.timeline.resumed:
        return False
    step = ev.timeline.step_at(root.file_index, root.line)
    return step is not None and step <= _EARLY_STEPS


# where downloaded and pretrained models live: a file there is an input of the job, not
# one of its own checkpoints (the Hugging Face hub cache, torch.hub, ModelScope)
_MODEL_CACHE = re.compile(
    r"[/\\]\.cache[/\\](?:huggingface|torch[/\\]hub)[/\\]|models--[\w.-]+--|modelscope[/\\]hub[/\\]"
)
_PRETRAINED_LOAD = re.compile(r"\bin (?:from_pretrained|_load_pretrained_model)\b")


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
    where = frame.captures.get("frame") or "its input loop"
    if lang == "zh":
        return (
            f" 该 rank 在 {where} 中等待下一个请求：服务空闲时间超过了集合通信超时，"
            "重启后空闲同样会超时；请调大超时（HCCL_EXEC_TIMEOUT 设为大于 0 的值、"
            "进程组的 timeout），或让驱动进程定期发送心跳。"
        )
    return (
        f" The rank was waiting in {where} for the driver's next request: the server sat idle "
        "longer than the collective timeout, and a restart times out the same way after as "
        "long idle; raise the timeout (HCCL_EXEC_TIMEOUT above 0, the process group's "
        "timeout) or have the driver send a heartbeat."
    )


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
    line = region[model.strongest_line(messages, pred.category)] if sure else None
    # the line it would cite must state a failure (analyzer.unknowns.region): never one that calls
    # itself harmless or that a signature knows as context; a warning, or a last line that
    # does not look like an error at all, only when the caller knows the job failed
    sure = (
        line is not None
        and not harmless(line.text)
        and (failed or (error_looking(line.text) and not warning_only(line.text)))
        and not context(line.text)
    )
    opinion = ModelOpinion(pred.category, pred.probability, pred.alternatives, sure)
    if line is None or not sure:
        return opinion, None, ""
    name = category_name(pred.category, lang)
    summary = (
        f"{name}（分类模型判断，概率 {pred.probability:.2f}；没有特征规则匹配）：{line.text[:200]}"
        if lang == "zh"
        else f"{name.capitalize()} (classifier, p={pred.probability:.2f}; no signature "
        f"matched): {line.text[:200]}"
    )
    rc = RootCause(
        file=line.file,
        line=line.line,
        offset=0,
        rank=None,
        host=None,
        time=line.time.iso() if line.time else None,
        signature=None,
        text=line.text,
        message=f"classifier: {pred.category} (p={pred.probability:.2f})",
        context=(),
        context_first_line=line.line,
    )
    return opinion, rc, summary


# Captures that name a device in root-cause lines (Xid PCI ids, NPU/card ids, bus ids).
_DEVICE_KEYS = ("pci", "busid", "device", "card", "gpu", "npu", "uuid")


def _with_targets(
    job: JobModel, who: Identity | None = None, aside: str = "", **fields: Any
) -> Verdict:
    """A Verdict whose `act_on` names what its root cause points at: the host, rank and
    device of who is at fault (`who`; the root line's captures first); for a link
    fault both ends, when the line names the peer (an address, a remote rank). Its
    category and recovery are the taxonomy's ids (an id nobody declared raises here, in
    the suite, not in a controller that acts on it)."""
    fields["category"] = CategoryId(fields["category"])
    fields["recovery"] = RecoveryId(fields["recovery"])
    if aside:  # the alarming line it set aside, said in every verdict's summary
        fields["summary"] = f"{fields['summary']} {aside}"
    rc: RootCause | None = fields.get("root_cause")
    if rc is not None:
        hosts = [rc.host] if rc.host else []
        failed = rc.captures.get("failed_host")  # a node the line says failed (Ray's GCS)
        if failed and failed not in hosts:
            hosts.append(job.peer(failed) or failed)
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


def _cut_summary(stats: Stats, lang: str) -> str:
    """What a reading cut short by the deadline says when it found no cause."""
    if lang == "zh":
        return (
            f"在截止时间内只读取了部分日志（{stats.files:,} 个文件，{stats.lines:,} 行），"
            "其中没有发现故障原因；未读取的部分可能含有原因。"
        )
    return (
        f"No cause in the part of the logs read before the deadline ({stats.files:,} "
        f"files, {stats.lines:,} lines); the rest was not read and may hold it."
    )


def _silent_summary(ev: Evidence, stats: Stats, lang: str) -> str:
    """What the logs of a job known to have failed do show, when none says why: where
    each process stood (a save begun and never finished first, else the furthest step)."""
    zh = lang == "zh"
    head = (
        "作业已失败，但日志未说明原因" if zh else "The job failed, but no line in the logs says why"
    )
    if not stats.lines:
        return head + ("；没有可读取的日志。" if zh else "; no log lines could be read.")
    streams = list(ev.timeline.streams.values())
    saving = [
        s
        for s in streams
        if s.last_phase is not None and s.last_phase.signature.progress == "checkpoint_save"
    ]
    if saving:
        s = min(saving, key=lambda s: (s.last_phase.line if s.last_phase else 0, s.file_index))
        who = f"rank {s.rank}" if s.rank is not None else PurePath(s.file).name
        if zh:
            at = f"在第 {s.last_step} 步后" if s.last_step is not None else ""
            return f"{head}：{who} {at}开始保存检查点，未完成。"
        at = f" after step {s.last_step}" if s.last_step is not None else ""
        return f"{head}: {who} began saving a checkpoint{at} and never finished."
    stepped = [s for s in streams if s.last_step is not None]
    if stepped:
        s = max(stepped, key=lambda s: (s.last_step or 0, -s.file_index))
        who = f"rank {s.rank}" if s.rank is not None else PurePath(s.file).name
        if zh:
            return f"{head}：最后的进度是 {who} 的第 {s.last_step} 步，之后日志结束。"
        return f"{head}: the last progress is {who} at step {s.last_step}, then the logs end."
    return head + ("。" if zh else ".")


def _set_aside(ev: Evidence, lang: str) -> str:
    """A sentence on the first fatal or error line of a kernel or system log that could
    not decide because of its time or place (an old Xid in a kernel log collected whole):
    the reader sees that it was seen, and why it is not the cause."""
    aside = [
        h for h in ev.candidates if h.signature.severity in ("fatal", "error") and not ev.in_span(h)
    ]
    if not aside:
        return ""
    h = aside[0]
    where = f" on {h.host}" if h.host else ""
    when = ""
    if ev.span is not None and h.time is not None and h.time.absolute:
        t = h.time.epoch
        gap = ev.span[0] - t if t < ev.span[0] else t - ev.span[1]
        ago = (
            f"{gap / 86400:.0f} days"
            if gap >= 86400
            else (f"{gap / 3600:.0f} hours" if gap >= 3600 else f"{gap / 60:.0f} minutes")
        )
        when = f", {ago} {'before' if t < ev.span[0] else 'after'} the job's own lines"
    if lang == "zh":
        where_zh = f"（{h.host}）" if h.host else ""
        return (
            f"另见 {h.file}:{h.line}{where_zh} 的 {h.signature.id}：它在作业运行时段之外"
            "（或在作业开始之前打印），只作背景，不是本次故障的原因。"
        )
    return (
        f"Also seen: {h.signature.id}{where} ({h.file}:{h.line}{when}): outside this "
        "job's run, context only, not its cause."
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
    deciding_hits = deciding(ev)
    culprit = choose(ev)
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
        category: str, found: tuple[RootCause, str], last: Hit, confidence: float, stop: bool
    ) -> Verdict:
        """A verdict the timeline decided (a stall, a lost node, a rank's own long work);
        `stop`: a restart would do the same again."""
        cat = CATEGORIES[category]
        rc, summary = found
        return verdict(
            category=cat.id,
            recovery="fix_and_resubmit" if stop else cat.recovery,
            retryable=False if stop else cat.retryable,
            confidence=confidence,
            summary=summary,
            root_cause=rc,
            who=last.identity,
            findings=shown,
            decided_by="timeline",
            explained=tuple(explain(cat.id, last, findings, rules)),
        )

    if culprit is not None and culprit.stall is not None:
        stall = culprit.stall
        found = _stall_root(stall, lang, ev)
        return measured("hang", found, stall.last, 0.75 if deciding_hits else 0.7, False)
    if culprit is not None and culprit.lost is not None:
        lost = culprit.lost
        return measured("unknown", _lost_root(lost, lang), lost.last, 0.6, False)
    if culprit is not None and culprit.busy is not None:
        busy = culprit.busy
        return measured("collective_timeout", _busy_root(busy, lang), busy.last, 0.6, True)
    asked = None
    root = culprit.hit if culprit is not None else None
    final = culprit is not None and culprit.final  # a rule read the logs to the end
    if root is None or (
        root.signature.category == "unknown" and not final and not root.signature.final
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
            root_cause=model_root,
            findings=shown,
            decided_by="model",
            model=opinion,
            culprit_rule=None,
        )
    verdict = partial(verdict, model=asked[0] if asked else None)
    if root is None and (failed or (not stats.complete and stats.lines)):
        # the caller knows the job failed; or a reading the deadline cut short, which never
        # says "healthy": the cause may sit in what was not read
        unknown, cut = CATEGORIES["unknown"], not failed
        return verdict(
            category=unknown.id,
            recovery=unknown.recovery,
            retryable=unknown.retryable,
            confidence=0.3 if cut else 0.5,
            summary=_cut_summary(stats, lang) if cut else _silent_summary(ev, stats, lang),
            root_cause=None,
            findings=shown,
            decided_by="none" if cut else "caller",
        )
    if root is None:
        summary = (
            ("未发现故障迹象。" if lang == "zh" else "No failure found in the logs.")
            if stats.lines
            else ("没有可读取的日志。" if lang == "zh" else "No log lines could be read.")
        )
        return verdict(
            category=NONE,
            recovery=NONE,
            retryable=None,
            confidence=0.7 if stats.lines else 0.0,
            summary=summary,
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
    if (_diverged_from_the_start(root, ev) or _fixed_input(root, ev) or idle) and not sig.recovery:
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
    if lag is not None or (
        (culprit.rule == "stuck" or sig.category == "hang")
        and _others_wait(culprit.rank, deciding_hits)
    ):  # the logs show the others waiting for the root's rank
        confidence = max(confidence, _STUCK_CONFIDENCE)
    return verdict(
        category=category,
        recovery=recovery,
        retryable=retryable,
        confidence=confidence,
        summary=_summary(culprit, findings, lang, category, kinds)
        + _waited(culprit, spread_, lang)
        + _lagged(lag, lang)
        + (_idle_summary(idle, lang) if idle else "")
        + _guess(confidence, lang),
        root_cause=rc,
        who=culprit.who,
        findings=ordered,
        decided_by="signature",
        explained=explained,
    )
