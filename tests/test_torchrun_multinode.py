"""Real multi-node torchrun jobs (corpora/torchrun/multinode/): the verdict must match the label.

Each ``corpora/torchrun/multinode/<job>-<layout>/`` holds the logs of one real job of 2 or 3
torchrun agents ("nodes", each with its own hostname) x 2 gloo workers, saved in one
platform's layout (``logs/``), and its ``label.json``; ``corpora/torchrun/run_multinode.py``
made them. The labels' ranks are GLOBAL ranks and their hosts the nodes' hostnames, both
from ground truth each rank wrote at start (``label["ranks"]``), never from the logs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

from analyzer import analyze

MULTINODE = REPO / "corpora" / "torchrun" / "multinode"
LAYOUTS = {"node-dir", "node-file", "logdir", "kubectl", "slurm"}


def _bundles() -> list[Path]:
    return sorted(p for p in MULTINODE.iterdir() if (p / "label.json").is_file())


def _label(bundle: Path) -> dict[str, object]:
    label: dict[str, object] = json.loads((bundle / "label.json").read_text())
    return label


def test_corpus_is_complete() -> None:
    bundles = _bundles()
    labels = [_label(b) for b in bundles]
    assert {str(x["layout"]) for x in labels} == LAYOUTS
    assert {"none", "user_code_error", "hang", "numerical_error", "unknown", "host_oom"} <= {
        str(x["category"]) for x in labels
    }
    assert any(x["nnodes"] == 3 for x in labels)
    total = 0
    for bundle, label in zip(bundles, labels, strict=True):
        assert label["torch"] == "2.13.0"
        assert label["world_size"] == label["nnodes"] * label["nproc_per_node"]  # type: ignore[operator]
        ranks = label["ranks"]
        assert isinstance(ranks, list)
        assert [r["rank"] for r in ranks] == list(range(int(str(label["world_size"]))))
        by_rank = {r["rank"]: r for r in ranks}
        rc = label["root_cause_rank"]
        if rc is None:
            assert label["category"] == "none"
            assert label["root_cause_host"] is None and label["act_on_hosts"] == []
        else:
            # the faults are on a non-zero rank of a node other than node 0, but for a
            # lost node 0 (the rendezvous store's host)
            if label.get("lost_node") is None or by_rank[rc]["node_rank"] != 0:
                assert rc != 0 and by_rank[rc]["node_rank"] != 0, bundle.name
            assert by_rank[rc]["host"] == label["root_cause_host"], bundle.name
            assert label["root_cause_host"] in label["act_on_hosts"]  # type: ignore[operator]
            evidence = bundle / "logs" / str(label["root_cause_file"])
            assert str(label["root_cause_line_contains"]) in evidence.read_text(), bundle.name
        for f in (bundle / "logs").rglob("*"):
            if f.is_file():
                assert f.stat().st_size < 200_000, f
                total += f.stat().st_size
    assert total < 3_000_000


@pytest.mark.parametrize("bundle", _bundles(), ids=lambda p: p.name)
def test_verdict_matches_label(bundle: Path) -> None:
    label = _label(bundle)
    verdict = analyze(str(bundle / "logs"))
    rc = verdict.root_cause
    got = {
        "category": verdict.category,
        "rank": rc.rank if rc else None,
        "host": rc.host if rc else None,
        "act_on_hosts": set(verdict.act_on.hosts),
    }
    want = {
        "category": label["category"],
        "rank": label["root_cause_rank"],
        "host": label["root_cause_host"],
        "act_on_hosts": set(label["act_on_hosts"]),  # type: ignore[call-overload]
    }
    if label.get("host_in_logs") is False:  # no line names it: the rank must do
        want.update(host=None, act_on_hosts=set())
    evidence = f"{rc.file}:{rc.line}: {rc.text[:160]!r}" if rc else None
    assert got == want, f"{bundle.name}: got {got} from {evidence}, label {want}"
