#!/usr/bin/env python3
"""Build the decoy corpus: real hardware-fault lines placed where they are not events of the job.

A *decoy* is a line that looks like a hardware-fault cause (an Xid, an ECC or HBM UCE error, a
device heartbeat lost, a link down) but is not an event of this job, by the contract of
shared/spec/taxonomy.md ("Evidence: which lines may decide"): it is dated outside the job's span
(an old kernel log or journal, a sidecar's dmesg copy after the job, a pre-flight check), or it
is text a program printed as data (a dict, a JSON field, a JSON logger's message quoting it, help
text, a wandb summary, a quoted log line, an eval sample).

For every row of PLAN this script

1. copies a real recorded job, corpora/torchrun/multinode/<base>/logs/, byte for byte,
2. adds the decoy: one real line from real-lines.json (verbatim) placed in the layout's own
   format, on a node that is healthy in the base job, with times taken from the base's clock,
3. writes bundles/<name>/label.json: the base's expected verdict (a decoy changes nothing) plus
   what was added, where, and why it must not decide.

Only lines are added; every line of the base stays, in its order, with its bytes. The output is
deterministic (no clock, no randomness): running it twice gives identical bytes.

    python3 corpora/decoys/build.py            # rewrite corpora/decoys/bundles/
    python3 corpora/decoys/verify.py           # check the result

Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import sys
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BASES = REPO / "corpora" / "torchrun" / "multinode"
OUT = HERE / "bundles"
REAL = HERE / "real-lines.json"

KERNEL_KINDS = ("old-kernel-log", "old-journal", "after-job-dmesg")
TIME_KINDS = (*KERNEL_KINDS, "preflight")
RANK_KINDS = (
    "dict-sample",
    "json-field",
    "json-msg-quote",
    "docstring-help",
    "wandb-summary",
    "quoted-log-line",
    "eval-sample",
)
KINDS = TIME_KINDS + RANK_KINDS

# (kind, vendor, base, decoy host, local rank on that host (rank kinds), real line id)
# Failing bases: the decoy sits on a node other than the base's root-cause host.
PLAN = [
    # old-kernel-log: the node's kern.log collected whole, the fault 9 days before the job
    ("old-kernel-log", "nvidia", "mn-oomkill-logdir", "gpu-a17", None, "nv-xid79-fallen-off-bus"),
    ("old-kernel-log", "nvidia", "mn-none-node-dir", "gpu-b03", None, "nv-xid48-dbe"),
    ("old-kernel-log", "ascend", "mn-raise-node-dir", "gpu-a17", None, "as-kbox-multibit-ecc"),
    ("old-kernel-log", "ascend", "mn-none-logdir", "gpu-a17", None, "as-kbox-multibit-ecc"),
    # old-journal: journalctl -o short-iso, days before
    ("old-journal", "nvidia", "mn-hang-logdir", "gpu-a17", None, "nv-xid74-nvlink"),
    ("old-journal", "nvidia", "mn-none-logdir", "gpu-b03", None, "nv-mlx5-ib-link-down"),
    ("old-journal", "ascend", "mn3-raise-node-dir", "gpu-b03", None, "as-kbox-multibit-ecc"),
    ("old-journal", "ascend", "mn-none-node-dir", "gpu-a17", None, "as-kbox-multibit-ecc"),
    # after-job-dmesg: a sidecar's dmesg -T copy, 10 minutes after the job's last line
    ("after-job-dmesg", "nvidia", "mn-oomkill-node-dir", "gpu-a17", None, "nv-xid94-contained-ecc"),
    ("after-job-dmesg", "nvidia", "mn-none-logdir", "gpu-a17", None, "nv-gpu-fallen-off-bus"),
    ("after-job-dmesg", "ascend", "mn-nan-logdir", "gpu-a17", None, "as-kbox-multibit-ecc"),
    ("after-job-dmesg", "ascend", "mn-none-node-dir", "gpu-b03", None, "as-kbox-multibit-ecc"),
    # preflight: a health check printed old kernel lines before the first training line
    ("preflight", "nvidia", "mn-shape-node-file", "gpu-a17", None, "nv-xid63-row-remap"),
    ("preflight", "nvidia", "k8s-none-kubectl", "llama-pretrain-worker-1", None, "nv-xid48-dbe"),
    ("preflight", "ascend", "slurm-nan-slurm", "dgx-012", None, "as-kbox-multibit-ecc"),
    ("preflight", "ascend", "mn-none-node-file", "gpu-b03", None, "as-kbox-multibit-ecc"),
    # dict-sample: a dataset sample printed as a Python dict
    ("dict-sample", "nvidia", "mn-raise-node-file", "gpu-a17", 0, "nv-xid79-fallen-off-bus"),
    ("dict-sample", "nvidia", "slurm-none-slurm", "dgx-013", 0, "nv-xid74-nvlink"),
    (
        "dict-sample",
        "ascend",
        "k8s-raise-kubectl",
        "llama-pretrain-worker-0",
        1,
        "as-hbm-multibit-ecc",
    ),
    ("dict-sample", "ascend", "mn-none-logdir", "gpu-b03", 1, "as-device-lost-heartbeat"),
    # json-field: a JSON-lines record whose msg is ordinary, another field holds the line
    ("json-field", "nvidia", "mn-nan-node-dir", "gpu-a17", 1, "nv-xid48-dbe"),
    (
        "json-field",
        "nvidia",
        "k8s-none-kubectl",
        "llama-pretrain-worker-0",
        0,
        "nv-nccl-ib-port-error",
    ),
    ("json-field", "ascend", "slurm-shape-slurm", "dgx-012", 0, "as-roce-cqe-ei0013"),
    ("json-field", "ascend", "mn-none-node-file", "gpu-a17", 1, "as-hbm-multibit-ecc"),
    # json-msg-quote: a JSON logger's msg that merely quotes the line
    ("json-msg-quote", "nvidia", "mn-exit-logdir", "gpu-a17", 0, "nv-xid94-contained-ecc"),
    ("json-msg-quote", "nvidia", "mn-none-node-dir", "gpu-b03", 0, "nv-xid79-fallen-off-bus"),
    (
        "json-msg-quote",
        "ascend",
        "k8s-hang-kubectl",
        "llama-pretrain-worker-0",
        0,
        "as-rt-lost-heartbeat",
    ),
    ("json-msg-quote", "ascend", "slurm-none-slurm", "dgx-012", 1, "as-hccn-link-status-down"),
    # docstring-help: --help text showing the line as an example
    ("docstring-help", "nvidia", "slurm-exit-slurm", "dgx-10", 0, "nv-xid79-fallen-off-bus"),
    ("docstring-help", "nvidia", "mn-none-logdir", "gpu-a17", 0, "nv-gpu-fallen-off-bus"),
    ("docstring-help", "ascend", "mn-shape-logdir", "gpu-a17", 1, "as-hbm-multibit-ecc"),
    (
        "docstring-help",
        "ascend",
        "k8s-none-kubectl",
        "llama-pretrain-worker-1",
        1,
        "as-device-lost-heartbeat",
    ),
    # wandb-summary: wandb's run summary at the end of a rank's output
    ("wandb-summary", "nvidia", "mn-hang-node-file", "gpu-a17", 0, "nv-xid79-fallen-off-bus"),
    ("wandb-summary", "nvidia", "mn-none-node-file", "gpu-b03", 0, "nv-xid48-dbe"),
    ("wandb-summary", "ascend", "mn-raise-logdir", "gpu-a17", 0, "as-device-lost-heartbeat"),
    ("wandb-summary", "ascend", "slurm-none-slurm", "dgx-013", 1, "as-hbm-multibit-ecc"),
    # quoted-log-line: a log filter / shipper quoting another line
    (
        "quoted-log-line",
        "nvidia",
        "k8s-exit-kubectl",
        "llama-pretrain-worker-0",
        1,
        "nv-xid74-nvlink",
    ),
    ("quoted-log-line", "nvidia", "mn-none-node-dir", "gpu-a17", 0, "nv-mlx5-ib-link-down"),
    ("quoted-log-line", "ascend", "mn3-raise-logdir", "gpu-b03", 0, "as-roce-error-cqe-plog"),
    ("quoted-log-line", "ascend", "mn-none-logdir", "gpu-b03", 0, "as-rt-lost-heartbeat"),
    # eval-sample: an eval/generation sample printed by the rank
    ("eval-sample", "nvidia", "slurm-hang-slurm", "dgx-10", 1, "nv-xid64-page-retirement"),
    (
        "eval-sample",
        "nvidia",
        "k8s-none-kubectl",
        "llama-pretrain-worker-0",
        1,
        "nv-cuda-uncorrectable-ecc",
    ),
    ("eval-sample", "ascend", "mn-exit-node-file", "gpu-a17", 0, "as-hccn-link-status-down"),
    ("eval-sample", "ascend", "mn-none-node-dir", "gpu-b03", 1, "as-roce-cqe-ei0013"),
]

# How far outside the job's span the time decoys are dated.
OLD_KERNEL_BEFORE = timedelta(days=9, hours=2, minutes=13, seconds=7)
OLD_JOURNAL_BEFORE = timedelta(days=6, hours=5, minutes=41, seconds=52)
PREFLIGHT_DMESG_BEFORE = timedelta(days=2, hours=14, minutes=3, seconds=29)
AFTER_JOB = timedelta(minutes=10)

# Ordinary kernel lines of a boot (ids in real-lines.json "context_lines"), in boot order.
BOOT_CONTEXT = [
    "ctx-rpc-udp",
    "ctx-rpc-tcp",
    "ctx-rpc-tls",
    "ctx-rpc-nfs41",
    "ctx-pci-cls",
    "ctx-initramfs",
    "ctx-keyrings",
    "ctx-workingset",
    "ctx-zbud",
    "ctx-nfs-idres",
    "ctx-key-idres",
    "ctx-key-idlegacy",
    "ctx-key-asym",
    "ctx-x509",
    "ctx-bsg",
    "ctx-pcie-bw",
    "ctx-mlx5-iommu0",
    "ctx-mlx5-enable0",
    "ctx-mlx5-fw0",
    "ctx-mlx5-bw0",
    "ctx-mlx5-rate0",
    "ctx-mlx5-eswitch0",
    "ctx-mlx5-cable0",
    "ctx-mlx5-power0",
    "ctx-mlx5-iommu1",
    "ctx-mlx5-enable1",
    "ctx-mlx5-fw1",
    "ctx-mlx5-bw1",
    "ctx-mlx5-rate1",
    "ctx-mlx5-eswitch1",
    "ctx-nv-taint",
    "ctx-nv-verify",
    "ctx-nvlink-core",
    "ctx-nvrm-load",
    "ctx-ext4-remount",
    "ctx-ib-link-init",
    "ctx-ib-workqueue",
    "ctx-ib-link-active",
]
# Lines the kernel prints together with some fault lines (same published block).
FAULT_CONTEXT = {
    "nv-xid94-contained-ecc": ["ctx-nvrm-gpu-at-08", "ctx-nvrm-serial-08"],
    "as-kbox-multibit-ecc": [
        "ctx-kbox-apei",
        "ctx-kbox-severity",
        "ctx-kbox-error0",
        "ctx-kbox-section",
        "ctx-kbox-physaddr",
        "ctx-kbox-node",
    ],
}
FAULT_TRAILER = {"as-kbox-multibit-ecc": ["ctx-kbox-dimm"]}
# Benign lines a sidecar's dmesg shows after the job (before the fault line).
AFTER_CONTEXT = ["ctx-ib-link-init", "ctx-ib-workqueue", "ctx-ib-link-active"]

ISO_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[ T_](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?")
GLOG_RE = re.compile(r"^[IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6}) ")
PYLOG_RE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}),(\d{3}) ")
KUBE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{9})Z ")
STEP_RE = re.compile(r" step (\d+)/(\d+) loss ([0-9.]+|nan)")
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


# ----------------------------------------------------------------------------- inputs


def load_real() -> tuple[dict, dict]:
    data = json.loads(REAL.read_text())
    lines = {e["id"]: e for e in data["lines"]}
    ctx = {e["id"]: e["line"] for e in data["context_lines"]}
    return lines, ctx


def read_tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def tree_sha(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).hexdigest().encode() + b"\n")
    return h.hexdigest()


def split(data: bytes) -> list[str]:
    """Lines with their newlines (the bases are UTF-8 text with \\n endings)."""
    return data.decode("utf-8").splitlines(keepends=True)


# ----------------------------------------------------------------------------- time


def strip_layout(line: str, layout: str) -> str:
    """The line without the layout's own prefix (kubectl timestamp, srun label)."""
    if layout == "kubectl":
        m = KUBE_RE.match(line)
        return line[m.end() :] if m else line
    if layout == "slurm":
        m = re.match(r"^\d+: ", line)
        return line[m.end() :] if m else line
    return line


def line_times(line: str, layout: str, year: int) -> list[datetime]:
    out = []
    m = KUBE_RE.match(line) if layout == "kubectl" else None
    if m:
        out.append(
            datetime.fromisoformat(m.group(1)) + timedelta(microseconds=int(m.group(2)) // 1000)
        )
    body = strip_layout(line, layout)
    body = re.sub(r"^\[default\d+\]:", "", body)
    g = GLOG_RE.match(body)
    if g:
        mo, d, hh, mi, ss, us = (int(x) for x in g.groups())
        out.append(datetime(year, mo, d, hh, mi, ss, us))
    for i in ISO_RE.finditer(body):
        y, mo, d, hh, mi, ss = (int(x) for x in i.groups()[:6])
        frac = i.group(7) or "0"
        us = int((frac + "000000")[:6])
        with contextlib.suppress(ValueError):
            out.append(datetime(y, mo, d, hh, mi, ss, us))
    return out


def job_span(files: dict[str, bytes], label: dict) -> tuple[datetime, datetime]:
    """First and last time written by the job's ranks and launchers (kernel logs and error.json
    files of the base are not the job's own lines)."""
    year = int(label["recorded"][:4])
    times: list[datetime] = []
    for rel, data in files.items():
        name = rel.rsplit("/", 1)[-1]
        if name in ("kern.log", "dmesg.txt") or name.endswith(".json"):
            continue
        for line in split(data):
            times.extend(line_times(line, label["layout"], year))
    return min(times), max(times)


def syslog_stamp(t: datetime) -> str:
    return f"{MONTHS[t.month - 1]} {t.day:2d} {t:%H:%M:%S}"


def dmesg_t_stamp(t: datetime) -> str:
    return f"[{DAYS[t.weekday()]} {MONTHS[t.month - 1]} {t.day:2d} {t:%H:%M:%S} {t.year}]"


def uptime_stamp(seconds: float) -> str:
    micro = round(seconds * 1_000_000)
    return f"[{micro // 1_000_000:5d}.{micro % 1_000_000:06d}]"


def pylog_stamp(t: datetime) -> str:
    return f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d}"


def iso_z(t: datetime) -> str:
    return f"{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond // 1000:03d}Z"


def kube_stamp(t: datetime, nanos: int) -> str:
    return f"{t:%Y-%m-%dT%H:%M:%S}.{nanos:09d}Z"


def kube_time(line: str) -> tuple[datetime, int] | None:
    m = KUBE_RE.match(line)
    if not m:
        return None
    return datetime.fromisoformat(m.group(1)), int(m.group(2))


# ----------------------------------------------------------------------------- layout


class Layout:
    """Where a node's console and a rank's output live in a base, and their line prefixes."""

    def __init__(self, base: str, label: dict, files: dict[str, bytes]):
        self.base = base
        self.label = label
        self.kind = label["layout"]
        self.files = files
        self.nodes = {n["host"]: n for n in label["nodes"]}

    def console(self, host: str) -> str:
        if self.kind == "node-dir":
            return f"{host}/console.log"
        if self.kind == "logdir":
            return f"{host}/launcher.log"
        if self.kind in ("node-file", "kubectl"):
            return f"{host}.log"
        if self.kind == "slurm":
            (out,) = [r for r in self.files if r.endswith(".out")]
            return out
        raise ValueError(self.kind)

    def rank_file(self, host: str, local: int, stream: str) -> str | None:
        """logdir only: the rank's own stdout.log / stderr.log."""
        if self.kind != "logdir":
            return None
        pat = re.compile(rf"^{re.escape(host)}/[^/]+/attempt_0/{local}/{stream}\.log$")
        (rel,) = [r for r in self.files if pat.match(r)]
        return rel

    def console_prefix(self, host: str, local: int | None) -> str:
        tag = f"[default{local}]:" if local is not None else ""
        if self.kind == "slurm":
            return f"{self.nodes[host]['srun_task']}: {tag}"
        return tag

    def global_rank(self, host: str, local: int) -> int:
        return self.nodes[host]["global_ranks"][local]


def rank_body(line: str, lay: Layout, local: int) -> str:
    body = strip_layout(line, lay.kind)
    return body[len(f"[default{local}]:") :]


def kube_insert(
    lines: list[str],
    idx: int,
    payload: list[str],
    t_hint: datetime | None = None,
    offsets: list[float] | None = None,
) -> list[str]:
    """kubectl lines for `payload` inserted after lines[idx] (idx -1: at the top), with
    RFC3339Nano stamps strictly between the neighbours' stamps."""
    n = len(payload)
    if idx >= 0:
        lo = kube_time(lines[idx])
        hi = kube_time(lines[idx + 1]) if idx + 1 < len(lines) else None
        lo_ns = _ns(lo)
        hi_ns = _ns(hi) if hi else lo_ns + (n + 1) * 1_000_000
        if hi_ns <= lo_ns:
            hi_ns = lo_ns + n + 1
        # the rank prints the lines at once: a few microseconds apart, right after lines[idx]
        step = max(min((hi_ns - lo_ns) // (n + 1), 37_411), 1)
        stamps = [lo_ns + step * (i + 1) for i in range(n)]
    else:
        # at the top: stamped when the lines were printed (t_hint + offsets), plus the few
        # milliseconds kubelet takes to record them
        assert t_hint is not None and offsets is not None
        start = _ns((t_hint, 0))
        stamps = [start + int(o * 1e9) + 2_113_407 + 1_337 * i for i, o in enumerate(offsets)]
        assert stamps[-1] < _ns(kube_time(lines[0]))
    return [_from_ns(s) + " " + p for s, p in zip(stamps, payload, strict=False)]


_EPOCH = datetime(1970, 1, 1)


def _ns(tn: tuple[datetime, int]) -> int:
    t, nanos = tn
    return int((t.replace(microsecond=0) - _EPOCH).total_seconds()) * 1_000_000_000 + nanos


def _from_ns(ns: int) -> str:
    secs, nanos = divmod(ns, 1_000_000_000)
    return kube_stamp(_EPOCH + timedelta(seconds=secs), nanos)


# ----------------------------------------------------------------------------- decoys


def kernel_block(fault_id: str, real: dict, ctx: dict) -> list[str]:
    return (
        [ctx[c] for c in FAULT_CONTEXT.get(fault_id, [])]
        + [real[fault_id]["line"]]
        + [ctx[c] for c in FAULT_TRAILER.get(fault_id, [])]
    )


def make_old_kernel_log(
    host: str, t0: datetime, fault_id: str, real: dict, ctx: dict, journal: bool
):
    """A kernel log collected whole: one boot, days before the job, with the fault in it."""
    fault_t = (t0 - (OLD_JOURNAL_BEFORE if journal else OLD_KERNEL_BEFORE)).replace(microsecond=0)
    boot = fault_t - timedelta(hours=2, minutes=41, seconds=13)
    out = []
    up = 1.217711  # first shown line's uptime, as in the arm-nas#19 boot log
    events: list[tuple[float, str]] = []
    for i, cid in enumerate(BOOT_CONTEXT):
        up += 0.004719 + (i % 7) * 0.013117 if i < 16 else 0.211 + (i % 5) * 0.09731
        events.append((up, ctx[cid]))
    fault_up = (fault_t - boot).total_seconds() + 0.328856
    for j, text in enumerate(kernel_block(fault_id, real, ctx)):
        events.append((fault_up + j * 0.000011, text))
    for up_s, text in events:
        t = boot + timedelta(seconds=up_s)
        if journal:
            out.append(f"{t:%Y-%m-%dT%H:%M:%S}+0000 {host} kernel: {text}\n")
        else:
            out.append(f"{syslog_stamp(t)} {host} kernel: {uptime_stamp(up_s)} {text}\n")
    return out, fault_t


def make_after_dmesg(t1: datetime, fault_id: str, real: dict, ctx: dict):
    """A sidecar's `dmesg -T` copy taken after the job: the lines since the job ended."""
    fault_t = (t1 + AFTER_JOB).replace(microsecond=0) + timedelta(seconds=1)
    out = []
    for k, cid in enumerate(AFTER_CONTEXT):
        t = fault_t - timedelta(seconds=(len(AFTER_CONTEXT) - k) * 23)
        out.append(f"{dmesg_t_stamp(t)} {ctx[cid]}\n")
    for text in kernel_block(fault_id, real, ctx):
        out.append(f"{dmesg_t_stamp(fault_t)} {text}\n")
    return out, fault_t


def make_preflight(host: str, vendor: str, t0: datetime, fault_id: str, real: dict, ctx: dict):
    """Lines a pre-flight health check printed before torchrun started, as (seconds after the
    check started, text) pairs, and the date of the kernel lines it showed."""
    start = (t0 - timedelta(seconds=38)).replace(microsecond=0)
    old = (t0 - PREFLIGHT_DMESG_BEFORE).replace(microsecond=0)

    def head(dt: float, text: str) -> tuple[float, str]:
        t = start + timedelta(seconds=dt)
        return dt, f"[preflight] {t:%Y-%m-%dT%H:%M:%S}+0000 {host}: {text}"

    lines = [head(0.0, "node health check before torchrun")]
    block = kernel_block(fault_id, real, ctx)
    if vendor == "nvidia":
        lines.append(head(0.41, "dmesg -T | grep -E 'NVRM|mlx5' | tail -n 3"))
        shown = ([ctx["ctx-nvrm-load"], *block])[-3:]
        boot_t = old - timedelta(hours=3, minutes=12, seconds=41)
        for k, text in enumerate(shown):
            t = old if text in block else boot_t
            lines.append((0.47 + k * 0.001, f"{dmesg_t_stamp(t)} {text}"))
    else:
        kbox_dir = f"{old:%Y%m%d%H%M%S}-271713000"
        lines.append(
            head(0.41, f"tail -n 3 /var/log/npu/hisi_logs/device-2/{kbox_dir}/bbox/kbox.txt")
        )
        for k, text in enumerate(block[-3:]):
            lines.append((0.47 + k * 0.001, f"{uptime_stamp(2454.830699 + k * 0.000001)} {text}"))
    lines.append(head(1.52, "done (exit 0)"))
    return lines, start, old


def rank_payload(
    kind: str,
    vendor: str,
    fault: str,
    host: str,
    t: datetime,
    gr: int,
    trainer_rank: bool,
    last_step: tuple[int, str] | None,
    failed: bool,
) -> tuple[list[str], str]:
    """(lines the rank prints, stream) for a rank-output decoy. `t`: the time to stamp."""
    rk = f"[rank {gr}] " if trainer_rank else ""
    py = pylog_stamp(t)
    if kind == "dict-sample":
        sample = {"id": 1831, "text": fault, "label": 2}
        return [f"{py} - data - INFO - {rk}sample: {sample!r}"], "stdout"
    if kind == "json-field":
        rec = {
            "ts": iso_z(t),
            "level": "info",
            "logger": "evalhook",
            "msg": "eval sample",
            "sample": fault,
        }
        return [json.dumps(rec, separators=(",", ":"))], "stdout"
    if kind == "json-msg-quote":
        rec = {
            "ts": iso_z(t),
            "level": "warning",
            "logger": "alert-rules",
            "msg": f"matched alert rule: {fault}",
            "rule": "accelerator-hw-fault",
            "mode": "self-test",
        }
        return [json.dumps(rec, separators=(",", ":"))], "stdout"
    if kind == "docstring-help":
        opt = "--health-ignore PATTERN" if vendor == "nvidia" else "--npu-health-ignore PATTERN"
        return [
            "usage: train.py [-h] [--steps N] [--ckpt-every N] [" + opt + "]",
            "",
            "Tiny DDP training loop with a node health hook.",
            "",
            "options:",
            "  -h, --help            show this help message and exit",
            "  --steps N             training steps (default: 150)",
            "  --ckpt-every N        checkpoint every N steps (default: 50)",
            f"  {opt}",
            f'                        log lines the health hook must ignore, such as "{fault}"',
        ], "stdout"
    if kind == "wandb-summary":
        step, loss = last_step if last_step else (0, "nan")
        rows = [("last_error_seen", fault), ("loss", loss), ("step", str(step))]
        width = max(len(k) for k, _ in rows)
        run_id = hashlib.sha256(f"{host}{gr}{fault}".encode()).hexdigest()[:8]
        return [
            f"wandb: Waiting for W&B process to finish... ({'failed 1' if failed else 'success'}).",
            "wandb: ",
            "wandb: Run summary:",
            *[f"wandb: {k.rjust(width)} {v}" for k, v in rows],
            "wandb: ",
            "wandb: You can sync this run to the cloud by running:",
            f"wandb: wandb sync ./wandb/offline-run-{t:%Y%m%d_%H%M%S}-{run_id}",
            f"wandb: Find logs at: ./wandb/offline-run-{t:%Y%m%d_%H%M%S}-{run_id}/logs",
        ], "stderr"
    if kind == "quoted-log-line":
        if fault.startswith("mlx5_core"):
            tail = [
                f"{host} kernel: {fault}",
                f"{host} kernel: mlx5_core 0000:0a:00.0 mlx5_0: Port: 1 Link ACTIVE",
            ]
            return [
                f"{py} - nodewatch - INFO - {rk}kern.log lines already reported last week, skipped: {tail!r}"
            ], "stdout"
        src = (
            "/var/log/kern.log.1"
            if vendor == "nvidia"
            else "/root/ascend/log/run/plog/plog-2040034_20250915083812.log"
        )
        quoted = f"{host} kernel: {fault}" if vendor == "nvidia" else fault
        return [
            f'{py} - log-filter - WARNING - {rk}dropped line "{quoted}" (rule=known-noise, from {src})'
        ], "stdout"
    if kind == "eval-sample":
        prompt = f"Which component does this log line blame? {fault}"
        completion = "The accelerator hardware (not the training code)."
        return [
            f"{py} - eval - INFO - {rk}[eval] prompt: {prompt!r} completion: {completion!r}"
        ], "stdout"
    raise ValueError(kind)


# ----------------------------------------------------------------------------- build


def find_stream(lines: list[str], lay: Layout, host: str, local: int) -> list[int]:
    pref = f"[default{local}]:"
    out = []
    for i, line in enumerate(lines):
        if lay.kind == "slurm" and not line.startswith(f"{lay.nodes[host]['srun_task']}: "):
            continue
        if strip_layout(line, lay.kind).startswith(pref):
            out.append(i)
    return out


def anchor(lines: list[str], idxs: list[int], lay: Layout, local: int, kind: str) -> int:
    """Index of the line after which the rank prints the decoy (before which, for help text)."""
    if kind == "docstring-help":
        return idxs[0]
    if kind == "wandb-summary":
        return idxs[-1]
    for want in (" step 20/", " step 10/", " step 1/"):
        for i in idxs:
            if want in lines[i]:
                return i
    return idxs[0]


def last_step(lines: list[str], idxs: list[int]) -> tuple[int, str] | None:
    best = None
    for i in idxs:
        m = STEP_RE.search(lines[i])
        if m:
            best = (int(m.group(1)), m.group(3))
    return best


def time_of(line: str, lay: Layout) -> datetime | None:
    body = rank_body(line, lay, int(re.search(r"\[default(\d+)\]:", line).group(1)))
    m = PYLOG_RE.match(body)
    if m:
        return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S") + timedelta(
            milliseconds=int(m.group(2))
        )
    return None


def prefixed(lay: Layout, host: str, local: int | None, payload: list[str]) -> list[str]:
    pre = lay.console_prefix(host, local)
    return [f"{pre}{p}" for p in payload]


def splice(lines: list[str], idx: int, new: list[str], before: bool = False) -> list[str]:
    at = idx if before else idx + 1
    return lines[:at] + [n + "\n" for n in new] + lines[at:]


def build_one(row, real, ctx) -> tuple[str, dict[str, bytes], dict]:
    kind, vendor, base, host, local, line_id = row
    assert kind in KINDS, kind
    assert real[line_id]["vendor"] == vendor, (line_id, vendor)
    base_dir = BASES / base
    label = json.loads((base_dir / "label.json").read_text())
    files = read_tree(base_dir / "logs")
    lay = Layout(base, label, files)
    assert host in lay.nodes, (base, host)
    root_host = label["root_cause_host"]
    assert host != root_host, (base, host, "decoy must sit on a healthy node")
    failed = label["category"] != "none"
    t0, t1 = job_span(files, label)
    fault = real[line_id]["line"]
    out = dict(files)
    decoy_files: list[str] = []
    decoy_time = None
    gr = None

    if kind in KERNEL_KINDS:
        assert lay.kind in ("node-dir", "logdir"), "kernel files live in a host folder"
        if kind == "old-kernel-log":
            rel = f"{host}/kern.log"
            text, decoy_time = make_old_kernel_log(host, t0, line_id, real, ctx, journal=False)
        elif kind == "old-journal":
            rel = f"{host}/journal.log"
            text, decoy_time = make_old_kernel_log(host, t0, line_id, real, ctx, journal=True)
        else:
            rel = f"{host}/dmesg-after.log"
            text, decoy_time = make_after_dmesg(t1, line_id, real, ctx)
        assert rel not in out, rel
        out[rel] = "".join(text).encode()
        decoy_files.append(rel)
    elif kind == "preflight":
        rel = lay.console(host)
        timed, start, decoy_time = make_preflight(host, vendor, t0, line_id, real, ctx)
        content = [text for _, text in timed]
        lines = split(files[rel])
        if lay.kind == "kubectl":
            new = kube_insert(lines, -1, content, t_hint=start, offsets=[o for o, _ in timed])
        else:
            new = prefixed(lay, host, None, content)
        out[rel] = "".join([n + "\n" for n in new] + lines).encode()
        decoy_files.append(rel)
    else:
        gr = lay.global_rank(host, local)
        rel = lay.console(host)
        lines = split(files[rel])
        idxs = find_stream(lines, lay, host, local)
        assert idxs, (base, host, local)
        a = anchor(lines, idxs, lay, local, kind)
        t_anchor = time_of(lines[a], lay) or t0
        t = t_anchor + timedelta(milliseconds=3)
        payload, stream = rank_payload(
            kind,
            vendor,
            fault,
            host,
            t,
            gr,
            label.get("trainer_logs_rank", False),
            last_step(lines, idxs),
            failed,
        )
        before = kind == "docstring-help"
        con_lines = prefixed(lay, host, local, payload)
        if lay.kind == "kubectl":
            con_lines = kube_insert(lines, a - 1 if before else a, con_lines)
        out[rel] = "".join(splice(lines, a, con_lines, before=before)).encode()
        decoy_files.append(rel)
        if lay.kind == "logdir":
            own = lay.rank_file(host, local, stream)
            own_lines = split(files[own])
            body = rank_body(lines[a], lay, local)
            if kind == "wandb-summary" or not own_lines:
                new_own = own_lines + [p + "\n" for p in payload]
            else:
                (j,) = [k for k, x in enumerate(own_lines) if x == body]
                new_own = splice(own_lines, j, payload, before=before)
            out[own] = "".join(new_own).encode()
            decoy_files.insert(0, own)
        decoy_time = t if kind not in ("docstring-help", "wandb-summary") else None

    name = f"{kind}-{vendor}-{base}"
    hosts = [n["host"] for n in label["nodes"]]
    where = "time" if kind in TIME_KINDS else "place"
    new_label = {
        "category": label["category"],
        "recovery": label["recovery"],
        "root_cause_rank": label["root_cause_rank"],
        "root_cause_host": label["root_cause_host"],
        "act_on_hosts": label["act_on_hosts"],
        "root_cause_file": label.get("root_cause_file"),
        "root_cause_line_contains": label.get("root_cause_line_contains"),
        "layout": label["layout"],
        "failed": failed,
        "base": f"corpora/torchrun/multinode/{base}",
        "base_logs_sha256": tree_sha(files),
        "decoy_kind": kind,
        "decoy_vendor": vendor,
        "decoy_line_id": line_id,
        "decoy_line": fault,
        "decoy_file": decoy_files[0],
        "decoy_files": decoy_files,
        "decoy_host": host,
        "decoy_rank": gr,
        "decoy_on_root_host": False,
        "decoy_host_note": (
            f"one {lay.console(host)} for the whole job: the decoy lines carry {host}'s srun label "
            f"'{lay.nodes[host]['srun_task']}: ', not the root-cause host's"
            if lay.kind == "slurm"
            else None
        ),
        "decoy_where": where,
        "decoy_time": decoy_time.isoformat() if decoy_time else None,
        "job_span": {"first": t0.isoformat(), "last": t1.isoformat()},
        "healthy_hosts": [h for h in hosts if h != root_host],
        "about": about(
            kind, vendor, host, line_id, base, failed, root_host, lay.kind, decoy_time, t0, t1
        ),
    }
    return name, out, new_label


def about(kind, vendor, host, line_id, base, failed, root_host, layout, dt, t0, t1) -> str:
    dt = dt or t0  # rank-output kinds: only the time kinds print dt
    verdict = (
        f"the base's verdict stands (root cause on {root_host})"
        if failed
        else "the run is still healthy"
    )
    what = {
        "old-kernel-log": f"{host}'s kern.log, collected whole, carries {line_id} dated {dt:%b %d} (9 days before the job)",
        "old-journal": f"{host}'s kernel journal (journalctl -o short-iso) carries {line_id} dated {dt:%Y-%m-%d} (6 days before the job)",
        "after-job-dmesg": f"a sidecar's dmesg -T copy on {host} carries {line_id} at {dt:%H:%M:%S}, 10 minutes after the job's last line",
        "preflight": f"a pre-flight check printed {host}'s old kernel lines, {line_id} dated {dt:%Y-%m-%d}, before torchrun started",
        "dict-sample": f"a rank on {host} logs a dataset sample (a Python dict) whose text is {line_id}",
        "json-field": f"a rank on {host} prints a JSON-lines record (msg 'eval sample') whose 'sample' field is {line_id}",
        "json-msg-quote": f"a rank on {host} prints a JSON-lines record whose msg quotes {line_id} (an alert-rule self-test)",
        "docstring-help": f"a rank on {host} prints its --help text, which shows {line_id} as an example",
        "wandb-summary": f"wandb's run summary on a rank of {host} shows last_error_seen {line_id}",
        "quoted-log-line": f"a log filter on a rank of {host} logs that it dropped {line_id} (quoted text)",
        "eval-sample": f"a rank on {host} logs an eval sample whose prompt contains {line_id}",
    }[kind]
    return f"{what}; it is not an event of this {layout} job, so {verdict}."


def main() -> int:
    real, ctx = load_real()
    if OUT.exists():
        shutil.rmtree(OUT)
    names = set()
    for row in PLAN:
        name, files, label = build_one(row, real, ctx)
        assert name not in names, name
        names.add(name)
        dest = OUT / name
        for rel, data in sorted(files.items()):
            p = dest / "logs" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        (dest / "label.json").write_text(json.dumps(label, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(names)} bundles to {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
