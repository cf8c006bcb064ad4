"""Flight Recorder dumps (analyzer.job.flight): read without running anything, matched across
ranks, and judged with the logs.

corpora/flight/runs/ holds real dump sets: corpora/flight/run_all.py ran job.py under a
real torchrun (gloo, torch 2.13.0) once per scenario and kept the console and every
rank's dump as torch wrote it (damaged afterwards where the label says).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer import Analyzer, analyze
from analyzer.job import flight, unpickle
from analyzer.ops.watch import Watcher
from analyzer.read import reading

RUNS = REPO / "corpora" / "flight" / "runs"


def _runs() -> list[Path]:
    return sorted(p for p in RUNS.iterdir() if (p / "label.json").is_file())


def _label(run: Path) -> dict[str, Any]:
    label: dict[str, Any] = json.loads((run / "label.json").read_text())
    return label


def test_the_corpus_has_every_kind_of_dump_set() -> None:
    names = {p.name for p in _runs()}
    assert len(names) >= 12
    assert {
        "hang-compute", "uneven-inputs", "mismatch-op", "mismatch-size", "mismatch-dtype",
        "two-groups", "incomplete", "corrupt-dump", "wrapped-buffer", "json-dumps", "healthy",
    } <= names  # fmt: skip
    for run in _runs():
        assert _label(run)["torch"] == "2.13.0"
        assert (run / "console.log").is_file()
        assert any((run / "dumps").rglob("nccl_trace_rank_*")), run.name


@pytest.mark.parametrize("run", _runs(), ids=lambda p: p.name)
def test_the_verdict_names_the_category_and_the_culprit(run: Path) -> None:
    label = _label(run)
    v = analyze(run)
    assert v.category == label["category"], v.summary
    culprits = label["culprits"]
    if culprits:
        assert v.root_cause is not None and v.root_cause.rank == culprits[0], v.summary
    blamed = {f.ranks[0] for f in v.findings if f.signature.id.startswith("flight-") and f.ranks}
    assert blamed == set(label.get("flight_blames", culprits)), v.summary


def test_damaged_dumps_are_notes_and_the_rest_still_decides() -> None:
    v = analyze(RUNS / "corrupt-dump")
    notes = v.stats.notes
    assert "dumps/nccl_trace_rank_0: a damaged Flight Recorder dump (truncated)" in notes, notes
    assert v.root_cause is not None and v.root_cause.rank == 1


def test_a_tiny_dump_is_a_note(tmp_path: Path) -> None:
    data = (RUNS / "hang-compute" / "dumps" / "nccl_trace_rank_0").read_bytes()
    (tmp_path / "nccl_trace_rank_0").write_bytes(data[:20])
    v = analyze(tmp_path)
    assert any("damaged Flight Recorder dump" in n for n in v.stats.notes), v.stats.notes


class _Planted:
    """Unpickled by a plain pickle.load, this would create the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_a_hostile_pickle_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    bundle = tmp_path / "job"
    shutil.copytree(RUNS / "hang-compute", bundle)
    hostile = {"version": "2.10", "pg_config": {}, "entries": [_Planted(marker)]}
    (bundle / "dumps" / "nccl_trace_rank_1").write_bytes(pickle.dumps(hostile, protocol=2))
    # the planted pickle really runs code when loaded the usual way
    probe = tmp_path / "probe"
    pickle.loads(pickle.dumps(_Planted(probe)))
    assert probe.exists()
    v = analyze(bundle)
    assert not marker.exists()
    assert any(
        "nccl_trace_rank_1: a Flight Recorder dump that was not read: refused: it asks for " in n
        and "system" in n
        for n in v.stats.notes
    ), v.stats.notes
    assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 2


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_dumps_are_recognised_by_content_whatever_their_name(tmp_path: Path, protocol: int) -> None:
    src = RUNS / "mismatch-op" / "dumps"
    for p in sorted(src.iterdir()):
        raw = unpickle.load(p.read_bytes())
        rank = p.name.rsplit("_", 1)[1]
        folder = tmp_path / f"rank{rank}"
        folder.mkdir()
        (folder / "fr.bin").write_bytes(pickle.dumps(raw, protocol=protocol))
    v = analyze(tmp_path)
    assert v.category == "user_code_error" and v.root_cause is not None
    assert v.root_cause.rank == 1 and v.root_cause.file == "rank1/fr.bin"


def test_a_dump_that_names_no_rank_is_a_note(tmp_path: Path) -> None:
    data = (RUNS / "hang-compute" / "dumps" / "nccl_trace_rank_0").read_bytes()
    (tmp_path / "trace.pkl").write_bytes(data)
    assert flight.load(data, "trace.pkl") == (
        "a Flight Recorder dump whose rank neither its name nor its folder says"
    )
    v = analyze(tmp_path)
    assert any("trace.pkl: a Flight Recorder dump whose rank" in n for n in v.stats.notes)


def _call(seq: int, op: str = "nccl:all_reduce", group: str = "0", state: str = "scheduled",
          sizes: list[list[int]] | None = None) -> dict[str, Any]:  # fmt: skip
    return {
        "collective_seq_id": seq, "process_group": (group, "default_pg" if group == "0" else "tp"),
        "profiling_name": op, "input_sizes": sizes or [[8]], "output_sizes": sizes or [[8]],
        "input_dtypes": ["Float"], "output_dtypes": ["Float"], "state": state,
        "time_created_ns": 1_700_000_000_000_000_000 + seq, "is_p2p": False,
    }  # fmt: skip


def _records(
    entries: dict[int, list[dict[str, Any]]], config: dict[str, Any] | None = None
) -> flight.Records:
    rec = flight.Records()
    for rank, calls in entries.items():
        raw = {"version": "2.4", "pg_config": config or {}, "entries": calls}
        dump = flight.load(pickle.dumps(raw, protocol=2), f"nccl_trace_rank_{rank}")
        assert isinstance(dump, flight.Dump)
        rec.add(dump)
    return rec


def test_nccl_states_name_the_rank_whose_stream_never_started_the_collective() -> None:
    done = [_call(s, state="completed") for s in range(1, 5)]
    rec = _records({
        0: [*done, _call(5, state="started")],
        1: [*done, _call(5, state="started")],
        2: [*done, _call(5, state="scheduled")],
    })  # fmt: skip
    [found] = rec.findings()
    assert found.rank == 2
    assert (
        "collective 5 (nccl:all_reduce) of process group 0 (default_pg) never started on rank 2, which ranks 0, 1 started"
        in found.line
    )


def test_pg_config_names_members_that_never_issued_any_collective() -> None:
    """A rank pg_config lists that recorded nothing of the group never got to it; a
    rank that left no dump is not judged."""
    config = {"5": {"name": "5", "desc": "tp", "ranks": "[0, 1, 2]"}}
    rec = _records(
        {0: [_call(1), _call(1, group="5")], 1: [_call(1), _call(1, group="5")], 2: [_call(1)]},
        config,
    )
    lines = [f.line for f in rec.findings()]
    assert len(lines) == 1 and "rank 2 never joined collective 1" in lines[0]
    assert "it entered none of the group's collectives" in lines[0]


def test_buffers_that_start_late_are_compared_where_they_overlap() -> None:
    """Rank 0's ring buffer kept 100-130, rank 1's 90-120 (it stopped there): sequence
    ids before 100 are gone from rank 0, not missing."""
    rec = _records({0: [_call(s) for s in range(100, 131)], 1: [_call(s) for s in range(90, 121)]})
    [found] = rec.findings()
    assert found.rank == 1 and "never joined collective 121" in found.line


def test_ranks_that_wait_for_each_other_in_two_groups_are_both_named() -> None:
    rec = _records({
        0: [_call(1), _call(2), _call(1, group="7")],
        1: [_call(1), _call(1, group="7"), _call(2, group="7")],
    })  # fmt: skip
    assert {f.rank for f in rec.findings()} == {0, 1}


def test_ranks_dumped_at_different_moments_of_a_healthy_job_are_not_a_hang() -> None:
    """NCCL marks completion: collective 3 completed on rank 0, so rank 1, whose dump
    ends at 2, was dumped earlier, not left behind; were 3 only started, it would be."""
    done = [_call(s, state="completed") for s in range(1, 4)]
    assert _records({0: done, 1: done[:2]}).findings() == []
    waiting = [*done[:2], _call(3, state="started")]
    [found] = _records({0: waiting, 1: done[:2]}).findings()
    assert found.rank == 1 and "never joined collective 3" in found.line


def test_a_dump_set_that_agrees_finds_nothing() -> None:
    calls = [_call(s, state="completed") for s in range(1, 20)]
    assert _records({0: calls, 1: calls, 2: calls}).findings() == []
    assert _records({0: calls}).findings() == []


def test_malformed_entries_are_skipped_not_fatal() -> None:
    raw = {
        "version": "2.4",
        "entries": [
            None,
            3,
            {"collective_seq_id": "x"},
            {"collective_seq_id": 2, "input_sizes": [[[1]]]},
        ],
    }
    dump = flight.load(pickle.dumps(raw), "nccl_trace_rank_0")
    assert isinstance(dump, flight.Dump) and dump.skipped == 3
    assert dump.calls[0].sizes.startswith("?")


def test_workers_give_the_same_verdict_on_dumps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "FORK_MIN_BYTES", 0)
    for name in ("two-groups", "mismatch-op"):
        one = analyze(RUNS / name).to_dict()
        two = analyze(RUNS / name, workers=2).to_dict()
        one["stats"].pop("seconds"), two["stats"].pop("seconds")
        assert one == two


def test_sniffing_tells_dumps_from_logs_and_other_pickles() -> None:
    assert flight.sniff((RUNS / "hang-compute" / "dumps" / "nccl_trace_rank_0").read_bytes()[:4096])
    assert flight.sniff((RUNS / "json-dumps" / "dumps" / "nccl_trace_rank_0").read_bytes()[:4096])
    assert not flight.sniff(b'{"level": "info", "msg": "step 10", "entries": 3}\n')
    assert not flight.sniff(pickle.dumps({"weights": [1.0] * 100}, protocol=4))
    assert not flight.sniff(b"[rank0]: Traceback (most recent call last):\n")


def test_readme_counts_the_corpus() -> None:
    readme = (REPO / "README.md").read_text()
    assert f"`corpora/flight/runs/` holds {len(_runs())} dump sets" in readme


def test_dumps_inside_an_archive_are_read(tmp_path: Path) -> None:
    archive = tmp_path / "job.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(RUNS / "mismatch-size", arcname="job")
    v = analyze(archive)
    assert v.category == "user_code_error" and v.root_cause is not None
    assert v.root_cause.rank == 3 and v.root_cause.file.endswith("dumps/nccl_trace_rank_3")


def test_a_deeply_nested_or_oversized_pickle_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A million nested lists (2 MB of opcodes) loads without recursion and is no dump's
    entry; a dump over MAX_BYTES is skipped unread."""
    deep = 1_000_000
    head = b"\x80\x02}(X\x07\x00\x00\x00versionX\x03\x00\x00\x002.4X\x07\x00\x00\x00entries"
    data = head + b"]" * (deep + 1) + b"a" * deep + b"u."
    dump = flight.load(data, "nccl_trace_rank_0")
    assert isinstance(dump, flight.Dump) and dump.calls == () and dump.skipped == 1
    monkeypatch.setattr(flight, "MAX_BYTES", 1000)
    (tmp_path / "nccl_trace_rank_0").write_bytes(data)
    v = analyze(tmp_path)
    assert any("Flight Recorder dump larger than" in n for n in v.stats.notes), v.stats.notes


def test_a_dump_still_being_read_at_the_deadline_is_given_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size check before reading a dump assumes a speed a busy machine may not give:
    the unpickler itself stops at the deadline, and the verdict says the job was not
    read whole."""
    entries = [{"record_id": i, "frames": [{"name": "f", "line": i}] * 20} for i in range(40_000)]
    data = pickle.dumps({"version": "2.4", "entries": entries}, protocol=2)
    assert isinstance(flight.load(data, "nccl_trace_rank_0"), flight.Dump)
    assert flight.load(data, "nccl_trace_rank_0", stop_at=0.0) == flight.DEADLINE_NOTE
    # the size check lets it through (30 s of deadline); the clock is past it once the
    # unpickler looks (a slow machine, a busy core)
    monkeypatch.setattr(unpickle, "monotonic", lambda: float("inf"))
    (tmp_path / "nccl_trace_rank_0").write_bytes(data)
    v = analyze(tmp_path, deadline=30)
    assert not v.stats.complete
    assert any(flight.DEADLINE_NOTE in n for n in v.stats.notes), v.stats.notes


def test_a_live_watch_reads_dumps_whole_once_they_stop_growing(tmp_path: Path) -> None:
    """A dump is never fed as text; one still being written is read when its size held
    for a poll, and a rank's rewritten dump replaces its first."""
    src = RUNS / "mismatch-op" / "dumps"
    shutil.copy(RUNS / "mismatch-op" / "console.log", tmp_path / "console.log")
    for p in src.iterdir():
        shutil.copy(p, tmp_path / p.name)
    half = (src / "nccl_trace_rank_1").read_bytes()
    (tmp_path / "nccl_trace_rank_1").write_bytes(half[: len(half) // 2])
    watcher = Watcher([tmp_path])
    watcher.poll()
    (tmp_path / "nccl_trace_rank_1").write_bytes(half)  # the rank finished writing it
    watcher.poll()
    watcher.poll()
    v = watcher.verdict()
    assert v.category == "user_code_error" and v.root_cause is not None, v.summary
    assert v.root_cause.rank == 1 and v.root_cause.signature == "flight-mismatch"
    assert not any("damaged" in n for n in v.stats.notes), v.stats.notes


@pytest.mark.parametrize(
    ("name", "category", "rank"),
    [("hang-compute", "hang", 2), ("mismatch-op", "user_code_error", 1)],
)
def test_torch_fr_trace_output_saved_in_a_bundle_names_the_culprit(
    name: str, category: str, rank: int
) -> None:
    v = analyze(REPO / "corpora" / "flight" / "fr_trace" / f"{name}.txt")
    assert v.category == category and v.root_cause is not None and v.root_cause.rank == rank


def test_a_dump_fed_in_chunks_is_read_whole_at_close() -> None:
    job = Analyzer()
    run = RUNS / "mismatch-size"
    job.feed("console.log", (run / "console.log").read_bytes())
    job.close("console.log")
    for p in sorted((run / "dumps").iterdir()):
        data = p.read_bytes()
        for at in range(0, len(data), 7):  # chunks smaller than any header
            job.feed(f"dumps/{p.name}", data[at : at + 7])
        job.close(f"dumps/{p.name}")
    v = job.verdict()
    assert v.category == "user_code_error" and v.root_cause is not None
    assert v.root_cause.rank == 3 and v.root_cause.signature == "flight-mismatch"


def test_each_attempt_s_dumps_are_matched_apart(tmp_path: Path) -> None:
    """A bundle of two attempts (ha-run's attempt_N/flight/): sequence ids start again,
    so attempt 1's ranks, written later and at collective 2 of a fresh run, are not
    compared with attempt 0's rank 2 (at collective 4 there); attempt 0's hang is found."""
    for n in (0, 1):
        (tmp_path / f"attempt_{n}" / "flight").mkdir(parents=True)
    for p in (RUNS / "hang-compute" / "dumps").iterdir():
        shutil.copy(p, tmp_path / "attempt_0" / "flight" / p.name)
    later = 1_900_000_000_000_000_000  # 2030: after attempt 0
    calls = [
        {**_call(s, op="gloo:all_reduce", sizes=[[16]]), "time_created_ns": later + s}
        for s in (1, 2)
    ]
    raw = {"version": "2.10", "pg_config": {}, "entries": calls}
    for rank in (0, 1, 3):  # rank 2 of attempt 1 left no dump
        (tmp_path / "attempt_1" / "flight" / f"nccl_trace_rank_{rank}").write_bytes(
            pickle.dumps(raw, protocol=2)
        )
    v = analyze(tmp_path)
    blamed = [f for f in v.findings if f.signature.id.startswith("flight-")]
    assert [f.ranks for f in blamed] == [(2,)], v.summary
    assert blamed[0].first.file == "attempt_0/flight/nccl_trace_rank_2"


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_KEYS = st.sampled_from(
    ["collective_seq_id", "process_group", "profiling_name", "input_sizes", "output_sizes",
     "input_dtypes", "output_dtypes", "state", "time_created_ns", "frames", "is_p2p", "pg_id"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    entries=st.lists(st.dictionaries(_KEYS, _VALUES | st.integers(min_value=10**30)), max_size=6),
    config=_VALUES,
)
@pytest.mark.slow
def test_forged_dumps_never_raise(entries: list[dict[str, Any]], config: object) -> None:
    """Any plain data where a dump's fields go (huge ints, wrong types, nesting) is read
    or noted, and matching it never raises."""
    rec = flight.Records()
    for rank in (0, 1):
        raw = {"version": "2.10", "pg_config": config, "entries": entries[rank:]}
        dump = flight.load(pickle.dumps(raw, protocol=2), f"nccl_trace_rank_{rank}")
        if isinstance(dump, flight.Dump):
            rec.add(dump)
    for found in rec.findings():
        assert found.line.startswith(f"[rank{found.rank}]:")


@settings(max_examples=200, deadline=None)
@given(at=st.integers(min_value=0, max_value=1700), byte=st.integers(min_value=0, max_value=255))
def test_damaged_bytes_of_a_real_dump_never_raise(at: int, byte: int) -> None:
    data = bytearray((RUNS / "mismatch-op" / "dumps" / "nccl_trace_rank_1").read_bytes())
    data[at % len(data)] = byte
    dump = flight.load(bytes(data), "nccl_trace_rank_1")
    assert isinstance(dump, (str, flight.Dump))


def test_a_hang_the_dumps_show_is_not_called_a_guess() -> None:
    """The records show the other ranks waiting in the collective the culprit never
    reached: the verdict is confident, whether it cites the match or the culprit's stack."""
    for name in ("hang-compute", "incomplete", "two-groups"):
        v = analyze(RUNS / name)
        assert v.confidence >= 0.75 and "this is a guess" not in v.summary, (name, v.summary)


def test_real_size_dumps_are_read_the_same_by_every_entry_point(tmp_path: Path) -> None:
    """Dumps of a real job's size (an 8,000-entry buffer, 40-frame stacks, over 1 MB per
    rank) through `analyze` (folder and archive), `feed` in chunks and batch: read whole,
    never "truncated", and the same Flight Recorder findings and culprit from each.
    (ha-run's verdict file is `analyze` of its attempt folder.)"""
    from analyzer.batch.run import Job, analyse_job

    run = RUNS / "real-size"
    dumps = sorted((run / "dumps").iterdir())
    assert all(p.stat().st_size > 1_000_000 for p in dumps)
    loaded = flight.load(dumps[0].read_bytes(), dumps[0].name)
    assert isinstance(loaded, flight.Dump) and len(loaded.calls) == flight.KEEP  # the newest
    assert max(c.seq for c in loaded.calls) >= 7990  # of thousands recorded

    def flight_findings(v: Any) -> list[tuple[str, tuple[int, ...], int]]:
        found = [f for f in v.findings if f.signature.id.startswith("flight-")]
        return [(f.signature.id, f.ranks, f.count) for f in found]

    folder = analyze(run)
    archive = tmp_path / "job.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(run, arcname="job")
    packed = analyze(archive)
    job = Analyzer()
    for p in [run / "console.log", *dumps]:
        name = str(p.relative_to(run))
        data = p.read_bytes()
        for at in range(0, len(data), 1 << 16):
            job.feed(name, data[at : at + (1 << 16)])
        job.close(name)
    fed = job.verdict()
    row, _ = analyse_job(Job("real-size", run))
    for v in (folder, packed, fed):
        assert not any("damaged" in n or "larger than" in n for n in v.stats.notes), v.stats.notes
        assert v.category == "hang" and v.root_cause is not None and v.root_cause.rank == 1
        assert flight_findings(v) == flight_findings(folder) != []
    assert (row["category"], row["root_rank"]) == ("hang", 1)


def _s(text: str) -> bytes:
    """A pickle BINUNICODE op."""
    b = text.encode()
    return b"X" + len(b).to_bytes(4, "little") + b


_HEAD = b"\x80\x02}(" + _s("version") + _s("2.4") + _s("entries")


def _deep(depth: int, opener: bytes = b")", nest: bytes = b"\x85") -> bytes:
    """A tuple (or frozenset) nested `depth` deep, as opcodes: 2 MB, 2 KB gzipped."""
    return opener + nest * depth


def _entry(name: bytes) -> bytes:
    """One collective whose frame's name is the opcodes `name`."""
    frame = b"}(" + _s("name") + name + _s("filename") + _s("a.py") + _s("line") + b"K\x01u"
    return (
        b"}(" + _s("collective_seq_id") + b"K\x01" + _s("profiling_name") + _s("nccl:all_reduce")
        + _s("frames") + b"]" + frame + b"a" + b"u"
    )  # fmt: skip


HOSTILE_DUMPS = {
    # hashing a frame's name half a million tuples deep (a C recursion: the red team's
    # was two million) killed the process
    "deep-value": _HEAD + b"]" + _entry(_deep(500_000)) + b"au.",
    # a dict key as deep: C's unpickler hashes it while loading
    "deep-key": _HEAD + b"]}" + _deep(500_000) + b"K\x01sau.",
    # a set item the same (EMPTY_SET, ADDITEMS)
    "deep-set-item": _HEAD + b"]\x8f(" + _deep(500_000) + b"\x90au.",
    # a frozenset of frozensets, two hundred thousand deep
    "deep-frozenset": _HEAD + b"](" + b"(" * 200_000 + b"\x91" * 200_001 + b"au.",
    # a list that holds itself, as entries and as a frame list
    "cyclic": _HEAD + b"]q\x00h\x00a" + _entry(b"]q\x01h\x01a") + b"au.",
    # two million references to one entry (4 MB) past a bound of one million (the
    # child lowers MAX_ITEMS: the mechanism, not its size, is under test)
    "many-items": _HEAD + b"](" + _entry(_s("f")) + b"q\x02" + b"h\x02" * 2_000_000 + b"eu.",
}


@pytest.mark.parametrize("case", sorted(HOSTILE_DUMPS))
def test_a_hostile_dump_is_a_note_never_a_crash(case: str, tmp_path: Path) -> None:
    """In another process, so that a signal death fails this test instead of killing
    the suite: through `analyze` of a folder and through `feed` (watch, ha-run)."""
    import subprocess
    import sys

    (tmp_path / "nccl_trace_rank_0").write_bytes(HOSTILE_DUMPS[case])
    code = (
        "import sys\n"
        "from analyzer import Analyzer, analyze\n"
        "from analyzer.job import unpickle\n"
        "unpickle.MAX_ITEMS = 1_000_000\n"
        "v = analyze(sys.argv[1])\n"
        "a = Analyzer()\n"
        "data = open(sys.argv[1] + '/nccl_trace_rank_0', 'rb').read()\n"
        "a.feed('nccl_trace_rank_0', data); a.close('nccl_trace_rank_0')\n"
        "w = a.verdict()\n"
        "print(v.stats.notes)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, (r.returncode, r.stderr[-600:])
    assert "Traceback" not in r.stderr
    if case.startswith("deep-") and case != "deep-value":
        assert "a key or set item that is a container" in r.stdout, r.stdout


def test_the_unpickler_refuses_container_keys_and_counts_items(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refused = flight.load(_HEAD + b"]}]sau.", "nccl_trace_rank_0")  # a list as a key
    assert isinstance(refused, str) and "a key or set item that is a container" in refused
    monkeypatch.setattr(unpickle, "MAX_ITEMS", 1000)
    many = flight.load(HOSTILE_DUMPS["many-items"], "nccl_trace_rank_0")
    assert isinstance(many, str) and "more than 1,000 items" in many
    # a flat tuple key and plain data load as they are
    assert unpickle.load(pickle.dumps({("a", 1): [1, {"b": None}]})) == {("a", 1): [1, {"b": None}]}


def test_thousands_of_process_groups_match_in_linear_work() -> None:
    """8,000 groups without pg_config (gloo) cost 60 s when each group scanned every
    dump's calls again: the passes over the dumps are counted here, not timed."""
    seen = 0

    def dump(rank: int, groups: int) -> flight.Dump:
        calls = tuple(
            flight.Call(str(g), f"pg{g}", seq, "gloo:all_reduce", "[[4]] -> [[4]]", "f -> f",
                        "completed", float(g), None)
            for g in range(groups)
            for seq in (1, 2)
            if rank == 0 or seq == 1
        )  # fmt: skip
        return flight.Dump(f"nccl_trace_rank_{rank}", rank, "2.4", calls)

    class Counting(dict):  # type: ignore[type-arg]
        def values(self):  # type: ignore[no-untyped-def]
            nonlocal seen
            seen += 1
            return super().values()

    for groups in (1000, 4000):
        seen = 0
        dumps = Counting({0: dump(0, groups), 1: dump(1, groups)})
        found = flight._groups(dumps)
        assert len(found) == groups
        assert seen <= 4, (groups, seen)  # a pass over the dumps, not one per group


_NESTS = {  # an opener and the op that nests once more
    "tuple": (b")", b"\x85"),
    "frozenset": (b"(\x91", b"(" + b"\x91"),
    "list": (b"]", b"]"),
}


def _nested(kind: str, depth: int) -> bytes:
    opener, nest = _NESTS[kind]
    if kind == "list":  # ]]]...]a a a: each list appended to the one before
        return opener + nest * depth + b"a" * depth
    if kind == "frozenset":
        return b"(" * depth + b"\x91" * (depth + 1) if depth else b"(\x91"
    return opener + nest * depth


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(sorted(_NESTS)),
    depth=st.integers(min_value=0, max_value=300_000),
    where=st.sampled_from(["key", "value", "set", "entries", "config"]),
    cyclic=st.booleans(),
    repeat=st.integers(min_value=0, max_value=200_000),
)
def test_nested_huge_and_cyclic_dumps_never_raise(
    kind: str, depth: int, where: str, cyclic: bool, repeat: int
) -> None:
    """Structures nested up to 300,000 deep where a key, a value, a set item, the
    entries or pg_config go, a list that holds itself, and an entry repeated by
    reference: read or noted, never an exception, never a signal."""
    deep = _nested(kind, depth)
    entry = _entry(_s("f")) + b"q\x05"
    body = {
        "key": b"]}" + deep + b"K\x01s",
        "value": b"]" + _entry(deep),
        "set": b"]\x8f(" + deep + b"\x90",
        "entries": b"]" + deep,
        "config": b"]",
    }[where]
    tail = b"a" if where != "config" else b""
    cycle = b"q\x06h\x06a" if cyclic else b""  # the entries list appended to itself
    more = b"(" + entry + b"h\x05" * repeat + b"e"
    if where == "config":
        data = _HEAD + b"]" + more + _s("pg_config") + deep + b"u."
    else:
        data = _HEAD + body + tail + cycle + more + b"u."
    dump = flight.load(data, "nccl_trace_rank_0")
    assert isinstance(dump, (str, flight.Dump))
    if isinstance(dump, flight.Dump):
        rec = flight.Records()
        rec.add(dump)
        rec.add(flight.Dump("nccl_trace_rank_1", 1, "2.4", ()))
        rec.findings()


def test_under_a_deadline_a_dump_that_cannot_be_read_in_time_is_not_begun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reading a dump is not cut halfway (a pickle is whole or nothing): one that would
    run past the deadline at the slowest rate dumps read at is noted, not begun."""
    monkeypatch.setattr(flight, "READ_RATE", 1)
    v = analyze(RUNS / "mismatch-size", deadline=2.0)
    assert any("would run past the deadline" in n for n in v.stats.notes), v.stats.notes
    assert not v.stats.complete
    assert analyze(RUNS / "mismatch-size").root_cause is not None
