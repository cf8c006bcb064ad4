"""Decoys (corpora/decoys/): real jobs with one real fault line added where it is not an
event of the job: dated outside the job's span (a kernel log collected whole, a sidecar's
dmesg copy after the job, a pre-flight check's dmesg) or printed by the program as data (a
dict, a JSON field, a help text, wandb's summary, a quoted line, an eval sample). The
verdict must be the base job's: the category unchanged, no healthy host to act on.

The fault lines are real (corpora/decoys/real-lines.json, each with its source), the bases
are real recorded torchrun jobs; the placement is made (build.py), so these bundles test
the rules of "Evidence: which lines may decide", not that a signature works on logs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO

from analyzer import analyze

DECOYS = REPO / "corpora" / "decoys"
KINDS = {
    "old-kernel-log", "old-journal", "after-job-dmesg", "preflight", "dict-sample",
    "json-field", "json-msg-quote", "docstring-help", "wandb-summary", "quoted-log-line",
    "eval-sample",
}  # fmt: skip


def _bundles() -> list[Path]:
    return sorted(p for p in (DECOYS / "bundles").iterdir() if (p / "label.json").is_file())


def _label(bundle: Path) -> dict[str, object]:
    label: dict[str, object] = json.loads((bundle / "label.json").read_text())
    return label


def test_the_corpus_has_every_kind_on_both_vendors_on_failing_and_healthy_jobs() -> None:
    labels = [_label(b) for b in _bundles()]
    assert len(labels) >= 40
    cells = Counter((lab["decoy_kind"], lab["decoy_vendor"], lab["failed"]) for lab in labels)
    assert {k for k, _, _ in cells} == KINDS
    for kind in KINDS:
        for vendor in ("nvidia", "ascend"):
            assert cells[(kind, vendor, True)] and cells[(kind, vendor, False)], (kind, vendor)


def test_the_bundles_are_what_the_builder_writes() -> None:
    """verify.py checks that only lines were inserted into the bases, that each real line
    is there verbatim, and hashes the tree; build.py must reproduce the committed bytes."""
    out = subprocess.run(
        [sys.executable, str(DECOYS / "verify.py")], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0 and out.stdout.rstrip().endswith("OK"), out.stdout + out.stderr


@pytest.mark.parametrize("bundle", _bundles(), ids=lambda p: p.name)
def test_a_decoy_changes_no_verdict_and_cordons_no_healthy_host(bundle: Path) -> None:
    label = _label(bundle)
    v = analyze(bundle / "logs")
    healthy = set(label["healthy_hosts"])  # type: ignore[call-overload]
    assert v.category == label["category"], v.summary
    assert not healthy & set(v.act_on.hosts), v.act_on
    if label["category"] == "none":
        assert v.root_cause is None, v.summary
