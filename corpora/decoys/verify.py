#!/usr/bin/env python3
"""Check the decoy corpus that build.py wrote (standard library only; never runs the engine).

For every bundles/<name>/:
  * every file of the base's logs/ is there, and its lines are all kept, in order, byte for
    byte: the bundle only inserts lines (difflib opcodes are 'equal' or 'insert' only);
  * a file the base does not have is one of the label's decoy_files;
  * the real line (real-lines.json, by decoy_line_id) appears verbatim in every decoy file;
  * the label carries the base's verdict unchanged and the decoy fields;
  * the decoy sits on a base host that is not the root-cause host;
  * time decoys are dated outside the job's span (every line of an added kernel file, the
    pre-flight's kernel lines), place decoys are inside it.
Prints the counts by kind x vendor x failing/healthy and a hash of the whole tree (run build.py
twice: the hash must not change).

    python3 corpora/decoys/verify.py
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

import build  # the builder beside this file: its kinds and month names, one list each

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = HERE / "bundles"
MONTHS = {m: i + 1 for i, m in enumerate(build.MONTHS)}
KINDS = build.KINDS
COPIED = ("category", "recovery", "root_cause_rank", "root_cause_host", "act_on_hosts")
REQUIRED = (
    *COPIED,
    "failed",
    "base",
    "decoy_kind",
    "decoy_vendor",
    "decoy_line_id",
    "decoy_file",
    "decoy_host",
    "healthy_hosts",
    "about",
)


def kernel_line_time(line: str, year: int) -> datetime | None:
    m = re.match(r"^(\w{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) \S+ kernel: ", line)
    if m:
        return datetime(
            year, MONTHS[m.group(1)], int(m.group(2)), *(int(x) for x in m.group(3, 4, 5))
        )
    m = re.match(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\+0000 \S+ kernel: ", line)
    if m:
        return datetime(*(int(x) for x in m.groups()))
    m = re.match(r"^\[\w{3} (\w{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})\] ", line)
    if m:
        return datetime(
            int(m.group(6)),
            MONTHS[m.group(1)],
            int(m.group(2)),
            *(int(x) for x in m.group(3, 4, 5)),
        )
    return None


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(
                p.relative_to(root).as_posix().encode()
                + b"\0"
                + hashlib.sha256(p.read_bytes()).digest()
            )
    return h.hexdigest()


def main() -> int:
    real = {e["id"]: e for e in json.loads((HERE / "real-lines.json").read_text())["lines"]}
    errors: list[str] = []
    counts: Counter = Counter()
    layouts: Counter = Counter()
    bundles = sorted(p for p in OUT.iterdir() if p.is_dir())
    for b in bundles:

        def err(msg: str, b: Path = b) -> None:
            errors.append(f"{b.name}: {msg}")

        lab = json.loads((b / "label.json").read_text())
        for k in REQUIRED:
            if k not in lab:
                err(f"label lacks {k}")
        base = REPO / lab["base"]
        blab = json.loads((base / "label.json").read_text())
        for k in COPIED:
            if lab[k] != blab[k]:
                err(f"label {k} {lab[k]!r} != base {blab[k]!r}")
        if lab["failed"] != (blab["category"] != "none"):
            err("failed flag")
        if lab["decoy_kind"] not in KINDS:
            err(f"unknown kind {lab['decoy_kind']}")
        line = real[lab["decoy_line_id"]]
        if line["vendor"] != lab["decoy_vendor"]:
            err("vendor mismatch")
        hosts = [n["host"] for n in blab["nodes"]]
        if lab["decoy_host"] not in hosts or lab["decoy_host"] == blab["root_cause_host"]:
            err(f"decoy host {lab['decoy_host']} not a healthy host of {hosts}")
        if lab["healthy_hosts"] != [h for h in hosts if h != blab["root_cause_host"]]:
            err("healthy_hosts")
        base_logs = base / "logs"
        base_files = {
            p.relative_to(base_logs).as_posix() for p in base_logs.rglob("*") if p.is_file()
        }
        bundle_files = {
            p.relative_to(b / "logs").as_posix() for p in (b / "logs").rglob("*") if p.is_file()
        }
        if base_files - bundle_files:
            err(f"base files missing: {sorted(base_files - bundle_files)}")
        for rel in sorted(bundle_files - base_files):
            if rel not in lab["decoy_files"]:
                err(f"unexpected new file {rel}")
        for rel in sorted(base_files & bundle_files):
            old = (base_logs / rel).read_bytes().splitlines(keepends=True)
            new = (b / "logs" / rel).read_bytes().splitlines(keepends=True)
            if old == new:
                if rel in lab["decoy_files"]:
                    err(f"decoy file {rel} unchanged")
                continue
            if rel not in lab["decoy_files"]:
                err(f"changed file {rel} is not a decoy file")
            ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
            bad = [o for o in ops if o[0] not in ("equal", "insert")]
            if bad:
                err(f"{rel}: base lines changed or removed: {bad[:3]}")
            kept = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
            if kept != len(old):
                err(f"{rel}: {len(old) - kept} base lines not kept")
        for rel in lab["decoy_files"]:
            text = (b / "logs" / rel).read_text()
            if line["line"] not in text:
                err(f"real line {line['id']} not verbatim in {rel}")
        first = datetime.fromisoformat(lab["job_span"]["first"])
        last = datetime.fromisoformat(lab["job_span"]["last"])
        kind = lab["decoy_kind"]
        if kind in ("old-kernel-log", "old-journal", "after-job-dmesg"):
            rel = lab["decoy_file"]
            for ln in (b / "logs" / rel).read_text().splitlines():
                t = kernel_line_time(ln, first.year)
                if t is None:
                    err(f"{rel}: undated kernel line {ln[:60]!r}")
                elif first.replace(microsecond=0) <= t <= last:
                    err(f"{rel}: kernel line inside the job span: {ln[:80]!r}")
            dt = datetime.fromisoformat(lab["decoy_time"])
            if kind == "old-kernel-log" and not (first - dt).days >= 9:
                err("old-kernel-log not 9 days before")
            if kind == "old-journal" and not (first - dt).days >= 2:
                err("old-journal not days before")
            if kind == "after-job-dmesg" and not 590 <= (dt - last).total_seconds() <= 660:
                err("after-job-dmesg not 10 minutes after")
        elif kind == "preflight":
            dt = datetime.fromisoformat(lab["decoy_time"])
            if not (first - dt).days >= 2:
                err("preflight kernel lines not 2 days before")
            rel = lab["decoy_file"]
            new = (b / "logs" / rel).read_text().splitlines()
            old = (base_logs / rel).read_text().splitlines()
            if new[len(new) - len(old) :] != old:
                err("preflight lines are not all before the base's first line")
        else:
            if lab.get("decoy_time"):
                dt = datetime.fromisoformat(lab["decoy_time"])
                if not first <= dt <= last:
                    err(f"place decoy dated {dt} outside the span {first}..{last}")
        counts[(kind, lab["decoy_vendor"], "failing" if lab["failed"] else "healthy")] += 1
        layouts[lab["layout"]] += 1

    print(f"{len(bundles)} bundles")
    print(
        f"{'kind':<18}{'nvidia/failing':>16}{'nvidia/healthy':>16}{'ascend/failing':>16}{'ascend/healthy':>16}"
    )
    for k in KINDS:
        row = [counts[(k, v, h)] for v in ("nvidia", "ascend") for h in ("failing", "healthy")]
        print(f"{k:<18}" + "".join(f"{c:>16}" for c in row))
        for c in row:
            if c < 1:
                errors.append(f"kind {k}: a vendor x health cell is empty")
    print("layouts:", dict(sorted(layouts.items())))
    size = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"size: {size / 1e6:.2f} MB")
    if size > 15e6:
        errors.append("corpus over 15 MB")
    print("tree sha256:", tree_hash(OUT))
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
