"""The prefilter must be a superset of the exact per-line check, on every backend."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analyzer import analyze
from analyzer.read.lines import clean, strip_prefix
from analyzer.rules.automaton import available_engines, build, relax

CASES = [
    # (regex, line that the exact check accepts)
    (r"^KeyError: ", "[rank3]: KeyError: 'x'"),
    (r"allocate .{0,5} memory", "allocate 五十六个 memory"),
    (r"x[^,]{2}y", "x中文y"),
    (r"磁盘空间不足", "保存失败: 磁盘空间不足"),
    (r"(?i)watchdog caught", "[E] WATCHDOG CAUGHT collective"),
    (r"Error \d+$", "Error 12\r"),
    (r"(?P<code>EL\d{4}): ", "[PID: 1] EL0004: Failed to allocate memory"),
]


@pytest.mark.parametrize(("rx", "line"), CASES)
def test_candidate_line_is_found(rx: str, line: str, engine: str) -> None:
    auto = build([(0, rx)], engine)
    block = ("before\n" + line + "\nafter\n").encode("utf-8")
    hits = auto.scan(block)
    assert [(block[s:e].decode(), sigs) for s, e, sigs in hits] == [(line, (0,))]


def test_gbk_bytes_are_found(engine: str) -> None:
    auto = build([(0, "磁盘空间不足")], engine)
    block = "x\n保存失败: 磁盘空间不足\n".encode("gb18030")
    assert [sigs for _, _, sigs in auto.scan(block)] == [(0,)]


def test_several_signatures_on_one_line_and_last_line_without_newline(engine: str) -> None:
    auto = build([(0, "alpha"), (1, "beta"), (2, "gamma")], engine)
    block = b"alpha beta\nnothing\ngamma"
    assert auto.scan(block) == [(0, 10, (0, 1)), (19, 24, (2,))]


def test_a_match_spanning_lines_never_hides_a_line_match(engine: str) -> None:
    auto = build([(0, r"foo\s+bar"), (1, "baz")], engine)
    block = b"foo\nbar baz\n"
    got = {block[s:e]: sigs for s, e, sigs in auto.scan(block)}
    assert 1 in got[b"bar baz"]


def test_sampled_group_gives_the_head_and_tail_of_a_block_and_every_other_line(
    engine: str,
) -> None:
    step, nan, err = (0, r"step \d+"), (1, r"loss nan"), (2, r"(?i)error")
    auto = build([step, nan, err], engine, [[0], [2]])
    lines = [f"step {i} loss 1.0" for i in range(1000)]
    lines[500] = "step 500 loss nan"  # a rare line in the middle that is also a step
    lines[600] = "some Error here"
    block = ("\n".join(lines) + "\n").encode()
    got = {block[s:e].decode(): sigs for s, e, sigs in auto.scan(block)}
    steps = sorted(int(t.split()[1]) for t, sigs in got.items() if 0 in sigs)
    assert steps == [*range(32), 500, *range(960, 1000)]
    assert got["step 500 loss nan"] == (0, 1)
    assert got["some Error here"] == (2,)  # a sparse group: every line of it


def test_sampled_lines_of_many_matches_each_are_found_once_across_chunks(engine: str) -> None:
    """tqdm redraws a bar dozens of times on one line: the Hyperscan finder stops a scan
    after a line's first few matches and resumes on the next line, and reads the block
    in growing chunks; the lines found must be the group's head and tail all the same,
    each once, whatever the number of matches per line and wherever a chunk ends."""
    bar = r"\d+/\d+ \[\d\d:\d\d<"
    auto = build([(0, bar), (1, r"(?i)error")], engine, [[0]])
    lines = []
    for i in range(600):  # 1 to 40 redraws a line: some stop the scan, some do not
        redraws = "".join(f"\r{k}/600 [00:{k % 60:02d}<00:01, 2it/s]" for k in range(i % 40 + 1))
        lines.append(f"line {i}" + redraws)
    lines[300] = "an ERROR in the middle"
    block = ("\n".join(lines) + "\n").encode()
    assert len(block) > 256 << 10  # past the first three chunks (16, 64, 256 KiB)
    got = [(block[s:e].decode().split("\r")[0], sigs) for s, e, sigs in auto.scan(block)]
    steps = [int(text.split()[1]) for text, sigs in got if sigs == (0,)]
    assert steps == [*range(32), *range(560, 600)]
    assert ("an ERROR in the middle", (1,)) in got


def test_a_small_block_is_sampled_whole(engine: str) -> None:
    auto = build([(0, r"step \d+")], engine, [[0]])
    block = "".join(f"step {i}\nother\n" for i in range(70)).encode()
    assert len(auto.scan(block)) == 70


def test_relax_widens_atoms_that_may_be_multibyte() -> None:
    assert relax("a.b") == ("a.{1,4}b", False)
    assert relax("x[^,]{0,300}")[0] == "x[^,\\n]{0,}"  # large counts: unbounded
    assert relax("x[^,]{0,4}")[0] == "x[^,\\n]{0,16}"  # and never past the line's end
    assert relax("[^]x]")[0] == "[^]x\\n]{1,4}"
    assert relax(r"\d{1,100}x\d{1,3}")[0] == r"\d{1,}x\d{1,3}"
    assert relax("(?i)^(?P<n>\\d+)$") == ("(?:\\d+)", True)
    for rx, line in CASES:
        assert re.search(rx, strip_prefix(clean(line)[0]).text, re.ASCII), rx


@pytest.mark.parametrize("engine", ["re2", "hyperscan"])
def test_a_sampled_pattern_never_matches_across_lines(engine: str) -> None:
    """Sampled groups search whole blocks: a negated class must not run from one line into
    the next, where the line the match starts on names no member (a hit with no
    candidates)."""
    pytest.importorskip(engine)
    a = build([(0, r"Map[^|:]{0,60}: {1,4}\d{1,3}%\|")], engine, [[0]], [None])
    block = b"Map over the data\n: 45%|####\nMap (num_proc=8):  45%|####\n"
    hits = a.scan(block)
    assert [block[s:e] for s, e, _ in hits] == [b"Map (num_proc=8):  45%|####"]
    assert all(c == (0,) for _, _, c in hits)


@pytest.mark.parametrize("engine", ["re2", "hyperscan"])
def test_a_trailing_space_class_never_runs_into_the_next_line(engine: str) -> None:
    """`\\s*$`, `\\W` and `\\D` could match the newline: in a block scan the match then
    ends on the next line (a tqdm redraw, here), which got the candidate instead."""
    pytest.importorskip(engine)
    a = build(
        [(0, r"LINK DOWN\s*$"), (1, r"x\W+y"), (2, r"k\D+v")], engine, [[0], [1], [2]], [None] * 3
    )
    block = b"LINK DOWN \n\r 45%|####\nx\ny\nk\nv\nx, y\n"
    hits = a.scan(block)
    assert [block[s:e] for s, e, _ in hits] == [b"LINK DOWN ", b"x, y"]
    assert relax(r"a[\s,]b")[0] == "a[\\t\\x0b\\x0c\\r\\x1c-\\x1f ,]b"


def test_hyperscan_database_cache_survives_corruption(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("hyperscan")
    monkeypatch.setenv("HA_ANALYZE_CACHE", str(tmp_path))
    build([(0, "alpha")], "hyperscan")
    cached = list(tmp_path.glob("hyperscan-*.db"))
    assert len(cached) == 1
    cached[0].write_bytes(b"not a database")
    auto = build([(0, "alpha")], "hyperscan")
    assert auto.scan(b"x alpha\n") == [(0, 7, (0,))]
    assert cached[0].read_bytes() != b"not a database"


def test_relaxed_forms_are_cached_and_a_damaged_entry_is_rebuilt(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from analyzer.rules.automaton import relaxed, variants

    monkeypatch.setenv("HA_ANALYZE_CACHE", str(tmp_path))
    regexes = ["a.b", "磁盘空间不足", r"(?i)^x(?P<n>\d+)$"]
    want = {rx: variants(rx) for rx in regexes}
    assert relaxed(regexes) == want
    (entry,) = tmp_path.glob("relaxed-*.json")
    entry.write_text('{"a.b": [["wrong", false]]}')  # damaged: another key's answer lacks
    assert relaxed(regexes) == want
    entry.write_text("not json")
    assert relaxed(regexes) == want
    assert relaxed(regexes[:1]) == {"a.b": want["a.b"]}  # another set: its own entry
    assert len(list(tmp_path.glob("relaxed-*.json"))) == 2


def test_a_pattern_set_the_default_engine_misses_falls_back_to_re2() -> None:
    """Vectorscan 5.4.12 (python-hyperscan 0.9.1) loses this match when both patterns
    share one database (Intel Hyperscan 5.4 and Vectorscan 5.4.11 find it). The default
    engine is taken only for a pattern set whose examples it finds all of."""
    from analyzer.rules.automaton import available_engines, missed

    pats = [
        (0, r"(?:error=\d+ : |\(\d+ vs\. 0\)  )the launch timed out"),
        (1, r"(?:RuntimeError: |\(\d+ vs\. 0\)  )CUDNN_STATUS_BAD_PARAM"),
    ]
    line = b"Check failed: error == cudaSuccess (6 vs. 0)  the launch timed out\n"
    probes = [(0, line), (1, b"RuntimeError: CUDNN_STATUS_BAD_PARAM")]
    assert build(pats, "re2").scan(line) == [(0, len(line) - 1, (0,))]
    assert missed(build(pats, "re2"), probes) == []
    if "hyperscan" not in available_engines():
        assert build(pats, probes=probes).name == "re2"
        return
    assert available_engines()[0] == "hyperscan"
    forced = build(pats, "hyperscan")
    if forced.scan(line):  # a build without the bug: nothing to fall back from
        assert build(pats, probes=probes).name == "hyperscan"
        return
    assert missed(forced, probes) == [(0, line)]
    assert build(pats, probes=probes).name == "re2"
    assert build(pats[:1], probes=probes[:1]).name == "hyperscan"  # alone it is found


def test_the_builtin_catalogue_runs_on_the_default_engine() -> None:
    from analyzer.analysis import Settings
    from analyzer.rules.automaton import available_engines

    assert Settings().matcher().automaton.name == available_engines()[0]


@pytest.mark.slow
def test_the_corpora_get_the_same_verdicts_on_every_engine() -> None:
    engines = available_engines()
    if len(engines) < 2:
        pytest.skip("one engine installed")
    root = Path(__file__).resolve().parent.parent / "corpora"
    # every fourth failure excerpt (each engine's matching is also checked per signature
    # example on every engine), and every healthy run
    jobs = sorted(root.glob("failures/*/*.log"))[::4] + sorted(
        p for p in (root / "clean").iterdir() if p.is_dir()
    )
    assert len(jobs) > 125
    for job in jobs:
        seen = []
        for engine in engines:
            v = analyze(str(job), engine=engine).to_dict()
            v["stats"].pop("seconds")
            v["stats"].pop("engine")
            seen.append(v)
        assert all(v == seen[0] for v in seen), job.name


def test_the_cache_folder_is_bounded(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every pattern edit keys new entries: a write that finds the folder over its bounds
    removes the oldest entries, the one just written kept."""
    import os

    from analyzer.rules import cache

    monkeypatch.setenv("HA_ANALYZE_CACHE", str(tmp_path))
    monkeypatch.setattr(cache, "MAX_FILES", 8)
    for i in range(8):
        cache.write(f"old-{i}", b"x")
        os.utime(tmp_path / f"old-{i}", (1000 + i, 1000 + i))
    assert len(list(tmp_path.iterdir())) == 8
    cache.write("new", b"y")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) <= 6 and "new" in names and "old-0" not in names
    monkeypatch.setattr(cache, "MAX_BYTES", 10)
    cache.write("big", b"z" * 9)
    assert cache.read("big") == b"z" * 9 and sum(p.stat().st_size for p in tmp_path.iterdir()) <= 10


def test_every_caller_of_the_automaton_reads_a_colored_line_as_a_person_does() -> None:
    """Colours between a label and its number (torchtitan's step line) are stripped by
    the automaton itself, so a single line's reading (Matcher.match_line: the classifier's
    context check, `patterns test`) finds what a block's scan finds."""
    from analyzer.analysis import Settings

    line = (
        "[titan] 2026-12-07 14:09:15,084 - root - INFO - \x1b[31mstep: 60  "
        "\x1b[32mloss:  7.9000  \x1b[34mtps: 1,234\x1b[39m"
    )
    found, _ = Settings().matcher().match_line(line)
    assert any(sig.progress == "step" for sig, _ in found), found
