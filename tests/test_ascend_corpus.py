"""The multi-rank Ascend bundles (corpora/ascend/): each verdict's category, root rank,
device and host against the bundle's label; the healthy ones are `none`.

The bundles are CANN plog trees, device logs and screen logs as ModelArts-, MindCluster-
and script-style collections lay them out, assembled from real line formats by
corpora/ascend/build.py (its README names the sources).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from analyzer import analyze

ROOT = Path(__file__).resolve().parent.parent / "corpora" / "ascend"
BUNDLES = sorted(p for p in (ROOT / "bundles").iterdir() if p.is_dir())


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ascend_build", ROOT / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_corpus_has_the_scenarios_the_issue_asks_for() -> None:
    labels = [json.loads((b / "label.json").read_text()) for b in BUNDLES]
    assert len(BUNDLES) >= 25
    assert sum(lab["category"] == "none" for lab in labels) >= 2
    assert len({lab["category"] for lab in labels}) >= 7


def test_the_bundles_are_what_build_py_writes(tmp_path: Path) -> None:
    """The committed bundles are the builder's output (edit build.py, then run it)."""
    _builder().main(tmp_path)
    made = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    have = {
        p.relative_to(ROOT / "bundles"): p.read_bytes()
        for p in (ROOT / "bundles").rglob("*")
        if p.is_file()
    }
    assert made == have


@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_ascend_bundle(bundle: Path) -> None:
    label = json.loads((bundle / "label.json").read_text())
    v = analyze(str(bundle / "logs"), model=False)
    rc = v.root_cause
    devices = [d.split("=", 1)[1] for d in v.act_on.devices if d.startswith("device=")]
    got = {
        "category": v.category,
        "rank": rc.rank if rc else None,
        "device": devices[0] if devices else None,
        "host": rc.host if rc else None,
    }
    want = {k: label[k] for k in got}
    assert got == want, label["why"]


def test_the_spread_is_on_corrected_clocks() -> None:
    """worker-1's clock is 120 s behind: rank 6 prints an earlier time than rank 2, and
    the spread puts it second, 15 s after rank 2, once the clocks are aligned."""
    v = analyze(str(ROOT / "bundles" / "skewed-clocks-first-oom" / "logs"), model=False)
    assert v.spread is not None
    assert (v.spread.first.rank, v.spread.last.rank) == (2, 6)
    assert v.spread.first.time is not None and v.spread.last.time is not None
    assert v.spread.first.time.endswith("11:21:30.000")
    assert v.spread.last.time.endswith("11:21:45.000")


def test_the_wait_chain_is_in_the_timeline() -> None:
    from analyzer.sinks import timeline

    v = analyze(str(ROOT / "bundles" / "ring-lost-logs" / "logs"), model=False)
    assert v.spread is not None and (7, 6) in v.spread.waits
    assert "waited for: 5 -> 4 -> 3 -> 2 -> 1 -> 0 -> 7 -> 6" in timeline.render(v)
