"""Cascade rules: data that says which symptoms a root cause explains."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_PATTERNS, REPO

from analyzer import PatternError, analyze
from analyzer.rules.cascade import load_rules

EXAMPLE = REPO / "corpora" / "examples" / "gpu-fell-off-bus"


def test_builtin_rules_load_and_explain_the_example() -> None:
    rules = load_rules(True)
    assert {"timeout-after-a-rank-stops", "teardown-after-a-failure"} <= {r.id for r in rules}
    v = analyze(EXAMPLE)
    explained = {e.signature: e for e in v.explained}
    timeout = explained["nccl-watchdog-timeout"]
    assert (timeout.rule, timeout.ranks, timeout.count) == ("timeout-after-a-rank-stops", 4, 4)
    assert timeout.delay == pytest.approx(601.0, abs=1.0)
    assert explained["pytorch-elastic-worker-teardown"].rule == "teardown-after-a-failure"
    assert v.to_dict()["explained"][0]["rule"]


def test_a_symptom_outside_the_window_is_not_explained(tmp_path: Path) -> None:
    oom = "2026-11-29 10:00:00,000 [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1 GiB."
    late = "[rank1]:[E1130 10:00:00.000000 1 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)"
    (tmp_path / "a.log").write_text(oom + "\n" + late + "\n")
    v = analyze(tmp_path, patterns=[DEMO_PATTERNS], builtin_patterns=False)
    assert v.category == "device_oom" and v.explained == ()  # no demo rules: nothing explained
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "cascades.yaml").write_text(
        "cascades:\n  - {id: mine, cause: {categories: [device_oom]}, symptom: {}, max_delay: 3600}\n"
    )
    v = analyze(tmp_path, patterns=[DEMO_PATTERNS, rules], builtin_patterns=False)
    assert v.explained == ()  # a day later: outside the window
    (rules / "cascades.yaml").write_text(
        "cascades:\n  - {id: mine, cause: {categories: [device_oom]}, symptom: {}, max_delay: 100000}\n"
    )
    v = analyze(tmp_path, patterns=[DEMO_PATTERNS, rules], builtin_patterns=False)
    assert [e.rule for e in v.explained] == ["mine"]


def test_invalid_rules_name_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "cascades.yaml").write_text(
        "cascades:\n  - {id: bad, cause: {categories: [gpu_oom]}}\n"
    )
    with pytest.raises(PatternError, match=r"bad: cause: categories: not taxonomy ids: gpu_oom"):
        load_rules(None, [tmp_path])
