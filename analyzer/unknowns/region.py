"""Error-looking lines of a job, kept bounded: what the classifier and the template miner read.

Signatures see only what they know. For a failure no signature knows, the evidence is
in lines that merely look like errors (`... failed`, `FooError:`, `[ERROR]`); the scan's
automaton finds them with the same block pass as the signatures (ERROR_LINE below), and
this module keeps, per file, the first and last few of them, and the file's last lines
whatever they look like: the end of a log is where a failure shows, often in words no
error pattern knows (a kubelet's "Shutdown manager killing pod", an exit code). The
failure region of a job is then those lines of the file that went wrong first, then the
others, whose masked text is what the classifier learns from. (The last lines raised the
held-out accuracy from 0.77 to 0.85: issue 6.)
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..read.errors import ErrorLine, Unread

# One automaton pattern for "this line looks like an error". Broad on purpose: these
# lines are only kept (bounded), never turned into findings on their own.
ERROR_LINE = (
    r"(?i)\b(?:error|errors|exception|fatal|fail|failed|failure|fails|killed|"
    r"abort|aborted|aborting|timeout|timed out|panic|cannot|unable to|denied|not found|"
    r"no such|segmentation|core dumped|terminated|terminating|oom|nan|inf|invalid|"
    r"unhealthy|lost|refused|exceeded|corrupt|corrupted|mismatch|unexpected|evicted|"
    r"preempted|cancelled|canceled)\b|[a-z](?:Error|Exception)\b|\[E\d{4}|"
    r"\bE\d{4} |\bERR\d{5}\b|错误|失败|异常|超时"
)
# Lines the classifier may not cite on their own: a line that calls itself harmless (or
# gives advice) is never evidence, and a line at warning or info level (without an error
# level or an exception name; NCCL's WARN is its error level) is evidence only when the
# caller knows the job failed. On healthy runs these were its false alarms (DeepSpeed's
# "OVERFLOW! ... Skipping step", a WARNING that a backend is "not yet implemented", CANN's
# `[INFO]` awatchdog line "watchdog timeout, dogId ..."); in failed jobs a warning or a
# notice is often all there is ("instance is being preempted", "Retry=3 ... 503", Ray's
# "graceful shutdown triggered ... SIGTERM").
_BELOW_ERROR = re.compile(
    r"\bWARN(?:ING)?\b|\bWarning:|\b[A-Z][A-Za-z]*Warning\b|(?:^|[\[\s])[WI]\d{4} \d\d:|"
    r"\bINFO\b"
)
_ERROR_LEVEL = re.compile(
    r"\b(?:ERROR|FATAL|CRITICAL|Traceback)\b|(?:^|[\[\s])[EF]\d{4} \d\d:|\bNCCL WARN\b|"
    r"[a-z](?:Error|Exception)\b"
)
_HARMLESS = re.compile(
    r"(?i)\b(?:can|may|could) (?:be )?(?:safely )?(?:be )?ignored?\b|\bsafe to ignore\b|"
    r"\bharmless\b|\bno action (?:is )?(?:needed|required)\b|\bsucceeded after\b|"
    r"\bretr(?:y|ying|ied)\b.*\bsucceed(?:ed|s)?\b|\bskipping step\b|\breducing loss scale\b"
)


# Advice a framework prints beside an error (how to get more detail, what might be
# wrong): the error is on another line, and that one is the evidence.
_ADVICE = re.compile(
    r"(?:^\s*|\]:? ?|: )(?:For debugging consider passing|Set the environment variable "
    r"\w+=\S+ for|Compile with `?TORCH_USE_CUDA_DSA|CUDA kernel errors might be "
    r"asynchronously reported|Please (?:check|refer to|see|read|consider|make sure)\b|"
    r"(?:You|you) (?:can|may|might|should) (?:try|set|consider|check)\b|"
    r"(?:This|The error) (?:may|might|could) be caused by\b|Possible [Cc]auses?:|Solution:)"
)


# A traceback's header (and multiprocessing's `Process Process-2:` before it) and its
# frames say where, never what: the failure is the traceback's last line (and when an
# excerpt ends before it, no line says what failed); also behind a logger's prefix (vLLM
# prints frames after `ERROR 03-04 12:57:08 [engine.py:409] `)
_WHERE_ONLY = re.compile(
    r"Traceback \(most recent call last\):\s*$|^Process [\w-]{1,64}:\s*$|"
    r"^(?:.{0,120}?\]:?)?\s*(?:File \"[^\"]*\", line \d+|frame #\d+: )"
)


def where_only(line: ErrorLine, message: str | None = None) -> bool:
    """Whether a line only says where (a traceback's header, a stack frame), also behind
    a prefix the formats know (a timestamp; `message`: the line's, where already made):
    the model may read it with the rest, never cite it as what failed."""
    if _WHERE_ONLY.search(line.text):
        return True
    return _WHERE_ONLY.search(line.message() if message is None else message) is not None


# a line indented under its prefix (`[rank3]:     run_exp()`, `ERROR ... [engine.py:409]
#     hidden_states = ...`): a frame's source line
_INDENTED = re.compile(r"(?:\S*\]:)?\s|.{0,120}?\]:? {2,}\S")


# the markers Python 3.11+ prints under a frame's code line (`    ^^^^^^`, `~~~~^^^`)
_MARKER = re.compile(r"(?:^|\]:?)\s*[\^~]{3,}[\s^~]*$")


# A metrics record: a line made mostly of `name: number` (or `name=number`) fields, three
# or more, and saying nothing alarming outside them, as a trainer's progress line prints
# them. Its words are names of metrics (`number of nan iterations: 0`, `inf_count=0`), not
# findings: a hard-wrapped Megatron line pasted from a terminal left the fragment
# ` rate: ... | number of skipped iterations:  0 | number of nan` alone on a line (the
# label cut at the wrap), and the classifier read a healthy run as a NaN. A field whose
# value is NaN or Inf is a finding (`loss: nan`); a failure that quotes a few fields
# (`WorkNCCL(SeqNum=57, ..., Timeout(ms)=1800000) ran for ...`, the kernel's `Killed
# process 1234 (python) total-vm:...kB, anon-rss:...`) says it outside them.
_FIELD = re.compile(
    r"(?<![\w(])[A-Za-z][\w/().%-]*(?: [A-Za-z(][\w/().%-]*){0,6}\s*[:=]\s*"
    r"[-+]?\d[\d.]*(?:[eE][-+]?\d+)?%?"
)  # names are words (no bare numbers: `Killed process 1234 (python) total-vm:` is no name)
_CUT_LABEL = re.compile(r"[|,]\s*[A-Za-z][\w ]{0,48}$")  # a label the wrap cut off its value
_NON_FINITE = re.compile(r"(?i)[:=]\s*[-+]?(?:nan|inf(?:inity)?)\b")
_RECORD_SHARE = 0.6


def metrics_record(text: str) -> bool:
    """Whether a line is a metrics record with finite values only (no error level): data
    a trainer printed, never the statement of a failure."""
    if _NON_FINITE.search(text) or error_level(text):
        return False
    fields = [len(m.group()) for m in _FIELD.finditer(text)]
    if len(fields) < 3 or sum(fields) < _RECORD_SHARE * len(text.strip()):
        return False
    return not error_looking(_CUT_LABEL.sub("", _FIELD.sub(" ", text)))


# NCCL's debug output (`NCCL_DEBUG=INFO`): its errors are `NCCL WARN` and the return-code
# trace that follows one (`NCCL INFO misc/socket.cc:568 -> 2`); any other INFO line
# (`comm 0x... rank 14 ... - Abort COMPLETE`, `NET/IB : Using [0]mlx5_0:1/IB`) reports what
# NCCL did, never what failed
_NCCL_INFO = re.compile(r"\bNCCL INFO\b(?!.*-> \d+\s*$)")


def stating(lines: Sequence[ErrorLine]) -> list[int]:
    """The indexes of the lines that may say what failed: not a traceback's header or
    frame (`where_only`), nor the indented code line right under a frame (behind any
    prefix: a timestamp, `[rank3]:`, a logger's), nor the markers under it, nor a metrics
    record (`metrics_record`), nor NCCL's INFO output."""
    messages = [x.message() for x in lines]  # made once: each check reads both forms
    frames = {(x.file, x.line) for x, m in zip(lines, messages, strict=True) if where_only(x, m)}

    def code(x: ErrorLine, m: str) -> bool:
        return (x.file, x.line - 1) in frames and bool(
            _INDENTED.match(x.text) or _INDENTED.match(m)
        )

    return [
        i
        for i, (x, m) in enumerate(zip(lines, messages, strict=True))
        if (x.file, x.line) not in frames
        and not code(x, m)
        and not (_MARKER.search(x.text) or _MARKER.search(m))
        and not metrics_record(m)
        and not _NCCL_INFO.search(m)
    ]


def harmless(text: str) -> bool:
    """Whether a line is no evidence by its own words: it calls itself harmless
    (ignorable, retried with success, a loss-scale step skipped) or gives advice
    (`For debugging consider passing CUDA_LAUNCH_BLOCKING=1`, `Set the environment
    variable HYDRA_FULL_ERROR=1 for a complete stack trace`)."""
    return bool(_HARMLESS.search(text) or _ADVICE.search(text))


_ERROR_LOOKING = re.compile(ERROR_LINE)


def error_looking(text: str) -> bool:
    """Whether a line looks like an error at all (ERROR_LINE, or an error level such as
    NCCL's WARN): a file's last lines are kept whatever they say, and `step 1` is no
    evidence of a failure."""
    return bool(_ERROR_LOOKING.search(text) or _ERROR_LEVEL.search(text))


def error_level(text: str) -> bool:
    """Whether a line carries an error level (ERROR, FATAL, glog's E1207, NCCL's WARN)
    or names an exception."""
    return _ERROR_LEVEL.search(text) is not None


def below_error(text: str) -> bool:
    """Whether a line is at warning or info level and carries no error level."""
    return bool(_BELOW_ERROR.search(text)) and not error_level(text)


_PER_FILE_HEAD = 20
_PER_FILE_TAIL = 40
LAST_LINES = 20  # a file's last non-empty lines, kept whatever they say
_MAX_FILES = 4096
REGION_LINES = 120


def _read(x: ErrorLine | Unread) -> ErrorLine:
    return x.read() if isinstance(x, Unread) else x


@dataclass
class _FileLines:
    head: list[ErrorLine | Unread] = field(default_factory=list)
    tail: deque[ErrorLine | Unread] = field(default_factory=lambda: deque(maxlen=_PER_FILE_TAIL))
    last: list[ErrorLine] = field(default_factory=list)
    count: int = 0

    def lines(self) -> list[ErrorLine]:
        """Head and tail, read (once: kept read)."""
        out = [_read(x) for x in (*self.head, *self.tail)]
        n = len(self.head)
        self.head[:] = out[:n]
        self.tail.clear()
        self.tail.extend(out[n:])
        return out


class ErrorLines:
    """The error-looking lines of one job: the first and last few of each file."""

    def __init__(self) -> None:
        self._files: dict[int, _FileLines] = {}

    def _file(self, file_index: int) -> _FileLines | None:
        f = self._files.get(file_index)
        if f is None:
            if len(self._files) >= _MAX_FILES:
                return None  # bounded memory: past 4,096 files only the first (path order) count
            f = self._files[file_index] = _FileLines()
        return f

    def add(self, file_index: int, line: ErrorLine | Unread) -> None:
        self.add_run(file_index, 1, lambda _: line)

    def add_run(
        self, file_index: int, count: int, line: Callable[[int], ErrorLine | Unread]
    ) -> None:
        """`count` lines in a row, the i-th made by `line(i)` only where it is kept (the
        head's free places, then the last _PER_FILE_TAIL): what adding each gives."""
        f = self._file(file_index) if count else None
        if f is None:
            return
        f.count += count
        i = 0
        while i < count and len(f.head) < _PER_FILE_HEAD:
            f.head.append(line(i))
            i += 1
        f.tail.extend(line(j) for j in range(max(i, count - _PER_FILE_TAIL), count))

    def merge(self, other: ErrorLines, base: int, fix: Callable[[ErrorLine], ErrorLine]) -> None:
        """Add another reader's files or file parts (analyzer.read.workers), numbered from
        `base`, each line passed through `fix`, as if they had been read here.

        Exact for parts too: a part keeps its first 20 and last 40 lines, and a file's
        first 20 and last 40 are among those of its parts.
        """
        for i in sorted(other._files):
            mine = self._file(base + i)
            if mine is None:
                return
            theirs = other._files[i]
            lines = [*mine.lines(), *(fix(x) for x in theirs.lines())]
            mine.head[:] = lines[:_PER_FILE_HEAD]
            mine.tail.clear()
            mine.tail.extend(lines[_PER_FILE_HEAD:])
            mine.last = [fix(x) for x in theirs.last] or mine.last
            mine.count += theirs.count

    def set_last(self, file_index: int, lines: list[ErrorLine]) -> None:
        """The file's last lines (at most LAST_LINES), given when the file ends."""
        f = self._file(file_index)
        if f is not None:
            f.last = lines[-LAST_LINES:]

    def went_on(self, name: str, line: int) -> bool:
        """Whether file `name` went on past `line` as if nothing had happened: its last
        LAST_LINES lines all come after it and none looks like an error (a start-up's
        `import error: No module named 'triton'`, then the config it printed and ran)."""
        for f in self._files.values():
            if f.last and f.last[0].file == name:
                return (
                    len(f.last) == LAST_LINES
                    and f.last[0].line > line
                    and not any(error_looking(x.text) for x in f.last)
                )
        return False

    def of_file(self, file_index: int) -> list[ErrorLine]:
        """The file's error-looking lines (not its last lines): what the miner reads."""
        f = self._files.get(file_index)
        return f.lines() if f else []

    def _region_of(self, file_index: int) -> list[ErrorLine]:
        """Error lines and last lines of a file, in line order, each line once."""
        f = self._files[file_index]
        by_line = {x.line: x for x in f.last}
        by_line.update((x.line, x) for x in f.lines())
        return [by_line[k] for k in sorted(by_line)]

    def all(self) -> list[ErrorLine]:
        return [x for i in sorted(self._files) for x in self.of_file(i)]

    def region(self, first: int | None = None) -> list[ErrorLine]:
        """The failure region: the file `first` (where the root cause is, when one is
        known), then files in order of their earliest timed error line, up to
        REGION_LINES lines. Within a file the last lines weigh most: a failure ends a log.
        """

        def when(i: int) -> tuple[int, float, int]:
            times = [x.time.epoch for x in self.of_file(i) if x.time and x.time.absolute]
            return (0 if i == first else 1, min(times) if times else float("inf"), i)

        out: list[ErrorLine] = []
        for i in sorted(self._files, key=when):
            lines = self._region_of(i)
            out.extend(lines[-(REGION_LINES - len(out)) :])
            if len(out) >= REGION_LINES:
                break
        return out
