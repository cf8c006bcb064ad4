"""Stack snapshots of live processes: which frame a thread was in, and whether that is a
collective.

A hung job is often dumped while alive: faulthandler (`dump_traceback_later`, a signal),
`py-spy dump`, gdb (`thread apply all bt`, `py-bt`), a script's own periodic printer.
Each thread block starts with a header line (a signature with `stack:` says which end of
its frames is the innermost) and lists frames in one of three grammars. The evidence of
a hang is the innermost frame of the application, not of the interpreter or the
library it waits in: a rank parked in `all_reduce` waits for another; a rank in
`_try_get_data` or `torch.save` is the one the others wait for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

# how many lines after a thread header are read for its frames
STACK_LINES = 60
# what a thread header's hit captures from its frames (a message may name them)
CAPTURES = ("frame", "where", "innermost", "collective")

# `  File "x.py", line 12, in f` (traceback, py-bt, format_stack), `  File "x.py", line 12
# in f` (faulthandler: no comma), `File: "x.py", line 12, in f` (a common recipe)
_PY = re.compile(
    r'^\s*File:? "(?P<file>[^"]+)", line (?P<line>\d+|\?\?\?),? in (?P<func>\S.*?)\s*$'
)
# py-spy: `    all_reduce (torch/distributed/distributed_c10d.py:2050)`, native `(libc.so.6)`
_SPY = re.compile(r"^\s+(?P<func>[^\s(][^(]*?) \((?P<file>[^():]+)(?::(?P<line>\d+))?\)\s*$")
# gdb bt: `#3  0x00007f22220966a4 in func (args) at file.c:105` or `... from lib.so`
_GDB = re.compile(
    r"^#\d+ +(?:0x[0-9a-fA-F]+ in )?(?P<func>[^\s(]+) ?\(.*?\)"
    r"(?: at (?P<file>[^\s:]+):(?P<line>\d+)| from (?P<lib>\S+))?\s*$"
)
# lines a thread block may hold that are neither frames nor code
_MARKERS = re.compile(r"^\s*(?:Garbage-collecting|<no Python frame>|\.\.\.|<[^>]*>)\s*$")

# The interpreter's own modules and native code: where every waiting thread ends up, never
# what it waits for (threading's Condition.wait, queue.get, selectors, a futex).
_INTERNAL = re.compile(
    r"(?:^|/)(?:threading|queue|selectors|socket|subprocess|contextlib|functools|"
    r"multiprocess(?:ing)?/[\w/]+|concurrent/[\w/]+|asyncio/[\w/]+)\.py$"
    r"|/lib/python\d\.\d+/(?!(?:site|dist)-packages/)[\w/]+\.py$"
    r"|(?:^|/)torch/(?!distributed/)[\w/]+\.py$"
    r"|(?:^|/)(?:libc|libpthread|libstdc\+\+|libgcc_s|ld-linux[\w-]*|libdl|librt)[\w.-]*\.so[\d.]*$"
    r"|(?:^|/)(?:sysdeps|nptl)/|^\?\?\??$|^python\d[\d.]*$"
)
# A frame in a collective: torch.distributed and the libraries' wrappers of it, or a call
# named for one (`all_reduce`, accelerate's `wait_for_everyone`, HF's `_nested_gather`),
# or the autograd engine's backward (`_engine_run_backward`, older `run_backward`): DDP
# and FSDP all-reduce and reduce-scatter gradients from inside it, so a rank of a hung
# job dumped there waits for its peers (py-spy of a real DDP hang: the stuck rank sits
# in its own code, its peer in `_engine_run_backward`).
_COLLECTIVE_FILE = re.compile(r"(?:^|/)(?:torch/distributed|deepspeed/comm|torch_npu/distributed)/")
_COLLECTIVE_CALL = re.compile(
    r"\b(?:all_?reduce\w*|all_?gather\w*|_nested_gather|gather_object|reduce_scatter\w*|"
    r"broadcast\w*|barrier|monitored_barrier|all_to_all\w*|alltoall\w*|wait_for_everyone|"
    r"i?send|i?recv|nccl\w+|hccl\w+|\w*run_backward)\b",
    re.IGNORECASE,
)
_THREAD_MAIN = re.compile(r"^_bootstrap(?:_inner)?$")
# faulthandler's thread headers and the lines of its fatal report between blocks
_HEADER = re.compile(
    r"^(?:(?:Current thread|Thread) 0x[0-9a-fA-F]+.*\(most recent call first\):"
    r"|Python runtime state: .*|Stack \(most recent call first\):)\s*$"
)


def captures(snap: Snapshot) -> dict[str, str]:
    """What a thread header's hit captures from its snapshot (CAPTURES)."""
    inner = snap.frames[0]
    return {
        "frame": snap.at.func,
        "where": snap.at.where,
        "innermost": f"{inner.func} ({inner.where})",
        "collective": "yes" if snap.collective else "no",
    }


def waits_outside(found: Mapping[str, str]) -> bool:
    """Whether a thread header's captures say it waits outside any collective."""
    return found.get("collective") == "no"


def waits_inside(found: Mapping[str, str]) -> bool:
    """Whether a thread header's captures say it waits in a collective."""
    return found.get("collective") == "yes"


@dataclass(frozen=True)
class Frame:
    """One frame of a thread block, and where its lines sit in the lines read."""

    func: str
    file: str
    line: int | None
    at: int  # index of the frame's line
    code_at: int | None = None  # index of its source line, where the dump prints one

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    @property
    def internal(self) -> bool:
        return bool(_INTERNAL.search(self.file))


@dataclass(frozen=True)
class Snapshot:
    """A thread's stack in a dump, read from the lines after its header."""

    frames: tuple[Frame, ...]  # innermost first
    at: Frame  # the innermost frame of the application
    collective: bool  # it waits in a collective
    main: bool  # the main thread (a started thread's outermost frame is _bootstrap)


def read(lines: Sequence[str], order: Literal["first", "last"]) -> Snapshot | None:
    """The thread block that starts at `lines[0]` (the line after its header), or None
    when no frame follows. `order`: which printed end is the innermost frame."""
    frames: list[Frame] = []
    for k, text in enumerate(lines):
        frame = _frame(text, k)
        if frame is not None:
            frames.append(frame)
            continue
        if not text.strip():
            if frames:
                break
            continue
        if _MARKERS.match(text):
            continue
        last = frames[-1] if frames else None
        if (
            last is not None
            and last.at == k - 1
            and last.code_at is None
            and _PY.match(lines[k - 1])
        ):
            frames[-1] = Frame(last.func, last.file, last.line, last.at, k)  # its source line
            continue
        break  # the next header, or output: the block has ended
    if not frames:
        return None
    inner = frames if order == "first" else frames[::-1]
    # a Python frame when there is one (py-spy --native and gdb print native ones too)
    python = [f for f in inner if f.file.endswith(".py")] or inner
    at = next((f for f in python if not f.internal), inner[0])
    upto = inner[: inner.index(at) + 1]
    collective = any(_in_collective(f, lines) for f in upto)
    main = not any(_THREAD_MAIN.match(f.func) for f in inner)
    return Snapshot(tuple(inner), at, collective, main)


def caller(frames: Sequence[Frame]) -> Frame | None:
    """The innermost frame of the application among `frames` (innermost first): not the
    interpreter's, not the collective library's (a Flight Recorder entry's stack starts
    in torch.distributed's all_reduce and its logging wrapper)."""
    return next((f for f in frames if not f.internal and not _COLLECTIVE_FILE.search(f.file)), None)


def crashed(before: Sequence[str]) -> bool:
    """Whether the thread block after `before` belongs to faulthandler's report of a
    fatal signal (`Fatal Python error: Segmentation fault`, then every thread): the
    process died there, it was not dumped alive."""
    for text in reversed(before):
        if text.startswith("Fatal Python error:"):
            return True
        if text.strip() and not (_frame(text, 0) or _MARKERS.match(text) or _HEADER.match(text)):
            return False
    return False


def _frame(text: str, k: int) -> Frame | None:
    m = _PY.match(text)
    if m:
        line = m["line"]
        return Frame(m["func"], m["file"], int(line) if line.isdigit() else None, k)
    m = _GDB.match(text)
    if m:
        line = m["line"]
        return Frame(m["func"], m["file"] or m["lib"] or "??", int(line) if line else None, k)
    m = _SPY.match(text)
    if m:
        line = m["line"]
        return Frame(m["func"].strip(), m["file"], int(line) if line else None, k)
    return None


def _in_collective(frame: Frame, lines: Sequence[str]) -> bool:
    code = lines[frame.code_at] if frame.code_at is not None else ""
    return bool(
        _COLLECTIVE_FILE.search(frame.file)
        or _COLLECTIVE_CALL.search(frame.func)
        or _COLLECTIVE_CALL.search(code)
    )
