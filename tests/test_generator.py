"""The seeded bundle generator (corpora/generator/): deterministic, valid labels, and the
analyzer gets held-out seeds 1000-1029 right."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpora.generator.bundles import DEFAULTS, generate
from corpora.generator.evaluate import evaluate, report

LABEL_KEYS = {
    "category",
    "recovery",
    "retryable",
    "root_cause_rank",
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
    if label["root_cause_file"] is not None:
        evidence = tmp_path / "logs" / str(label["root_cause_file"])
        assert str(label["root_cause_line_contains"]) in evidence.read_text()
    for f in (tmp_path / "logs").rglob("*"):
        assert f.is_dir() or f.stat().st_size < 5_000_000, f


def test_held_out_accuracy() -> None:
    figures = report(evaluate(range(1000, 1030)))
    assert figures["category"] >= 0.9
    assert figures["rank"] >= 0.9
