"""Template mining (analyzer.unknowns.templates) and signature drafts (analyzer.unknowns.suggest)."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from analyzer import analyze
from analyzer.rules.matcher import Matcher, run_examples
from analyzer.rules.signatures import KEY_ORDER, load_patterns
from analyzer.types import BLAMES
from analyzer.unknowns.suggest import draft_signature, draft_yaml
from analyzer.unknowns.templates import MAX_JOBS, OVERFLOW_PATTERN, Template, mine

# Made-up but realistic failures that no built-in signature knows: one vendor
# collective, a storage client, an Ascend link tool, a glog-style agent, a Python
# exception from a custom allocator, and a short generic message.
UNKNOWN = [
    (
        "job-a",
        "[rank3]:2026-03-02 10:00:13,400 ERROR FooCollective: peer 10.0.0.3 lost sync at epoch 4 (code=0x1f)",
    ),
    (
        "job-a",
        "[rank5]:2026-03-02 10:00:13,402 ERROR FooCollective: peer 10.0.0.7 lost sync at epoch 4 (code=0x2a)",
    ),
    (
        "job-b",
        "7: 2026-03-03 11:00:13,400 ERROR FooCollective: peer 10.0.1.9:29500 lost sync at epoch 12 (code=0x1f)",
    ),
    (
        "job-b",
        "[default1]:BarFS: write to /mnt/ckpt/run7/shard_00017.bin stalled for 912 s, giving up",
    ),
    (
        "job-c",
        "[default0]:BarFS: write to /mnt/ckpt/run9/shard_00003.bin stalled for 45 s, giving up",
    ),
    ("job-c", "node017: hccn_tool: link 3 of device 5 flapped 14 times in 60s, port disabled"),
    ("job-d", "node021: hccn_tool: link 1 of device 2 flapped 3 times in 60s, port disabled"),
    (
        "job-d",
        "E0302 10:00:13.123456 4567 agent.cc:311] Heartbeat to coordinator 10.1.2.3:7000 missed 5 times; assuming partition",
    ),
    (
        "job-e",
        "E0302 10:00:19.123456 4567 agent.cc:311] Heartbeat to coordinator 10.1.2.4:7000 missed 6 times; assuming partition",
    ),
    ("job-e", "RuntimeError: 'QuuxAllocator' arena 7 corrupted: checksum a1b2c3d4e5 != 99aa88bb77"),
    # A short message whose draft regex also finds the start of a longer sibling: the
    # drafter must keep the two apart (exclude) so the file still tests clean.
    ("job-f", "[rank0]:ZetaRuntime: device 4 wedged"),
    ("job-f", "[rank1]:ZetaRuntime: device 6 wedged"),
    ("job-f", "[rank2]:ZetaRuntime: device 6 wedged after reset attempt 3 of 3, giving up now"),
]


def _by_pattern(templates: list[Template], needle: str) -> Template:
    found = [t for t in templates if needle in t.pattern]
    assert len(found) == 1, [t.pattern for t in templates]
    return found[0]


# --- mining ---------------------------------------------------------------------------


def test_variable_parts_end_in_one_template() -> None:
    lines = [
        ("j1", "[rank0]:Loader: cannot open /data/shards/part-00001.arrow (errno 5) at 0x7f3a10"),
        ("j1", "[rank12]:Loader: cannot open /data/other/part-00977.arrow (errno 5) at 0x55d0ff"),
        ("j2", "3: Loader: cannot open /scratch/u/x/part-1.arrow (errno 121) at 0x1"),
        ("j2", "[rank12]:Loader: cannot open /data/other/part-00977.arrow (errno 5) at 0x55d0ff"),
    ]
    out = mine(lines)
    assert len(out) == 1
    t = out[0]
    assert t.pattern == "Loader: cannot open <PATH> (errno <NUM>) at <HEX>"
    assert t.count == 4
    # distinct raw lines, first seen first (the repeated fourth line is not repeated)
    assert t.examples == tuple(raw for _, raw in lines[:3])
    assert t.jobs == ("j1", "j2") and t.job_count == 2


def test_differing_word_becomes_wildcard_only_above_threshold() -> None:
    lines = [
        ("j", "Fabric port alpha went down on switch"),
        ("j", "Fabric port beta went down on switch"),
    ]
    merged = mine(lines, similarity=0.5)
    assert [t.pattern for t in merged] == ["Fabric port <*> went down on switch"]
    assert merged[0].count == 2
    apart = mine(lines, similarity=1.0)
    assert sorted(t.pattern for t in apart) == [
        "Fabric port alpha went down on switch",
        "Fabric port beta went down on switch",
    ]


def test_different_messages_stay_apart() -> None:
    out = mine(UNKNOWN)
    patterns = [t.pattern for t in out]
    assert len(out) == 7, patterns
    foo = _by_pattern(out, "FooCollective")
    assert foo.count == 3 and foo.jobs == ("job-a", "job-b") and len(foo.examples) == 3
    assert "peer <IP> lost sync at epoch <NUM> (code=<HEX>)" in foo.pattern
    hccn = _by_pattern(out, "hccn_tool")
    assert (
        hccn.pattern
        == "hccn_tool: link <NUM> of device <NUM> flapped <NUM> times in <NUM>s, port disabled"
    )
    assert hccn.count == 2 and hccn.jobs == ("job-c", "job-d")
    zeta = [t for t in out if "ZetaRuntime" in t.pattern]
    assert sorted(t.count for t in zeta) == [1, 2]
    assert sum(t.count for t in out) == len(UNKNOWN)


def test_sorted_by_count_then_pattern_and_deterministic() -> None:
    lines = [("j", f"Beta failure {i}") for i in range(3)]
    lines += [("j", f"Alpha failure {i}") for i in range(3)]
    lines += [("j", f"Gamma failure {i}") for i in range(5)]
    out = mine(lines)
    assert [(t.pattern, t.count) for t in out] == [
        ("Gamma failure <NUM>", 5),
        ("Alpha failure <NUM>", 3),
        ("Beta failure <NUM>", 3),
    ]
    rng = random.Random(3)
    shuffled = list(UNKNOWN) * 3
    rng.shuffle(shuffled)
    assert mine(shuffled) == mine(list(shuffled))


def test_jobs_are_capped_but_counted() -> None:
    lines = [(f"job-{i:03d}", f"[rank{i % 8}]:Widget: device {i} unhealthy") for i in range(50)]
    (t,) = mine(reversed(lines))
    assert t.count == 50
    assert t.job_count == 50
    assert t.jobs == tuple(f"job-{i:03d}" for i in range(MAX_JOBS))
    assert len(t.examples) == 3


def test_empty_lines_are_skipped() -> None:
    assert mine([("j", ""), ("j", "   "), ("j", "[rank1]:")]) == []


def _random_lines(n: int, seed: int = 7) -> Iterator[tuple[str, str]]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    for i in range(n):
        words = (
            "".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(rng.randint(3, 8))
        )
        yield f"job{i % 97}", " ".join(words) + f" {i}"


@pytest.mark.slow
def test_max_templates_bound_on_50000_distinct_lines() -> None:
    started = time.perf_counter()
    out = mine(_random_lines(50_000), max_templates=500)
    elapsed = time.perf_counter() - started
    assert len(out) <= 500
    assert sum(t.count for t in out) == 50_000  # nothing is lost silently
    overflow = [t for t in out if t.pattern == OVERFLOW_PATTERN]
    assert len(overflow) == 1
    assert overflow[0].count == 50_000 - 499
    assert len(overflow[0].examples) == 3 and overflow[0].job_count == 97
    assert elapsed < 30, elapsed


@pytest.mark.slow
def test_one_crowded_leaf_stays_fast() -> None:
    # Same length and first words, every line different: the worst case for Drain.
    rng = random.Random(1)
    letters = "abcdefghijklmnopqrstuvwxyz"
    lines = [
        ("j", "ERROR Foo: " + " ".join("".join(rng.choices(letters, k=6)) for _ in range(6)))
        for _ in range(20_000)
    ]
    started = time.perf_counter()
    out = mine(lines)
    assert time.perf_counter() - started < 30
    assert sum(t.count for t in out) == 20_000
    assert out[0].pattern == OVERFLOW_PATTERN


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        mine([], similarity=1.5)
    with pytest.raises(ValueError):
        mine([], max_templates=0)


# --- drafts ---------------------------------------------------------------------------


_COUNT = re.compile(r"\{(\d*),?(\d*)\}")


def test_draft_signature_shape() -> None:
    t = _by_pattern(mine(UNKNOWN), "FooCollective")
    d = draft_signature(t)
    assert list(d) == [k for k in KEY_ORDER if k in d]
    assert d["id"] == "local-foocollective-peer-lost-sync-at-epoch"
    assert (d["category"], d["role"], d["severity"]) == ("unknown", "cause", "error")
    assert d["blame"] in BLAMES
    assert "machine draft" in d["description"].lower()
    (rx,) = d["match"]
    assert ".*" not in rx and ".+" not in rx
    assert all(int(n) <= 1000 for m in _COUNT.finditer(rx) for n in m.groups() if n)
    # literals are taken from the template and occur, case and all, in every positive
    positives = [e["log"] for e in d["examples"] if e["match"]]
    assert positives == list(t.examples)
    assert all(lit in p for lit in d["literals"] for p in positives)
    assert any(not e["match"] for e in d["examples"])
    assert not any("captures" in e for e in d["examples"])


def test_draft_refuses_overflow_and_wordless_templates() -> None:
    with pytest.raises(ValueError):
        draft_signature(Template(OVERFLOW_PATTERN, 3, ("x y z",), ("j",), 1))
    (t,) = mine([("j", "12 34 0x55 /a/b/c"), ("j", "13 35 0x56 /a/b/d")])
    with pytest.raises(ValueError):
        draft_signature(t)


def test_draft_yaml_validates_and_its_examples_pass(tmp_path: Path, engine: str) -> None:
    templates = mine(UNKNOWN)
    text = draft_yaml(templates)
    doc = yaml.safe_load(text)
    assert doc["family"] == "local"
    ids = [s["id"] for s in doc["signatures"]]
    assert len(ids) == len(set(ids)) == len(templates)
    (tmp_path / "local.yaml").write_text(text, encoding="utf-8")
    pset = load_patterns([tmp_path], builtin=False)
    assert len(pset.signatures) == len(templates)
    checked, failures = run_examples(Matcher(pset, engine=engine))
    assert failures == []
    assert checked >= len(UNKNOWN)
    # the short Zeta message had to be kept off its longer sibling's lines
    zeta = [s for s in pset.signatures if "zetaruntime" in s.id]
    assert len(zeta) == 2 and any(s.exclude for s in zeta)


def test_draft_ids_are_unique(tmp_path: Path) -> None:
    # Two templates with the same words (different token counts) get different ids.
    lines = [("j", "Gizmo lost heartbeat 4"), ("j", "Gizmo lost heartbeat 4 5")]
    templates = mine(lines)
    assert len(templates) == 2
    text = draft_yaml(templates, family="mine")
    ids = [s["id"] for s in yaml.safe_load(text)["signatures"]]
    assert ids == ["mine-gizmo-lost-heartbeat", "mine-gizmo-lost-heartbeat-2"]
    (tmp_path / "mine.yaml").write_text(text, encoding="utf-8")
    _, failures = run_examples(Matcher(load_patterns([tmp_path], builtin=False)))
    assert failures == []


HEALTHY_LOG = """\
2026-03-02 10:00:01,100 INFO trainer.py:88 starting training, world_size=16
2026-03-02 10:00:05,200 INFO trainer.py:120 step 1 loss 2.314 lr 1.0e-4
2026-03-02 10:00:09,300 INFO trainer.py:120 step 2 loss 2.201 lr 1.0e-4
{failure}
2026-03-02 10:00:13,401 INFO trainer.py:140 shutting down
"""
FAILURE = "[rank3]:2026-03-02 10:00:13,400 ERROR FooCollective: peer 10.0.0.3 lost sync at epoch 4 (code=0x1f)"


def test_end_to_end_unknown_line_becomes_a_signature(tmp_path: Path, engine: str) -> None:
    log = tmp_path / "job.log"
    log.write_text(HEALTHY_LOG.format(failure=FAILURE), encoding="utf-8")
    before = analyze(log, engine=engine, model=False)  # what the signatures alone know
    assert before.category in ("unknown", "none")
    assert before.root_cause is None or before.root_cause.line != 4

    error_lines = [("job-1", line) for line in log.read_text().splitlines() if " ERROR " in line]
    (t,) = mine(error_lines)
    draft = draft_signature(t, family="site")
    draft["category"] = "device_fault"
    patterns = tmp_path / "patterns"
    patterns.mkdir()
    (patterns / "site.yaml").write_text(
        yaml.safe_dump(
            {"family": "site", "signatures": [draft]}, sort_keys=False, allow_unicode=True
        ),
        encoding="utf-8",
    )
    after = analyze(log, patterns=[patterns], engine=engine)
    assert after.category == "device_fault"
    assert after.root_cause is not None
    assert after.root_cause.signature == draft["id"]
    assert after.root_cause.line == 4
    assert "FooCollective" in after.root_cause.text
