"""The block scanner: exact line numbers and offsets, context, tracebacks, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO_PATTERNS

from analyzer import analyze
from analyzer.analysis import Analyzer, Settings
from analyzer.read.scan import BLOCK, LINE_CAP, _templates
from analyzer.rules.automaton import build
from analyzer.rules.signatures import iter_regexes
from analyzer.types import Verdict
from analyzer.unknowns.region import ERROR_LINE

OOM = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3"


def run(path: Path | str, engine: str) -> Verdict:
    return analyze(path, patterns=[DEMO_PATTERNS], builtin_patterns=False, engine=engine)


def test_line_numbers_and_offsets_are_exact_across_blocks(tmp_path: Path, engine: str) -> None:
    filler = b"x" * 99 + b"\n"
    n_before = (BLOCK * 2) // len(filler) + 7  # the hit lies in the third block
    data = filler * n_before + OOM.encode() + b"\n" + filler * 10
    f = tmp_path / "rank3.log"
    f.write_bytes(data)
    v = run(f, engine)
    assert v.root_cause is not None
    assert v.root_cause.line == n_before + 1
    assert v.findings[0].first.offset == n_before * len(filler)
    assert v.stats.lines == data.count(b"\n")
    assert v.stats.bytes == len(data)
    assert v.root_cause.context[-1] == "x" * 99


def test_line_count_matches_wc_with_cr_redraws_and_no_final_newline(
    tmp_path: Path, engine: str
) -> None:
    data = b"a\r b\r c\nline\n" + OOM.encode()
    f = tmp_path / "x.log"
    f.write_bytes(data)
    v = run(f, engine)
    assert v.stats.lines == 2  # wc -l counts newlines
    assert v.root_cause is not None and v.root_cause.line == 3


def test_error_after_progress_bar_redraws_on_the_same_line(tmp_path: Path, engine: str) -> None:
    bar = "".join(f" {i}%|{'#' * (i // 10)}| {i}/100\r" for i in range(100))
    f = tmp_path / "x.log"
    f.write_text(bar + OOM + "\n")
    v = run(f, engine)
    assert v.category == "device_oom"
    assert v.root_cause is not None and v.root_cause.text == OOM


def test_absurd_line_is_capped_but_counted(tmp_path: Path, engine: str) -> None:
    f = tmp_path / "x.log"
    with f.open("wb") as fh:
        fh.write(b"start\n")
        fh.write(OOM.encode() + b" " + b"y" * (LINE_CAP * 3) + b"\n")
        fh.write(b"after\n")
    v = run(f, engine)
    assert v.stats.lines == 3
    assert v.stats.truncated_lines == 1
    assert v.root_cause is not None and v.root_cause.line == 2
    assert len(v.root_cause.text) <= 4096
    assert any("longer than 1 MiB" in n for n in v.stats.notes)


def test_the_end_of_an_absurd_last_line_without_a_newline_is_read(
    tmp_path: Path, engine: str
) -> None:
    """A bar redrawn for hours and then the error, the process killed before its
    newline: the line's last MiB is matched as when the newline comes."""
    f = tmp_path / "x.log"
    f.write_bytes(b"start\n" + b"\r 5%|#| 5/100" * (LINE_CAP // 8) + b"\r" + OOM.encode())
    v = run(f, engine)
    assert v.stats.lines == 1  # as `wc -l` counts
    assert v.stats.truncated_lines == 1
    assert v.category == "device_oom"
    assert v.root_cause is not None and v.root_cause.line == 2


def test_traceback_is_joined_as_context_of_its_exception(tmp_path: Path, engine: str) -> None:
    lines = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "train.py", line 10, in <module>',
        "[rank1]:     main()",
        '[rank1]:   File "train.py", line 5, in main',
        '[rank1]:     raise KeyError("CUDA out of memory. Tried to allocate 1 GiB")',
        "[rank1]: KeyError: 'boom'",
    ]
    f = tmp_path / "x.log"
    f.write_text("\n".join(["noise"] * 5 + lines) + "\n")
    v = run(f, engine)
    # the frame's source line quotes an OOM message: code, not an event
    assert v.category == "user_code_error"
    rc = v.root_cause
    assert rc is not None and rc.line == 11 and rc.rank == 1
    assert rc.context_first_line == 6
    assert rc.context[0].endswith("Traceback (most recent call last):")


def test_gbk_lines_are_decoded(tmp_path: Path, engine: str) -> None:
    f = tmp_path / "plog.log"
    f.write_bytes("[ERROR] 保存检查点失败: 磁盘空间不足\n".encode("gbk") + b"\xff\xfe bad utf8\n")
    v = run(f, engine)
    assert v.category == "storage_fault"
    assert v.root_cause is not None and "磁盘空间不足" in v.root_cause.text


def test_time_is_inherited_from_the_preceding_timestamped_line(tmp_path: Path, engine: str) -> None:
    f = tmp_path / "x.log"
    f.write_text("2026-11-29 10:00:01,500 INFO step 5\n" + OOM + "\n")
    v = run(f, engine)
    assert v.root_cause is not None and v.root_cause.time == "2026-11-29T10:00:01.500"


def test_unindented_output_after_a_frame_is_an_event(tmp_path: Path, engine: str) -> None:
    # several ranks print into one console: an error line lands right after a frame line
    f = tmp_path / "x.log"
    f.write_text(
        '  File "/opt/deepspeed/runtime/zero/stage3.py", line 947, in _optimizer_step\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.39 GiB. GPU 1\n"
        "    self._optimizer_step(sub_group_id)\n"
    )
    v = run(f, engine)
    assert v.category == "device_oom"
    assert v.root_cause is not None and v.root_cause.line == 2


def test_error_at_the_end_of_an_absurd_line_is_found(tmp_path: Path, engine: str) -> None:
    f = tmp_path / "x.log"
    redraw = b"".join(b"\r %d%%|###| %d/100000" % (i % 100, i) for i in range(400_000))
    with f.open("wb") as fh:
        fh.write(b"start\n" + redraw + b"\r" + OOM.encode() + b"\nafter\n" + b"x" * (LINE_CAP * 2))
    v = run(f, engine)
    assert v.stats.truncated_lines == 2 and v.stats.lines == 3
    assert v.root_cause is not None and v.root_cause.line == 2 and v.root_cause.text == OOM
    assert v.root_cause.offset == len(b"start\n")  # where the line starts


def _step(rank: int, step: int) -> str:
    stamp = f"2026-11-29 10:{step // 60 % 60:02d}:{step % 60:02d}"
    return (
        f"[rank{rank}]: [{stamp}] iteration {step:>8}/  500000 | consumed samples: "
        f"{step * 256:>12} | elapsed time per iteration (ms): 1000.0 | lm loss: 2.1E+00 |"
    )


def _sampled_and_full(log: Path, engine: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """The job read with the sampling automaton, then with one that reports every line."""
    settings = Settings(engine=engine)
    sampled = Analyzer(settings)
    sampled.read_paths([str(log)])
    matcher = settings.matcher()
    every = [*iter_regexes(matcher.signatures), (matcher.error_index, ERROR_LINE)]
    monkeypatch.setattr(matcher, "automaton", build(every, engine))
    full = Analyzer(settings)
    full.read_paths([str(log)])
    return sampled, full


def test_sampling_keeps_timeline_and_error_region_exact(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step and error lines are sampled per block (analyzer.rules.automaton.Sampler); the
    timeline and the classifier's region must be what reading every line gives."""
    lines = []
    for i in range(60_000):
        rank, step = i % 4, i // 4 + 1
        lines.append(_step(rank, step))
        if i % 97 == 0:
            lines.append(f"[rank{rank}]: 2026-11-29 10:00:00,000 - WARNING - retry {i} failed")
    lines.append("[rank2]: " + OOM.split(": ", 1)[1])
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n")
    assert log.stat().st_size > 4 * BLOCK
    sampled, full = _sampled_and_full(log, engine, monkeypatch)
    assert [x.line for x in sampled.errors.all()] == [x.line for x in full.errors.all()]
    assert [x.line for x in sampled.errors.region()] == [x.line for x in full.errors.region()]
    ev_s, ev_f = sampled.evidence(), full.evidence()
    assert ev_s.progress == ev_f.progress
    assert len(ev_s.progress) == 4
    assert [(f.first.line, f.count) for f in ev_s.findings] == [
        (f.first.line, f.count) for f in ev_f.findings
    ]


def test_a_rank_that_stops_mid_block_in_a_merged_console_is_found_where_it_stopped(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 48 ranks in one console: the last 40 step lines of a block are other ranks'
    lines = [_step(r, step) for step in range(1, 900) for r in range(48) if r != 7 or step <= 450]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n")
    sampled, full = _sampled_and_full(log, engine, monkeypatch)
    progress = sampled.evidence().progress
    assert progress == full.evidence().progress
    assert {p.rank: p.last_step for p in progress}[7] == 450


@pytest.mark.slow
def test_repeated_lines_are_counted_as_reading_every_copy_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Work per distinct line (scan._Templates): copies of a line template after the
    first few are counted, not read. Whatever the copies differ in and a signature or
    the job model reads must keep them apart: a loss scale (tiny only below 1e-3), an
    Xid code, a rank named in the text. Findings, counts, ranks, error lines and the
    evidence lines must be what reading every copy gives."""
    import analyzer.read.scan as scan

    lines = []
    for i in range(40_000):
        t = f"2026-11-29 10:{i // 1200 % 60:02d}:{i // 20 % 60:02d},{i % 1000:03d}"
        lines.append(f"{t} - INFO - step {i} done")
        kind = i % 5
        if kind == 0:
            lines.append(f"{t} | WARNING: overflow detected, setting loss scale to: 0.{i % 3 + 1}")
        elif kind == 1:
            lines.append(f"{t} | WARNING: overflow detected, setting loss scale to: 0.0001")
        elif kind == 2:
            code = 79 if i % 15 == 2 else 13
            lines.append(f"[{i % 99999}.123456] NVRM: Xid (PCI:0000:3b:00): {code}, pid=77")
        elif kind == 3:
            lines.append(
                f"{t} [Rank {i % 4}] NCCL WARN NET/IB : Got completion from peer 10.0.0.3<4001>"
                " with error 12, opcode 0, len 0, vendor err 129 (Recv)"
            )
    lines.append(f"2026-11-29 11:00:00,000 [Rank 2] {OOM.split(': ', 1)[1]}")
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n")
    assert log.stat().st_size > 2 * BLOCK

    reads = []
    read_line = scan.StreamScanner._read_line

    def counting(self: scan.StreamScanner, *args: Any) -> Any:
        reads[-1] += 1
        return read_line(self, *args)

    monkeypatch.setattr(scan.StreamScanner, "_read_line", counting)

    def verdict(read_copies: int) -> tuple[Any, ...]:
        monkeypatch.setattr(scan, "_READ_COPIES", read_copies)
        reads.append(0)
        a = Analyzer(Settings())
        a.read_paths([str(log)])
        ev = a.evidence()
        return (
            a.verdict().to_dict()["findings"],
            [(f.signature.id, f.count, f.ranks, f.first.line) for f in ev.findings],
            [(h.signature.id, h.line, h.rank) for h in ev.candidates],
            [(x.line, x.text) for x in a.errors.all()],
        )

    counted, read = verdict(2), verdict(10**9)
    assert counted == read
    by_sig = {sig: (count, ranks) for sig, count, ranks, _ in counted[1]}
    assert by_sig["numerics-loss-scale-tiny"][0] == 8_000  # only the 0.0001 lines
    assert any(ranks == (0, 1, 2, 3) for _, ranks in by_sig.values())
    assert reads[0] < reads[1] / 20  # and the copies were only counted


def test_a_log_that_grows_while_read_is_read_as_large_as_it_was_when_opened(
    tmp_path: Path,
) -> None:
    """Issue 18, point 10: a file written faster than it is read never ended; now a plain
    file is read to the size it had when opened. What is appended after (here an OOM) is
    the next analysis's, and a read-ahead block past that size is left unread."""
    from analyzer.read.sources import SourceNotes, iter_units, open_unit

    log = tmp_path / "rank_0.log"
    log.write_bytes(b"2026-11-29 10:00:00,000 INFO step 1 loss 2.0\n" * (3 * BLOCK // 46))
    size = log.stat().st_size
    job = Analyzer(Settings(model=False))
    notes = SourceNotes()
    (unit,) = iter_units([str(log)], notes)
    for stream in open_unit(unit, notes):  # opened: its size is taken now
        with log.open("ab") as f:
            f.write(b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
            f.write(b"x" * (2 * BLOCK) + b"\n")
        fs = job.scanner.scan(stream, 0)
        assert fs.bytes == size
    assert job.verdict().category == "none"


def test_a_line_template_masks_the_time_of_day_and_nothing_a_verdict_reads() -> None:
    """Copies of a line share a template (analyzer.read.scan): the time of day and a dmesg
    uptime go, every other number stays, and so does a colon run longer than a clock
    (two NICs must not stand for each other). Many lines at once as one by one."""
    lines = [
        b"[  12.345678] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234",
        b"2026-11-29 10:00:01,123 WARN step 7",
        b"2026-11-29-23:59:59.123.456 rank 3",
        b"elapsed 1:23:45 at 12:00:00",
        b"mlx5_core 00:11:22:33:44:55 link down",
        b"",
        b"[ 1.0]",
    ]
    want = [
        b" NVRM: Xid (PCI:0000:3b:00): 79, pid=1234",
        b"2026-11-29 # WARN step 7",
        b"2026-11-29-# rank 3",
        b"elapsed 1:23:45 at #",
        b"mlx5_core 00:11:22:33:44:55 link down",
        b"",
        b"",
    ]
    assert _templates(lines) == want
    assert [_templates([line])[0] for line in lines] == want
    assert _templates([]) == []


def test_a_line_of_bar_redraws_is_read_at_its_first_and_last_redraws(tmp_path: Path) -> None:
    """tqdm redraws a bar dozens of times on one line: its middle redraws are progress
    only and go unread (as a block's middle step lines do), its last says where the
    rank stood, and a message after the redraws is read whatever they are."""
    bar = "{n}/4000 [00:{s:02d}<01:40, 40.00it/s]"
    lines = [
        "".join("\r" + bar.format(n=k, s=k % 60) for k in range(w * 40 + 1, w * 40 + 41))
        for w in range(50)
    ]
    lines[-1] += "\r" + OOM
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    v = analyze(log)
    (progress,) = v.progress
    assert progress.last_step == 2000 and progress.last_line == 50
    # the block's first 4 and last 3 bar lines, each at its first 4 and last 3 redraws;
    # every redraw of the line that ends in the OOM
    assert progress.steps == (4 + 3) * (4 + 3) + 40
    assert v.category == "device_oom" and v.root_cause is not None
    assert v.root_cause.text == OOM


def test_a_run_of_error_lines_is_kept_as_adding_each_keeps_it() -> None:
    """Counted copies' error lines go in as runs (StreamScanner._flush): only the ones a
    file keeps are made, and the file's head, tail and count are what one add per line
    gives, wherever the run falls."""
    from analyzer.read.errors import ErrorLine
    from analyzer.unknowns.region import ErrorLines

    def line(n: int) -> ErrorLine:
        return ErrorLine("f", n, None, f"warning {n}", False)

    for before in (0, 5, 19, 20, 70):
        for count in (0, 1, 15, 40, 41, 300):
            each, runs = ErrorLines(), ErrorLines()
            made: list[int] = []
            for n in range(before):
                each.add(0, line(n))
                runs.add(0, line(n))
            for n in range(before, before + count):
                each.add(0, line(n))

            def make(i: int, base: int = before, made: list[int] = made) -> ErrorLine:
                made.append(i)
                return line(base + i)

            runs.add_run(0, count, make)
            assert runs.all() == each.all(), (before, count)
            assert runs._files.keys() == each._files.keys()
            assert all(runs._files[k].count == each._files[k].count for k in each._files)
            assert len(made) <= 60


def test_colored_lines_are_matched_as_a_person_reads_them(tmp_path: Path, engine: str) -> None:
    """torchtitan colours its step line between each label and its number; a colored
    error line after a tqdm cursor move is found too, at its own line number and byte
    offset in the file."""
    red, green, blue, reset = "\x1b[31m", "\x1b[32m", "\x1b[34m", "\x1b[39m"
    lines = ["[rank0]:[titan] 2026-12-07 14:09:15,084 - root - INFO - Training starts at step 1"]
    for step in range(1, 40):
        lines.append(
            f"[rank0]:[titan] 2026-12-07 14:{9 + step // 60:02d}:{15 + step % 45:02d},084 - root"
            f" - INFO - {red}step: {step:2}  {green}loss: {7.9 - step / 10:7.4f}  {blue}tps: "
            f"1,234{reset}"
        )
    lines.append("\n 40%|####      | 2/5 [00:01<00:01,  1.9it/s]\x1b[A".lstrip("\n"))  # tqdm
    lines.append(f"\x1b]0;train\x07\x1b[31m{OOM}\x1b[0m")  # a title, a colour
    data = "".join(line + "\n" for line in lines).encode()
    f = tmp_path / "console.log"
    f.write_bytes(data)
    v = analyze(f, engine=engine)
    assert v.category == "device_oom"
    assert v.root_cause is not None and v.root_cause.line == len(lines)
    assert v.findings[0].first.offset == data.rindex(b"\n", 0, len(data) - 1) + 1
    assert v.root_cause.text == OOM
    assert (39, True) in [(p.last_step, p.steps >= 2) for p in v.progress]


def test_a_stuck_rank_inside_an_srun_task_of_many_ranks_is_the_hang(tmp_path: Path) -> None:
    """`srun --label` around `torchrun --role rank --tee`: each task's lines carry the
    task and each process's `[rankN]:`. Rank 13 stops at step 300 while its task's
    other ranks and the other tasks go on, then every other rank's collective times out:
    rank 13 is the hang, found by its own step series (its task's series would go on)."""
    lines = []
    for step in range(1, 420):
        for rank in range(16):
            if rank == 13 and step > 300:
                continue
            lines.append(f"{rank // 8}: {_step(rank, step)}")
    for rank in range(16):
        if rank != 13:
            lines.append(
                f"{rank // 8}: [rank{rank}]:[E1129 10:17:00.000000 40 ProcessGroupNCCL.cpp:632] "
                f"[Rank {rank}] Watchdog caught collective operation timeout: "
                "WorkNCCL(SeqNum=9001, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                "Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
            )
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n")
    v = analyze(tmp_path)
    assert v.category == "hang" and v.root_cause is not None
    assert v.root_cause.rank == 13
