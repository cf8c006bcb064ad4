"""benchmarks/genlogs.py: the one log generator of the benchmarks is reproducible, sized as
asked, realistic in its clock, and plants a failure ha-analyze finds where it says."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import itertools
import json
import os
import re
import sys
from datetime import datetime
from pathlib import Path
from types import ModuleType

import pytest
import zstandard
from conftest import REPO

from analyzer import analyze


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("genlogs", REPO / "benchmarks" / "genlogs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


genlogs = _load()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def one(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2 MiB single log (plain), shared by the tests that only read it."""
    return Path(genlogs.single(tmp_path_factory.mktemp("single") / "train.log", mib=2))


@pytest.fixture(scope="module")
def job8(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(genlogs.job(tmp_path_factory.mktemp("job") / "job", ranks=8, mib=1))


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path, one: Path) -> None:
    again = genlogs.single(tmp_path / "a" / "train.log", mib=2)
    assert _sha(again) == _sha(one)
    other = genlogs.single(tmp_path / "b" / "train.log", mib=2, seed=7)
    assert _sha(other) != _sha(one)


def test_job_is_reproducible(tmp_path: Path, job8: Path) -> None:
    again = genlogs.job(tmp_path / "job", ranks=8, mib=1)
    for name in ("rank_0000.log", "rank_0005.log"):
        assert _sha(again / name) == _sha(job8 / name), name
    assert _sha(genlogs.record_of(again)) == _sha(genlogs.record_of(job8))


@pytest.mark.parametrize("compress", ["gzip", "zstd"])
def test_compressed_holds_the_plain_bytes(tmp_path: Path, one: Path, compress: str) -> None:
    out = genlogs.single(tmp_path / "train.log", mib=2, compress=compress)
    assert out.name == "train.log" + {"gzip": ".gz", "zstd": ".zst"}[compress]
    raw = out.read_bytes()
    if compress == "gzip":
        assert raw[3] & 0x08 == 0 and raw[4:8] == b"\0\0\0\0"  # no file name, mtime 0
        plain = gzip.decompress(raw)
    else:
        plain = zstandard.ZstdDecompressor().stream_reader(raw).read()
    assert plain == one.read_bytes()
    again = genlogs.single(tmp_path / "again" / "train.log", mib=2, compress=compress, force=True)
    assert _sha(again) == _sha(out)
    expected = json.loads(genlogs.record_of(out).read_text())
    assert expected["file"] == out.name


@pytest.mark.parametrize("mib", [1, 2])
def test_size_is_as_asked(tmp_path: Path, mib: int) -> None:
    out = genlogs.single(tmp_path / "train.log", mib=mib)
    assert abs(out.stat().st_size / (mib << 20) - 1) < 0.03


def test_job_ranks_are_sized_as_asked(job8: Path) -> None:
    sizes = [p.stat().st_size for p in sorted(job8.glob("rank_*.log"))]
    assert len(sizes) == 8
    assert all(abs(s / (1 << 20) - 1) < 0.05 for s in sizes), sizes


_ISO = re.compile(rb"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,(\d{3}))?")
_GLOG = re.compile(rb"^(?:\[rank\d+\]:\[)?[IWEF](\d\d)(\d\d) (\d\d:\d\d:\d\d)\.(\d{6})")
_ITER = re.compile(rb" iteration +(\d+)/ *(\d+) \| consumed samples: +(\d+) ")


def _clock(line: bytes) -> float | None:
    m = _GLOG.match(line)
    if m:
        text = b"2026-%s-%s %s" % (m[1], m[2], m[3])
        return datetime.fromisoformat(text.decode()).timestamp() + int(m[4]) / 1e6
    m = _ISO.search(line, 0, 40)
    if m:
        return datetime.fromisoformat(m[1].decode()).timestamp() + int(m[2] or 0) / 1e3
    return None


@pytest.mark.parametrize("which", ["single", "culprit", "healthy"])
def test_time_and_iterations_rise(one: Path, job8: Path, which: str) -> None:
    path = {
        "single": one,
        "culprit": job8 / "rank_0005.log",
        "healthy": job8 / "rank_0002.log",
    }[which]
    times, steps = [], []
    for line in path.read_bytes().split(b"\n"):
        t = _clock(line)
        if t is not None:
            times.append(t)
        m = _ITER.search(line)
        if m:
            steps.append(int(m[1]))
            assert int(m[3]) == int(m[1]) * 1024  # consumed samples rise with it
    assert all(a <= b for a, b in itertools.pairwise(times))
    assert steps == list(range(1, len(steps) + 1))
    span = times[-1] - times[0]
    assert len(steps) <= span <= 2 * len(steps) + 900  # ~1 s a step (+ the timeout)
    lines = path.read_bytes().count(b"\n")
    assert 0.25 < len(steps) / lines < 0.42  # about a third of the lines


def test_distinct_links_healthy_ranks(tmp_path: Path) -> None:
    job = genlogs.job(tmp_path / "job", ranks=4, mib=1, distinct=1)
    culprit = genlogs.culprit_rank(4)
    files = {r: job / f"rank_{r:04d}.log" for r in range(4)}
    healthy = [r for r in range(4) if r != culprit]
    assert os.stat(files[culprit]).st_nlink == 1
    assert all(os.stat(files[r]).st_nlink == 3 for r in healthy)
    assert all(files[r].samefile(files[healthy[0]]) for r in healthy)
    assert _sha(files[culprit]) != _sha(files[healthy[0]])


def test_complete_output_is_reused(tmp_path: Path) -> None:
    out = genlogs.single(tmp_path / "train.log", mib=1)
    before = out.stat().st_mtime_ns
    assert genlogs.single(tmp_path / "train.log", mib=1) == out
    assert out.stat().st_mtime_ns == before
    out.write_bytes(out.read_bytes()[:-10])  # truncated: no longer complete
    genlogs.single(tmp_path / "train.log", mib=1)
    assert (
        out.stat().st_size
        == json.loads(genlogs.record_of(tmp_path / "train.log").read_text())["sizes"]["train.log"]
    )


def test_verdict_on_job_names_the_culprit(job8: Path) -> None:
    expected = json.loads(genlogs.record_of(job8).read_text())
    assert expected["rank"] == genlogs.culprit_rank(8) == 5
    v = analyze([str(job8)])
    assert v.category == "device_oom" == expected["category"]
    assert v.root_cause is not None
    assert v.root_cause.rank == expected["rank"]
    assert Path(v.root_cause.file).name == expected["file"]
    assert v.root_cause.line == expected["line"]
    assert v.root_cause.signature == expected["signature"]


def test_verdict_on_single(one: Path) -> None:
    expected = json.loads(genlogs.record_of(one).read_text())
    v = analyze([str(one)])
    assert v.category == "device_oom" == expected["category"]
    assert v.root_cause is not None
    assert v.root_cause.line == expected["line"]
    assert v.root_cause.rank == expected["rank"] == 0
