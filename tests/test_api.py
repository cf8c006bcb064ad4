"""The library call a restart controller makes."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO_PATTERNS

import analyzer
from analyzer import AnalyzerError, Verdict, analyze


def test_import_is_cheap() -> None:
    code = (
        "import sys, analyzer; heavy = [m for m in ('pandas', 'pyarrow', 'sklearn', 'numpy') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_api_is_small_and_explicit() -> None:
    assert set(analyzer.__all__) == {
        "Analyzer",
        "AnalyzerError",
        "CategoryId",
        "Finding",
        "LogTime",
        "PatternError",
        "PatternSet",
        "Readiness",
        "RecoveryId",
        "RootCause",
        "Settings",
        "Stats",
        "Verdict",
        "analyze",
        "load_patterns",
        "readiness",
    }


def test_verdict_is_frozen_and_to_dict_is_json(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"
    )
    v = analyze(tmp_path, patterns=[DEMO_PATTERNS], builtin_patterns=False)
    assert isinstance(v, Verdict)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.category = "x"  # type: ignore[misc]
    assert json.loads(json.dumps(v.to_dict()))["category"] == "device_oom"


def test_accepts_pathlike_and_lists(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text("hello\n")
    assert analyze(tmp_path).category == "none"
    assert analyze([str(tmp_path / "a.log")]).stats.files == 1


@pytest.mark.parametrize("bad", [[], 42, None])
def test_bad_arguments_raise_analyzer_error(bad: object) -> None:
    with pytest.raises(AnalyzerError):
        analyze(bad)  # type: ignore[arg-type]


def test_bad_lang_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(AnalyzerError):
        analyze(tmp_path, lang="fr")


def test_never_raises_on_hostile_content(tmp_path: Path) -> None:
    (tmp_path / "junk.bin").write_bytes(os.urandom(200_000))
    (tmp_path / "nul.log").write_bytes(b"ok line\n" + b"\x00" * 5000 + b"\nKeyError: x\n")
    (tmp_path / "mixed.log").write_bytes(
        b"\xff\xfe\xfa invalid utf8\n" + "中文".encode("gbk") + b"\n"
    )
    (tmp_path / "cut.log.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (tmp_path / "cr.log").write_bytes(b"\r" * 100_000 + b"\n")
    v = analyze(tmp_path)
    assert v.stats.files >= 2
    assert "cut.log.gz" in v.stats.unreadable
    assert "junk.bin" in v.stats.skipped


def test_an_internal_error_costs_one_file_not_the_verdict(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from analyzer.read import scan

    (tmp_path / "a.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"
    )
    (tmp_path / "b.log").write_text("boom\n")
    real = scan.StreamScanner.scan

    def flaky(self, stream, index, *args):  # type: ignore[no-untyped-def]
        if stream.name == "b.log":
            raise RuntimeError("simulated bug")
        return real(self, stream, index, *args)

    monkeypatch.setattr(scan.StreamScanner, "scan", flaky)
    v = analyze(tmp_path, patterns=[DEMO_PATTERNS], builtin_patterns=False)
    assert v.category == "device_oom"
    assert any("b.log: internal error" in n and "simulated bug" in n for n in v.stats.notes)


def test_settings_are_validated_once_for_library_and_cli(tmp_path: Path) -> None:
    from analyzer import Settings

    log = tmp_path / "x.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    for bad in ({"engine": "grep"}, {"lang": "fr"}, {"deadline": 0}, {"workers": 0},
                {"hang_factor": -1}, {"patterns": 3}):  # fmt: skip
        with pytest.raises(AnalyzerError):
            Settings(**bad)  # type: ignore[arg-type]
    with pytest.raises(AnalyzerError, match="unknown option"):
        analyze(log, deadlne=3)
    s = Settings(model=False)
    assert analyze(log, s).category == analyze(log, model=False).category == "device_oom"


def test_patterns_may_be_a_loaded_pattern_set(tmp_path: Path) -> None:
    from analyzer import PatternSet, load_patterns

    log = tmp_path / "x.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    only_oom = PatternSet(
        tuple(s for s in load_patterns().signatures if s.id == "cuda-out-of-memory"), ()
    )
    v = analyze(log, patterns=only_oom, model=False)
    assert v.root_cause is not None and v.root_cause.signature == "cuda-out-of-memory"
    none = PatternSet((), ())
    assert analyze(log, patterns=none, model=False).category == "none"


def test_an_analyzer_fed_bytes_gives_the_verdict_of_the_files() -> None:
    """Bytes fed in pieces, a line split across two feeds, streams closed or not."""
    from analyzer import Analyzer

    job = Analyzer()
    job.feed(
        "node3/rank_5.log", b"2026-11-29 10:00:00,000 step 1 loss 2.0\n[rank5]: torch.OutOfMem"
    )
    job.feed("node3/rank_5.log", b"oryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    job.feed("node3/rank_4.log", b"2026-11-29 10:00:00,000 step 1 loss 2.0\n")
    job.close("node3/rank_5.log")  # the last line counts without a newline
    v = job.verdict()
    assert v.category == "device_oom" and v.root_cause is not None
    assert (v.root_cause.file, v.root_cause.line, v.root_cause.rank) == ("node3/rank_5.log", 2, 5)
    assert v.stats.files == 2 and v.stats.lines == 2  # newlines, as wc -l counts


@pytest.mark.parametrize("deadline", [None, 30.0])
def test_stats_seconds_is_the_whole_call_and_progress_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, deadline: float | None
) -> None:
    """Issue 17, point 6: a dense log spends its time deciding too; `stats.seconds` is
    the whole call (deciding and a deadline's first pass included), and `progress` is
    called from another thread with what was read so far while the call runs."""
    import time

    from analyzer import analysis

    log = tmp_path / "rank_0.log"
    log.write_text("2026-11-29 10:00:00,000 INFO step 1 loss 2.0\n" * 20_000)
    slow = 0.3
    real = analysis.decide

    def decide_slowly(*args: object, **kwargs: object) -> analyzer.Verdict:
        time.sleep(slow)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis, "decide", decide_slowly)
    monkeypatch.setattr(analysis, "_PROGRESS_EVERY", 0.02)
    seen: list[analyzer.Stats] = []
    v = analyzer.analyze(log, deadline=deadline, model=False, progress=seen.append)
    assert v.stats.seconds >= slow
    assert seen and seen[-1].bytes == log.stat().st_size and seen[-1].lines == 20_000

    def broken(_: analyzer.Stats) -> None:
        raise OSError("the terminal went away")

    assert analyzer.analyze(log, model=False, progress=broken).category == v.category


def test_the_terminal_progress_line_waits_then_clears() -> None:
    import io

    from analyzer.cli import _Progress

    out = io.StringIO()
    shown = _Progress(out)
    shown(analyzer.Stats(files=1, lines=10, bytes=2_000_000, seconds=0.5, unreadable=()))
    assert out.getvalue() == ""  # a quick analysis shows nothing
    shown(analyzer.Stats(files=3, lines=1_234_567, bytes=250_000_000, seconds=12, unreadable=()))
    assert "read 250.0 MB, 3 files, 1,234,567 lines in 12 s" in out.getvalue()
    shown.clear()
    assert out.getvalue().endswith("\r\x1b[K")


def test_the_verdict_s_category_and_recovery_are_taxonomy_ids(tmp_path: Path) -> None:
    """Typed ids (issue 34), still strings: a caller compares with "hang", the JSON holds
    the plain id, and an id the taxonomy does not declare cannot be a verdict's."""
    import json

    from analyzer import CategoryId, RecoveryId

    (tmp_path / "rank0.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )
    v = analyze(tmp_path)
    assert isinstance(v.category, CategoryId) and isinstance(v.recovery, RecoveryId)
    assert v.category == "device_oom" and v.recovery == RecoveryId.FIX_AND_RESUBMIT
    assert json.loads(json.dumps(v.to_dict()))["category"] == "device_oom"
    assert f"{v.category}/{v.recovery}" == "device_oom/fix_and_resubmit"
    with pytest.raises(ValueError):
        CategoryId("gpu_on_fire")


def test_a_wrong_type_to_the_live_api_is_an_analyzer_error() -> None:
    """feed(name, str), feed(None, ...), arrived="now", verdict(now="x") raised raw
    TypeErrors and AttributeErrors from deep inside the reader."""
    from datetime import datetime

    from analyzer import Analyzer, AnalyzerError

    a = Analyzer()
    for call in (
        lambda: a.feed("x", "a str, not bytes"),  # type: ignore[arg-type]
        lambda: a.feed(None, b"x"),  # type: ignore[arg-type]
        lambda: a.feed("x", b"y", arrived="now"),  # type: ignore[arg-type]
        lambda: a.verdict(now="x"),  # type: ignore[arg-type]
    ):
        with pytest.raises(AnalyzerError):
            call()
    a.feed("x.log", bytearray(b"step 1 loss 2.0\n"), arrived=datetime.now())
    a.close("never-fed")
    assert a.verdict().category == "none"
