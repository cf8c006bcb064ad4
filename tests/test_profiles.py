"""benchmarks/profiles.py: every benchmark profile is reproducible to the byte, records a
planted cause that is really where it says, and the dense one is dense (issue 19)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import zstandard
from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # profiles imports genlogs as a sibling
import profiles
import usersets

from analyzer.rules.signatures import load_patterns

SINGLE = ("sparse", "dense", "plog", "tqdm", "console", "console-bare", "console64")


def _record(path: Path) -> dict[str, Any]:
    return dict(json.loads(profiles.genlogs.record_of(path).read_text()))


def _line(path: Path, number: int) -> str:
    """Physical line `number` (1-based), as ha-analyze counts lines: split at \\n only."""
    with path.open("rb") as f:
        for i, raw in enumerate(f, 1):
            if i == number:
                return raw.rstrip(b"\n").decode()
    raise AssertionError(f"{path} has fewer than {number} lines")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each single-file profile at 1 MiB, shared by the tests that only read them."""
    root = tmp_path_factory.mktemp("profiles")
    return {kind: profiles.make(kind, root / f"{kind}.log", mib=1) for kind in SINGLE}


@pytest.mark.parametrize("kind", SINGLE)
def test_same_arguments_give_the_same_bytes(
    kind: str, made: dict[str, Path], tmp_path: Path
) -> None:
    again = profiles.make(kind, tmp_path / f"{kind}.log", mib=1, force=True)
    assert again.read_bytes() == made[kind].read_bytes()
    assert _record(again)["line"] == _record(made[kind])["line"]
    other = profiles.make(kind, tmp_path / "other.log", mib=1, seed=7)
    assert other.read_bytes() != made[kind].read_bytes()


@pytest.mark.parametrize("kind", SINGLE)
def test_the_record_names_a_line_holding_the_planted_message(
    kind: str, made: dict[str, Path]
) -> None:
    path = made[kind]
    rec = _record(path)
    assert rec["file"] == path.name
    assert rec["bytes_written"] == path.stat().st_size
    assert abs(path.stat().st_size - (1 << 20)) < (1 << 20) // 10  # about the size asked
    line = _line(path, rec["line"])
    assert line == rec["text"]
    assert rec["message"][:60] in line
    assert rec["category"] and rec["signature"]
    sig = load_patterns().get(rec["signature"])
    assert sig is not None and sig.category == rec["category"]


def test_a_complete_output_is_reused(made: dict[str, Path]) -> None:
    before = made["dense"].stat().st_mtime_ns
    assert profiles.make("dense", made["dense"], mib=1) == made["dense"]
    assert made["dense"].stat().st_mtime_ns == before


@pytest.mark.parametrize("compress", ["gzip", "zstd"])
def test_compressed_profiles_hold_the_plain_bytes(
    compress: profiles.Compress, made: dict[str, Path], tmp_path: Path
) -> None:
    out = profiles.make("plog", tmp_path / "plog.log", mib=1, compress=compress)
    assert out.name.endswith({"gzip": ".gz", "zstd": ".zst"}[compress])
    if compress == "gzip":
        data = gzip.decompress(out.read_bytes())
    else:
        data = zstandard.ZstdDecompressor().stream_reader(out.open("rb")).read()
    assert data == made["plog"].read_bytes()
    assert _record(out)["line"] == _record(made["plog"])["line"]


def test_dense_has_five_percent_of_lines_on_signatures(
    made: dict[str, Path], tmp_path: Path
) -> None:
    """>= 5% of the dense profile's lines match the user ERE set, even without the
    progress signatures (step lines alone would make any training log 'dense')."""
    path = made["dense"]
    lines = path.read_bytes().count(b"\n")
    events = [s for s in load_patterns().signatures if s.role != "progress"]
    ere = tmp_path / "events.ere"
    ere.write_text("".join(e + "\n" for e in usersets.user_eres(events)), encoding="utf-8")
    assert usersets.grep_count(ere, path) >= lines // 20
    full, literals = usersets.write_sets(tmp_path / "sets")
    assert usersets.grep_count(full, path) >= usersets.grep_count(ere, path)
    assert usersets.grep_count(literals, path, fixed=True) >= lines // 20


def test_user_eres_are_what_a_user_types() -> None:
    ib = usersets.signature_ere(load_patterns().get("nccl-ib-completion-error"))  # type: ignore[arg-type]
    assert ib == r"NET/IB.*Got completion.*with (error |status=)"
    assert usersets.regex_ere(r"(?i)(?:loss|nll)\s*[:=]\s*(?:nan|inf)\b") == [
        r"([lL][oO][sS][sS]|[nN][lL][lL]).*([nN][aA][nN]|[iI][nN][fF])\b"
    ]
    eres = usersets.user_eres()
    assert len(eres) == len(set(eres)) >= 400


def test_job256_is_genlogs_job_with_256_ranks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}

    def job(outdir: Path, ranks: int, mib: int, compress: str, **kw: Any) -> Path:
        seen.update(outdir=outdir, ranks=ranks, mib=mib, compress=compress, **kw)
        return outdir

    monkeypatch.setattr(profiles.genlogs, "job", job)
    assert profiles.make("job256", tmp_path / "job", mib=64) == tmp_path / "job"
    assert seen["ranks"] == 256 and seen["mib"] == 1 and seen["compress"] == "none"
    profiles.make("job256", tmp_path / "job", mib=1024, compress="zstd")
    assert seen["mib"] == 4 and seen["compress"] == "zstd"


@pytest.mark.parametrize("kind", ["console", "console64"])
def test_a_merged_console_names_its_planted_cause_and_reads_every_rank_s_steps(
    kind: str, made: dict[str, Path]
) -> None:
    """The merged consoles (colored torchtitan step lines behind rank prefixes): the
    planted OOM decides at its own line, and each rank's steps are a progress series
    (a colored step line is progress; a console of 64 ranks samples each of them)."""
    from analyzer import Analyzer, Settings

    path, rec = made[kind], _record(made[kind])
    job = Analyzer(Settings())
    job.read_paths([str(path)])
    v = job.verdict()
    assert v.category == rec["category"] and v.root_cause is not None
    assert (v.root_cause.line, v.root_cause.rank) == (rec["line"], rec["rank"])
    world = 64 if kind == "console64" else 8
    ranks = {s.last.rank for s in job.evidence().timeline.streams.values() if s.last}
    assert ranks == set(range(world)), sorted(r for r in ranks if r is not None)
