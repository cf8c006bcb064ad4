"""The generated catalogue document is current, and the JSON listing is complete."""

from __future__ import annotations

import json
import re
from collections import Counter

from click.testing import CliRunner
from conftest import REPO

from analyzer.cli import main
from analyzer.rules.catalogue import render
from analyzer.rules.signatures import load_patterns


def test_catalogue_md_is_current() -> None:
    want = render(load_patterns()) + "\n"
    have = (REPO / "patterns" / "CATALOGUE.md").read_text(encoding="utf-8")
    assert have == want, "stale: run `ha-analyze patterns doc --output patterns/CATALOGUE.md`"


def test_catalogue_has_a_row_per_signature_and_coverage() -> None:
    pset = load_patterns()
    text = render(pset)
    for s in pset.signatures:
        assert f"| `{s.id}` | {s.category} | {s.role} |" in text
    assert "## Coverage" in text and "| **all** |" in text


def test_patterns_list_json() -> None:
    r = CliRunner().invoke(main, ["patterns", "list", "--format", "json"])
    assert r.exit_code == 0
    rows = json.loads(r.stdout)
    assert len(rows) == len(load_patterns().signatures)
    for row in rows:
        assert {"id", "family", "category", "role", "severity", "title", "recovery"} <= set(row)


def test_readme_counts_the_catalogue() -> None:
    """README's signature, family and per-vendor figures are the catalogue's."""
    sigs = load_patterns().signatures
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    m = re.search(
        r"(\d+) built-in signatures live in `patterns/\*\.yaml`, one file per family, (\d+) families",
        text,
    )
    assert m is not None
    assert (int(m[1]), int(m[2])) == (len(sigs), len({s.family for s in sigs}))
    by_vendor = Counter(s.vendor for s in sigs)
    for vendor, label in (
        ("nvidia", "NVIDIA"),
        ("ascend", "Ascend"),
        ("framework", "frameworks"),
        ("system", "the system"),
    ):
        said = re.search(re.escape(label) + r" \([^()]*(?:\([^()]*\)[^()]*)*; (\d+)", text)
        assert said is not None and int(said[1]) == by_vendor[vendor], vendor


def test_the_xid_coverage_table_is_current_and_agrees_with_nvidia() -> None:
    """patterns/catalogues/COVERAGE.md is what tools/catalogue_coverage.py writes from
    NVIDIA's catalogue (nvidia-xid.yaml) and the signatures; and every Xid NVIDIA says
    needs no node action (IGNORE, RESTART_APP) is read without a cordon, but the one
    difference the table explains (109)."""
    import subprocess
    import sys

    tool = REPO / "tools" / "catalogue_coverage.py"
    r = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = (REPO / "patterns" / "catalogues" / "COVERAGE.md").read_text(encoding="utf-8")
    differ = [line.split(" | ")[0] for line in rows.splitlines() if line.endswith("| **no** |")]
    assert differ == ["| Xid 109"], differ


def test_readme_states_the_xid_coverage_figures() -> None:
    rows = (REPO / "patterns" / "catalogues" / "COVERAGE.md").read_text(encoding="utf-8")
    table = [line for line in rows.splitlines() if line.startswith(("| Xid ", "| SXid "))]
    used = [r for r in table if "unused: never logged" not in r]
    read = [r for r in used if "| not read |" not in r]
    agree = [r for r in read if r.endswith("| yes |")]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    said = f"of the {len(used)} codes NVIDIA uses, {len(read)} are read and {len(agree)} agree"
    assert said in readme, said
    assert f"{len(used) - len(read)} are not read" in readme


def test_every_mindcluster_code_is_read_as_its_handling_level_asks() -> None:
    """patterns/catalogues/MINDCLUSTER.md is current (the --check above covers it) and
    every chip code of MindCluster's fault table is read; each recovery is what its
    handling level asks, but the one difference the table explains (0x81078603); no
    code MindCluster leaves alone (NotHandleFault) cordons a node."""
    rows = (REPO / "patterns" / "catalogues" / "MINDCLUSTER.md").read_text(encoding="utf-8")
    table = [line for line in rows.splitlines() if line.startswith("| 0x")]
    assert len(table) >= 800
    assert not [r for r in table if "| not read |" in r]
    differ = [r.split(" | ")[0] for r in table if r.endswith("| **no** |")]
    assert differ == ["| 0x81078603"], differ
    leave = [r for r in table if "| NotHandleFault |" in r and "0x81078603" not in r]
    assert leave and not [
        r for r in leave if "isolate_and_reschedule" in r or "pod_reschedule" in r
    ]


def test_readme_states_the_mindcluster_coverage_figures() -> None:
    rows = (REPO / "patterns" / "catalogues" / "MINDCLUSTER.md").read_text(encoding="utf-8")
    table = [line for line in rows.splitlines() if line.startswith("| 0x")]
    agree = [r for r in table if r.endswith("| yes |")]
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    said = f"all {len(table)} chip codes of its fault table are read and {len(agree)} agree"
    assert said in readme, said
