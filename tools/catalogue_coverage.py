"""Which entries of a vendor's fault catalogue the signatures cover, and how they read them.

    python3 tools/catalogue_coverage.py [--check]

Reads `patterns/catalogues/nvidia-xid.yaml` (NVIDIA's Xid and SXid catalogue as facts:
code, name, the catalogue's resolution bucket, a real logged line where one was found)
and writes `patterns/catalogues/COVERAGE.md`: for every code, the signature that reads
its kernel line (the real line where the catalogue has one, else the driver's line
format with the catalogue's name as its text), the category and recovery it gives, and
whether that recovery agrees with NVIDIA's resolution bucket; and
`patterns/catalogues/mindcluster-faults.yaml` (MindCluster's chip fault table and
fault-diagnosis knowledge base) into `MINDCLUSTER.md` the same way, each chip code read in
its device-OS log line and checked against its handling level. `--check` fails when a
file is not what it would write (tests/test_catalogue.py runs it).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from analyzer.analysis import Settings  # noqa: E402
from analyzer.job.correlate import ROLE_RANK, SEVERITY_RANK  # noqa: E402
from analyzer.rules.matcher import Matcher  # noqa: E402
from analyzer.rules.taxonomy import CATEGORIES  # noqa: E402
from analyzer.types import Signature  # noqa: E402

CATALOGUE = REPO / "patterns" / "catalogues" / "nvidia-xid.yaml"
OUT = REPO / "patterns" / "catalogues" / "COVERAGE.md"
MINDCLUSTER = REPO / "patterns" / "catalogues" / "mindcluster-faults.yaml"
MINDCLUSTER_OUT = REPO / "patterns" / "catalogues" / "MINDCLUSTER.md"

# the recoveries each NVIDIA resolution bucket asks of a platform: a node-level action
# (reset or reboot the GPU or machine, hardware service) moves the job off the node; a
# restart of the application does not; IGNORE is no failure of the job
_NODE = {"isolate_and_reschedule", "pod_reschedule"}
_JOB = {
    "none", "auto_restart", "unconditional_restart", "checkpoint_resume", "fix_and_resubmit",
    "operator_retry", "hang_restart",
}  # fmt: skip
_AGREES: dict[str, set[str]] = {
    "RESET_GPU": _NODE,
    "RESTART_BM": _NODE,
    "RESTART_VM": _NODE,
    "CONTACT_SUPPORT": _NODE,
    "CHECK_MECHANICALS": _NODE,
    "UPDATE_SWFW": _NODE | {"fix_and_resubmit"},
    "WORKFLOW_NVLINK5_ERR": _NODE,
    "WORKFLOW_NVLINK_ERR": _NODE,
    "WORKFLOW_XID_48": _NODE,
    "XID_154": _NODE,
    # the application (or nothing) needs a restart; the node is fine: never a cordon
    "RESTART_APP": _JOB,
    # Xid 45 follows another Xid: that one's action is the workflow's
    "WORKFLOW_XID_45": _JOB | _NODE,
    "CHECK_UVM": _JOB,
    "IGNORE": _JOB,
}


# the recoveries each MindCluster handling level asks (its documentation, quoted in the
# catalogue): isolate the chip; run the job again (after a chip reset where it says so);
# nothing for the job (a pre-isolated chip keeps its job, a code it does not handle or a
# sub-health it leaves to the job's strategy never cordons a node)
_LEVELS: dict[str, set[str]] = {
    "SeparateNPU": _NODE,
    "PreSeparateNPU": _NODE | {"none"},
    "RestartNPU": _JOB,
    "FreeRestartNPU": _JOB,
    "RestartBusiness": _JOB,
    "RestartRequest": _JOB,
    "SubHealthFault": _JOB,
    "NotHandleFault": {"none"},
}
# the line the NPU's device-OS log (klogd, collected by msnpureport) prints for a fault
# event: the format every chip code is read in (npu_fault.yaml's examples)
_KLOGD = (
    "[ERROR] KERNEL(3551,sklogd):2021-10-05-23:07:08.350.235 [klogd.c:242][583733.716915] "
    "event_id=0x{code}"
)


def _probe(code: int, name: str, severity: str | None) -> str:
    """The driver's line format for a code whose real line the catalogue lacks (an SXid's
    states its severity, as the NVSwitch driver prints it)."""
    text = " ".join(name.split())[:200]
    if severity is not None:
        said = "Fatal" if severity == "fatal" else "Non-fatal"
        return f"kernel: nvidia-nvswitch3: SXid (PCI:0000:c8:00.0): {code}, {said}, Link 12 {text}"
    return f"kernel: NVRM: Xid (PCI:0000:3b:00): {code}, pid=4242, name=python3, {text}"


def _reading(matches: list[tuple[Signature, dict[str, str]]]) -> Signature | None:
    """The signature that would decide among those matching one line: the best role,
    then severity (the culprit table's first key)."""
    ranked = [s for s, _ in matches if s.role in ("cause", "symptom", "confirmation")]
    if not ranked:
        return None
    return min(ranked, key=lambda s: (ROLE_RANK[s.role], SEVERITY_RANK[s.severity]))


def _read_as(sig: Signature | None, want: set[str] | None, tally: Counter[str]) -> tuple[str, str]:
    """A code's row: the signature that reads it with the category and recovery it
    gives, and whether that recovery is one the vendor's action asks (`want`; None: any);
    counted in `tally`."""
    if sig is None:
        tally["not read"] += 1
        return "not read", "-"
    recovery = _recovery(sig) if sig.severity != "info" else "none"
    agrees = "yes" if want is None or recovery in want else "**no**"
    tally["read"] += 1
    tally["agrees" if agrees == "yes" else "differs"] += 1
    return f"`{sig.id}`: {sig.category}, {recovery}", agrees


@functools.cache
def _matcher() -> Matcher:
    """The built-in signatures, compiled once for both catalogues."""
    return Settings().matcher()


def _recovery(sig: Signature) -> str:
    return sig.recovery or CATEGORIES[sig.category].recovery


def rows() -> tuple[list[list[str]], Counter[str]]:
    matcher = _matcher()
    data = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    out: list[list[str]] = []
    tally: Counter[str] = Counter()
    for kind, entries in (("Xid", data["xids"]), ("SXid", data["sxids"])):
        for e in entries:
            severity = (e.get("severity") or "non-fatal") if kind == "SXid" else None
            line = e.get("line") or _probe(e["code"], e["name"], severity)
            sig = _reading(matcher.match_line(line)[0])
            bucket = e.get("resolution") or ("fatal" if e.get("severity") == "fatal" else "")
            if e["name"] == "Unused":
                verdict, agrees = "unused: never logged", "-"
                tally["unused"] += 1
            else:
                want = (
                    _AGREES.get(bucket)
                    if kind == "Xid"
                    else (_NODE if e.get("severity") == "fatal" else _JOB)
                )
                verdict, agrees = _read_as(sig, want, tally)
            real = "real" if e.get("line") else "format"
            name = " ".join(str(e["name"]).split()).replace("|", "/")[:90]
            out.append([f"{kind} {e['code']}", name, bucket or "-", real, verdict, agrees])
    return out, tally


def mindcluster_rows() -> tuple[list[list[str]], Counter[str]]:
    """Each MindCluster chip code, its handling level, the signature that reads its
    device-OS line and whether that recovery is what the level asks."""
    matcher = _matcher()
    data = yaml.safe_load(MINDCLUSTER.read_text(encoding="utf-8"))
    out: list[list[str]] = []
    tally: Counter[str] = Counter()
    for e in data["codes"]:
        sig = _reading(matcher.match_line(_KLOGD.format(code=e["code"].lower()))[0])
        verdict, agrees = _read_as(sig, _LEVELS[e["level"]], tally)
        name = " ".join(str(e.get("name") or "-").split()).replace("|", "/")[:80]
        out.append([f"0x{e['code']}", name, e["level"], verdict, agrees])
    return out, tally


def mindcluster_entities() -> list[list[str]]:
    """The knowledge base's entities by class: how many, how many keyed by a chip code
    (read through the code table above), how many by log keywords."""
    data = yaml.safe_load(MINDCLUSTER.read_text(encoding="utf-8"))
    by: dict[str, Counter[str]] = {}
    for e in data["entities"]:
        c = by.setdefault(str(e.get("class") or "-"), Counter())
        c["all"] += 1
        kind = "code" if str(e["id"]).lower().startswith("0x") else "keywords"
        c[kind if e.get("keywords") or kind == "code" else "none"] += 1
    return [
        [cls, str(c["all"]), str(c["code"]), str(c["keywords"]), str(c["none"])]
        for cls, c in sorted(by.items(), key=lambda kv: -kv[1]["all"])
    ]


def render_mindcluster() -> str:
    table, tally = mindcluster_rows()
    levels = Counter(r[2] for r in table)
    head = [
        "# MindCluster fault knowledge coverage",
        "",
        "Written by `python3 tools/catalogue_coverage.py` from `mindcluster-faults.yaml`",
        "(MindCluster's chip fault table and fault-diagnosis knowledge base as facts, their",
        "source and commit in the file); `tests/test_catalogue.py` fails when it is stale.",
        "Each chip code is matched in the line the NPU's device-OS log prints for it",
        "(`[ERROR] KERNEL(...,sklogd):... [klogd.c:242][...] event_id=0x<code>`, the form",
        "`npu_fault.yaml` reads); the signature that would decide is shown with the category",
        "and recovery it gives, and whether that recovery is what the code's handling level",
        "asks: SeparateNPU isolates the node (or moves the pod); PreSeparateNPU isolates or",
        "leaves the job alone; RestartNPU, FreeRestartNPU, RestartBusiness, RestartRequest and",
        "SubHealthFault run the job again, never a cordon; NotHandleFault is no failure.",
        "",
        f"Codes: {len(table)} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(levels.items(), key=lambda kv: -kv[1]))
        + f"); read by a signature: {tally['read']}; agreeing with the level:",
        f"{tally['agrees']}; differing: {tally['differs']}; not read: {tally['not read']}.",
        "",
        "0x81078603 differs on purpose: MindCluster does not handle a RoCE port going down",
        "(NotHandleFault: the link may come back), but in a failed job whose collectives",
        "broke it is the cause the others echo, and the job is moved off that port's node",
        "(`npu-fault-roce-link-down`, pod_reschedule; its description says why).",
        "",
        "The knowledge base's fault entities, by class: those keyed by a chip code are read",
        "through the table above; those keyed by log keywords are MindCluster's own",
        "diagnosis rules, matched by the signatures where a real line of that fault was",
        "found (each signature cites its source), and not turned into signatures from the",
        "keywords alone: a rule of keywords is not a line a job printed.",
        "",
        "| class | entities | keyed by a chip code | by log keywords | no pattern |",
        "|---|---|---|---|---|",
        *("| " + " | ".join(r) + " |" for r in mindcluster_entities()),
        "",
        "| code | knowledge base's cause | level | read as | agrees |",
        "|---|---|---|---|---|",
    ]
    return "\n".join(head + ["| " + " | ".join(r) + " |" for r in table]) + "\n"


def render() -> str:
    table, tally = rows()
    head = [
        "# NVIDIA Xid and SXid coverage",
        "",
        "Written by `python3 tools/catalogue_coverage.py` from `nvidia-xid.yaml` (NVIDIA's",
        "catalogue as facts, its sources in the file); `tests/test_catalogue.py` fails when",
        "it is stale. Each code's kernel line (its real logged line where one was found,",
        "`real`; else the driver's line format carrying the catalogue's name, `format`) is",
        "matched by the built-in signatures; the one that would decide is shown with the",
        "category and recovery it gives, and whether that recovery is what NVIDIA's",
        "resolution bucket asks (a GPU reset, a reboot or support: the node is isolated;",
        "RESTART_APP: a restart of the job or a fix, never a cordon; IGNORE: no failure).",
        "",
        f"Codes: {len(table)}; unused by NVIDIA: {tally['unused']}; read by a signature:",
        f"{tally['read']}; agreeing with NVIDIA's bucket: {tally['agrees']}; differing:",
        f"{tally['differs']}; not read: {tally['not read']}.",
        "",
        "Why a code is not read or differs: a code NVIDIA lists as `Unused` is never logged;",
        "78 (vGPU start) belongs to virtual-GPU hosts, not training jobs; NVLink5 codes",
        "144-150 are read from their real lines, which name the unit and say `Fatal` or",
        "`Nonfatal` (`xid-nvlink5-fatal`, `-nonfatal`), words this table's format line for a",
        "code without a real line lacks; SXid 12028's real line here is a `Data {...}`",
        "continuation, read by its headline; codes 162-172 carry no bucket in the catalogue.",
        "Xid 109 differs on purpose: NVIDIA says RESET_GPU, but in training jobs it follows",
        "the process's own CUDA error on that GPU, which decides (its description says why).",
        "Codes NVIDIA marks IGNORE are context (`info`): they never cordon a node.",
        "",
        "| code | NVIDIA's name | bucket | line | read as | agrees |",
        "|---|---|---|---|---|---|",
    ]
    return "\n".join(head + ["| " + " | ".join(r) + " |" for r in table]) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if COVERAGE.md is stale")
    args = ap.parse_args()
    stale = 0
    for out, text in ((OUT, render()), (MINDCLUSTER_OUT, render_mindcluster())):
        if args.check:
            current = out.read_text(encoding="utf-8") if out.exists() else ""
            if current != text:
                print(f"{out} is stale: run python3 tools/catalogue_coverage.py", file=sys.stderr)
                stale = 1
            continue
        out.write_text(text, encoding="utf-8")
        print(text.split("\n\n")[2])
    return stale


if __name__ == "__main__":
    raise SystemExit(main())
