"""The seeded bundle generator (corpora/generator/): deterministic, valid labels, the
classic seeds unchanged, and the analyzer gets held-out seeds 1000-1029 (classic layouts)
and 3000-3024 (each multi-node layout) right."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from corpora.generator.bundles import DEFAULTS, LAYOUTS, MULTI_SEEDS, generate
from corpora.generator.evaluate import by_layout, evaluate, report
from corpora.generator.multinode import NODE_LAYOUTS

LABEL_KEYS = {
    "category",
    "recovery",
    "retryable",
    "root_cause_rank",
    "root_cause_host",
    "act_on_hosts",
    "root_cause_file",
    "root_cause_line_contains",
    "layout",
    "ranks",
    "seed",
}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("seed", [0, 7, 23, 101])
def test_same_seed_same_bytes(seed: int, tmp_path: Path) -> None:
    generate(seed, tmp_path / "a")
    generate(seed, tmp_path / "b")
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_different_seeds_differ(tmp_path: Path) -> None:
    generate(1, tmp_path / "a")
    generate(2, tmp_path / "b")
    assert _files(tmp_path / "a") != _files(tmp_path / "b")


@pytest.mark.parametrize("seed", range(40))
def test_label_is_valid(seed: int, tmp_path: Path) -> None:
    label = generate(seed, tmp_path)
    assert set(label) == LABEL_KEYS
    assert label["seed"] == seed
    assert (label["recovery"], label["retryable"]) == DEFAULTS[str(label["category"])]
    assert label["layout"] in ("per_rank", "logdir", "console")
    ranks = label["ranks"]
    assert isinstance(ranks, int) and 4 <= ranks <= 1024
    rank = label["root_cause_rank"]
    assert rank is None or (isinstance(rank, int) and 0 <= rank < ranks)
    act_on = label["act_on_hosts"]
    assert isinstance(act_on, list)
    if rank is None:
        assert label["root_cause_host"] is None and act_on == []
    else:
        assert re.fullmatch(r"node\d", str(label["root_cause_host"]))
        assert act_on[0] == label["root_cause_host"] and len(set(act_on)) == len(act_on)
        assert len(act_on) == 1 or label["category"] == "network_fault"
        assert all(re.fullmatch(r"node\d|10\.0\.0\.\d+", h) for h in act_on)
    if label["root_cause_file"] is not None:
        evidence = tmp_path / "logs" / str(label["root_cause_file"])
        assert str(label["root_cause_line_contains"]) in evidence.read_text()
    for f in (tmp_path / "logs").rglob("*"):
        assert f.is_dir() or f.stat().st_size < 5_000_000, f


@pytest.mark.slow
def test_held_out_accuracy() -> None:
    figures = report(evaluate(range(1000, 1030)))
    assert figures["category"] >= 0.9
    assert figures["rank"] >= 0.9


# sha256 of the logs of classic seeds, recorded before the multi-node layouts were added:
# other corpora and tests depend on seeds 0-1999 keeping their bytes.
CLASSIC_SHA256 = {
    0: "1013cf73d633eecd74e9a527f9dc395db8c762c6b1e9dd68c226ab96f85dad57",
    7: "ff6bd41a6d8a16f6b094df7f9697003a4c20a073f70a03c22753f932505f121b",
    23: "1a714edd5bd1118dac3b6c0a6ade9d28d8f2837ad9cdd812bb975d8e7b61d7d4",
    1000: "850868e5e4230bf39641ddccfa5f02eea223b360463791c64272988d287d6e4e",
    1011: "24257c85d6849e8b4a940fdbe4f684e349dfdc42cfa75864816a3e2100a8cd27",
}


@pytest.mark.parametrize("seed", sorted(CLASSIC_SHA256))
def test_classic_seeds_keep_their_bytes(seed: int, tmp_path: Path) -> None:
    generate(seed, tmp_path)
    h = hashlib.sha256()
    for name, data in _files(tmp_path / "logs").items():
        h.update(name.encode() + b"\0" + data + b"\0")
    assert h.hexdigest() == CLASSIC_SHA256[seed]


@pytest.mark.parametrize("layout", NODE_LAYOUTS)
def test_multi_node_same_seed_same_bytes(layout: str, tmp_path: Path) -> None:
    seed = MULTI_SEEDS + 1 + NODE_LAYOUTS.index(layout)
    generate(seed, tmp_path / "a", layout)
    generate(seed, tmp_path / "b", layout)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_forcing_a_seeds_own_layout_changes_nothing(tmp_path: Path) -> None:
    label = generate(MULTI_SEEDS, tmp_path / "a")
    generate(MULTI_SEEDS, tmp_path / "b", str(label["layout"]))
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_a_layout_of_the_other_family_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        generate(5, tmp_path, "slurm")
    with pytest.raises(ValueError):
        generate(MULTI_SEEDS, tmp_path, "per_rank")


_KUBECTL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ")
_SLURM = re.compile(
    r"\d: |srun: |slurmstepd: |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - INFO - job-monitor"
)
_TRAINER_RANK = re.compile(r"\[rank \d+\]|\[Rank \d+\] \(after")


@pytest.mark.parametrize("seed", range(MULTI_SEEDS, MULTI_SEEDS + 24))
def test_multi_node_label_is_valid(seed: int, tmp_path: Path) -> None:
    label = generate(seed, tmp_path)
    assert set(label) == LABEL_KEYS | {"nproc_per_node", "trainer_logs_rank", "nodes"}
    assert (label["recovery"], label["retryable"]) == DEFAULTS[str(label["category"])]
    assert json.loads((tmp_path / "label.json").read_text()) == label
    layout = str(label["layout"])
    assert layout in NODE_LAYOUTS and layout not in LAYOUTS
    nodes = label["nodes"]
    nproc = label["nproc_per_node"]
    assert isinstance(nodes, list) and isinstance(nproc, int) and len(nodes) >= 2
    hosts = [n["host"] for n in nodes]
    assert len(set(hosts)) == len(hosts)
    assert not any(re.fullmatch(r"node\d+", h) for h in hosts)
    assert hosts == sorted(hosts, key=lambda h: h + "_")  # node ranks: c10d's order
    assert [n["global_ranks"] for n in nodes] == [
        list(range(k * nproc, (k + 1) * nproc)) for k in range(len(nodes))
    ]
    rank = label["root_cause_rank"]
    act_on = label["act_on_hosts"]
    assert isinstance(act_on, list)
    if rank is None:
        assert label["root_cause_host"] is None and act_on == []
    else:
        assert isinstance(rank, int) and label["root_cause_host"] == hosts[rank // nproc]
        assert act_on[0] == label["root_cause_host"] and len(set(act_on)) == len(act_on)
        if label["category"] == "network_fault":  # the link's other end, by name and address
            assert len(act_on) == 3 and act_on[1] in hosts and act_on[1] != act_on[0]
            assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", act_on[2])
        else:
            assert len(act_on) == 1
    logs = tmp_path / "logs"
    files = {str(p.relative_to(logs)): p.read_text() for p in logs.rglob("*") if p.is_file()}
    if label["root_cause_file"] is not None:
        assert str(label["root_cause_line_contains"]) in files[str(label["root_cause_file"])]
    for name, text in files.items():
        assert len(text) < 5_000_000, name
        host = re.sub(r"^dmesg-|(?:/console|/kern|/dmesg|\.kern)?\.(?:log|txt)$", "", name)
        if layout == "slurm":
            assert re.fullmatch(r"slurm-\d+\.out", name)
            assert all(_SLURM.match(x) for x in text.splitlines()), name
        elif name != "launcher.log":
            assert host in hosts, name
        if layout == "kubectl" and name != "launcher.log":
            assert all(_KUBECTL.match(x) for x in text.splitlines()), name
        if not label["trainer_logs_rank"]:
            assert not _TRAINER_RANK.search(text), name


# Held-out multi-node seeds, each generated in every multi-node layout. Measured with the
# engine of 2026-12 (100 bundles, about 20 s): node_dir, node_file and kubectl 1.000 on
# category, rank and host; slurm 0.96 category, 9/11 = 0.818 rank and host. Slurm's bar
# is lower on purpose, for two engine misses the README lists (with --kill-on-bad-exit a
# healthy node's "Received Signals.SIGTERM death signal" wins over the culprit's error;
# slurmstepd's "Detected 1 oom-kill event(s)" becomes a root cause without rank or host):
# raise it when the engine gets them right.
MULTI_BARS = {
    "node_dir": {"category": 0.9, "rank": 0.9, "host": 0.9, "act_on_named": 0.9},
    "node_file": {"category": 0.9, "rank": 0.9, "host": 0.9, "act_on_named": 0.9},
    "kubectl": {"category": 0.9, "rank": 0.9, "host": 0.9, "act_on_named": 0.9},
    "slurm": {"category": 0.9, "rank": 0.75, "host": 0.75, "act_on_named": 0.75},
}


@pytest.mark.slow
def test_held_out_multi_node_accuracy() -> None:
    outcomes = [o for layout in NODE_LAYOUTS for o in evaluate(range(3000, 3020), layout)]
    report(outcomes)
    figures = by_layout(outcomes)
    assert set(figures) == set(NODE_LAYOUTS)
    for layout, bars in MULTI_BARS.items():
        assert figures[layout]["n"] == 20
        for name, bar in bars.items():
            assert figures[layout][name] >= bar, (layout, name, figures[layout])
