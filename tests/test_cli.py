"""The command line end to end: both formats, subcommands, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import DEMO_PATTERNS

from analyzer.cli import main
from analyzer.rules.automaton import available_engines

OOM = "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3"
TIMEOUT = (
    "[rank{r}]:[E1129 10:10:01.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)"
)


@pytest.fixture
def job(tmp_path: Path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    for r in range(8):
        (d / f"rank{r}.log").write_text(TIMEOUT.format(r=r) + "\n")
    (d / "rank3.log").write_text("2026-11-29 10:00:00,000 INFO step 1\n" + OOM + "\n")
    return d


def invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_json_is_exactly_one_object_with_the_contract_fields(job: Path) -> None:
    code, out, _ = invoke(
        str(job), "--format", "json", "--patterns", str(DEMO_PATTERNS), "--no-builtin"
    )
    assert code == 0
    v = json.loads(out)
    assert v["schema"] == "ha-analyze/verdict/1"
    assert (v["category"], v["recovery"], v["retryable"]) == (
        "device_oom",
        "fix_and_resubmit",
        False,
    )
    assert 0.0 <= v["confidence"] <= 1.0
    assert isinstance(v["summary"], str) and v["summary"]
    rc = v["root_cause"]
    assert {k: rc[k] for k in ("file", "line", "rank", "signature", "text")} == {
        "file": "rank3.log",
        "line": 2,
        "rank": 3,
        "signature": "demo-oom",
        "text": OOM,
    }
    assert rc["time"] == "2026-11-29T10:00:00.000"
    for f in v["findings"]:
        assert {
            "category",
            "signature",
            "role",
            "file",
            "line",
            "rank",
            "time",
            "text",
            "count",
        } <= set(f)
    timeouts = [f for f in v["findings"] if f["signature"] == "demo-timeout"]
    assert timeouts[0]["count"] == 7
    st = v["stats"]
    assert (st["files"], st["lines"], st["unreadable"]) == (8, 9, [])
    assert st["bytes"] == sum(p.stat().st_size for p in job.iterdir())
    assert isinstance(st["seconds"], float)


def test_text_report_has_headline_evidence_and_grouped_findings(job: Path) -> None:
    code, out, _ = invoke(str(job), "--patterns", str(DEMO_PATTERNS), "--no-builtin")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("DEVICE_OOM") and "fix_and_resubmit" in first
    assert "Root cause: rank3.log:2  rank 3" in out
    assert f" > 2 | {OOM}" in out
    assert "demo-timeout  x7 7 ranks" in out
    assert "\x1b[" not in out  # no colour when not a TTY
    assert out.count("Watchdog caught") == 1


def test_chinese_headline(job: Path) -> None:
    code, out, _ = invoke(
        str(job), "--patterns", str(DEMO_PATTERNS), "--no-builtin", "--lang", "zh"
    )
    assert code == 0
    assert "设备内存不足" in out.splitlines()[0] and "修改后重新提交" in out.splitlines()[0]
    assert "根因" in out


def test_stdin(job: Path) -> None:
    r = CliRunner().invoke(
        main,
        ["-", "--format", "json", "--patterns", str(DEMO_PATTERNS), "--no-builtin"],
        input=OOM + "\n",
    )
    assert r.exit_code == 0
    v = json.loads(r.stdout)
    assert v["category"] == "device_oom" and v["root_cause"]["file"] == "<stdin>"


def test_nothing_readable_exits_3_with_json_still_printed(tmp_path: Path) -> None:
    code, out, err = invoke(str(tmp_path / "missing"), "--format", "json")
    assert code == 3
    assert json.loads(out)["stats"]["unreadable"] == [str(tmp_path / "missing")]
    assert "no such file" in err


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert invoke(str(tmp_path), "--format", "xml")[0] == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.yaml").write_text("family: x\nsignatures: [{id: x-y}]\n")
    code, _, err = invoke(str(tmp_path), "--patterns", str(bad))
    assert code == 2 and "x-y: title: missing" in err


def test_patterns_list_and_explain() -> None:
    code, out, _ = invoke("patterns", "list")
    assert code == 0 and len(out.splitlines()) >= 60
    sig_id = out.split()[0]
    code, out, _ = invoke("explain", sig_id)
    assert code == 0
    assert "### What it matches" in out and "References:" in out
    code, _, err = invoke("explain", "no-such-signature")
    assert code == 2 and "no signature" in err


@pytest.mark.slow
def test_patterns_test_passes_builtins_and_fails_a_broken_user_folder(tmp_path: Path) -> None:
    code, out, _ = invoke("patterns", "test")
    assert code == 0 and " 0 failed" in out
    code, out, _ = invoke("patterns", "test", str(DEMO_PATTERNS))
    assert code == 0 and out.startswith("8 passed, 0 failed")
    for engine in available_engines():  # every installed engine compiles and runs them
        assert f"8 passed, 0 failed (16 examples, engine {engine})" in out
    broken = tmp_path / "p"
    broken.mkdir()
    text = (DEMO_PATTERNS / "demo.yaml").read_text().replace("family: demo", "family: mine")
    text = text.replace("id: demo-", "id: mine-").replace("size: '2.00 GiB'", "size: '3.00 GiB'")
    (broken / "mine.yaml").write_text(text)
    code, out, _ = invoke("patterns", "test", str(broken))
    assert code == 1
    assert "FAIL mine-oom: capture 'size': expected '3.00 GiB', got '2.00 GiB'" in out
    assert "1 failed" in out


def test_patterns_test_runs_the_examples_of_every_format_kind(tmp_path: Path) -> None:
    """A user folder's formats.yaml (a timestamp form whose example states the wrong
    time) fails `patterns test`; the built-in formats' examples pass."""
    code, out, _ = invoke("patterns", "test")
    assert code == 0 and "formats: " in out and ", 0 failed" in out.splitlines()[-1]
    mine = tmp_path / "p"
    mine.mkdir()
    (mine / "formats.yaml").write_text(
        "timestamps:\n"
        "  - id: dotted-date\n"
        "    what: '[DD.MM.YYYY HH:MM:SS]'\n"
        "    regex: '\\[(?P<D>\\d\\d)\\.(?P<M>\\d\\d)\\.(?P<Y>\\d{4}) "
        "(?P<h>\\d\\d):(?P<m>\\d\\d):(?P<s>\\d\\d)\\]'\n"
        "    examples:\n"
        "      - {line: '[29.11.2026 10:00:07] step 7', time: '2026-11-29T10:00:08.000'}\n",
        encoding="utf-8",
    )
    code, out, _ = invoke("patterns", "test", str(mine))
    assert code == 1
    assert "dotted-date: '[29.11.2026 10:00:07] step 7': time 2026-11-29T10:00:07.000" in out


def test_console_script_runs_as_a_process(job: Path) -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "analyzer",
            str(job),
            "--format",
            "json",
            "--patterns",
            str(DEMO_PATTERNS),
            "--no-builtin",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["category"] == "device_oom"


def test_timeline_format_marks_the_root_cause_rank() -> None:
    from conftest import REPO

    code, out, _ = invoke(
        str(REPO / "corpora" / "examples" / "gpu-fell-off-bus"), "--format", "timeline"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("DEVICE_FAULT -> isolate_and_reschedule")
    root = [line for line in lines if line.startswith("> ")]
    assert len(root) == 1 and "xid-79-fallen-off-bus" in root[0] and "gpu-node1/kern.log" in root[0]
    assert sum("nccl-watchdog-timeout" in line for line in lines) == 4  # one row per rank


STEP = "2026-11-29 10:0{m}:00,000 INFO step {m}"


def test_failed_turns_logs_that_just_end_into_unknown_and_decide_assumes_it(
    tmp_path: Path,
) -> None:
    log = tmp_path / "train.log"
    log.write_text("".join(STEP.format(m=m) + "\n" for m in range(1, 6)))
    args = ["--patterns", str(DEMO_PATTERNS), "--no-builtin", "--no-model"]
    code, out, _ = invoke(str(log), "--format", "json", *args)
    assert code == 0 and json.loads(out)["category"] == "none"
    code, out, _ = invoke(str(log), "--format", "json", "--failed", *args)
    v = json.loads(out)
    assert (v["category"], v["decided_by"]) == ("unknown", "caller")
    code, out, _ = invoke("decide", str(log), "--format", "json", *args)
    assert code == 200 and json.loads(out)["verdict"]["category"] == "unknown"


def test_ha_run_treats_a_non_zero_exit_with_silent_logs_as_a_failure(tmp_path: Path) -> None:
    ha_run = [sys.executable, "-m", "analyzer.ops.torchrun", "--log-dir", str(tmp_path)]
    r = subprocess.run(
        [*ha_run, "--max-attempts", "1", "--", "bash", "-c", "echo hello; exit 3"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 200, r.stderr
    verdict = json.loads((tmp_path / "attempt_0" / "verdict.json").read_text())
    assert verdict["category"] == "unknown" and verdict["decided_by"] == "caller"


def test_decide_refuses_to_decide_on_logs_it_cannot_read(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for path in (tmp_path / "missing", empty):
        code, _, err = invoke("decide", str(path))
        assert code == 3 and "no log line could be read" in err


def test_a_mistyped_subcommand_is_not_taken_for_a_path(tmp_path: Path) -> None:
    """`ha-analyze analyse logs/` (issue 17, point 8): a word that is no path but close to
    a command is a usage error that names the command, not a `none` verdict on nothing."""
    (tmp_path / "train.log").write_text("step 1\n")
    r = CliRunner().invoke(main, ["analyse", str(tmp_path)])
    assert r.exit_code == 2
    assert "did you mean 'analyze'" in r.output and "NONE" not in r.output
    # a path of that name is a path
    (tmp_path / "analyse").write_text("step 1\n")
    r = CliRunner().invoke(main, [str(tmp_path / "analyse")])
    assert r.exit_code == 0 and "NONE" in r.output


def test_an_unknown_table_suffix_is_an_error_not_json_lines(tmp_path: Path) -> None:
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "train.log").write_text("step 1\n")
    out = tmp_path / "verdicts.foo"
    r = CliRunner().invoke(main, ["batch", str(tmp_path), "--out", str(out)])
    assert r.exit_code == 2 and ".parquet, .csv, .jsonl" in r.output
    assert not out.exists()


@pytest.mark.parametrize("kind", ["missing", "empty-folder", "binary-only"])
def test_nothing_to_read_is_an_error_without_a_verdict_headline(tmp_path: Path, kind: str) -> None:
    """Issue 17, point 8: a missing path, an empty folder or a folder of binaries exits 3
    with a message on stderr and no `NONE` headline; the JSON keeps its object."""
    target = tmp_path / "logs"
    if kind != "missing":
        target.mkdir()
    if kind == "binary-only":
        (target / "core.bin").write_bytes(bytes(range(256)) * 64)
    code, out, err = invoke(str(target))
    assert code == 3 and "NONE" not in out
    assert "nothing to analyse" in err
    code, out, _ = invoke(str(target), "--format", "json")
    assert code == 3 and json.loads(out)["category"] == "none"


def test_colour_follows_color_and_no_color(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17, point 8: `--color always|never|auto` anywhere before `--`, and NO_COLOR
    (no-color.org) turning `auto` off; `always` wins over NO_COLOR, as ripgrep does."""
    escape = "\x1b["

    def styled(*args: str, no_color: str | None = None) -> bool:
        if no_color is None:
            monkeypatch.delenv("NO_COLOR", raising=False)
        else:
            monkeypatch.setenv("NO_COLOR", no_color)
        r = CliRunner().invoke(main, list(args), color=True)  # as on a terminal
        assert r.exit_code == 0, r.output
        return escape in r.stdout

    assert styled(str(job))
    assert not styled(str(job), no_color="1")
    assert styled(str(job), no_color="")  # set but empty: colour stays on
    assert not styled(str(job), "--color", "never")
    assert not styled("--color=never", str(job))
    assert styled(str(job), "--color", "always", no_color="1")
    r = CliRunner().invoke(main, [str(job), "--color"])
    assert r.exit_code == 2 and "--color needs a value" in r.output


def test_watch_that_times_out_has_its_own_exit_code(tmp_path: Path) -> None:
    """Issue 17, point 8: a watch whose --timeout runs out before any --exit-on event
    exits 6, so a script can tell it from `finished` (0)."""
    (tmp_path / "rank0.log").write_text("2026-11-29 10:00:00,000 INFO step 1\n")
    r = CliRunner().invoke(
        main,
        ["watch", str(tmp_path), "--interval", "0.05", "--timeout", "0.3", "--exit-on", "failure"],
    )
    assert r.exit_code == 6, r.output


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("v.parquet", b"PAR1 not really", "not a readable batch table"),
        ("v.jsonl", b'{"job_id": "a",\n', "not a readable batch table"),
        ("v.jsonl", b"[1, 2]\n", "a line is not a JSON object"),
        ("v.csv", b"host,when\nn1,today\n", "no job_id or category column"),
        ("v.csv", b"\xff\xfe\x00garbage", "not a readable batch table"),
    ],
)
def test_report_on_a_bad_table_is_one_line_not_a_traceback(
    tmp_path: Path, name: str, data: bytes, says: str
) -> None:
    """Issue 17, point 8: `report` on a file that is no batch table says so in one line
    on stderr and exits 3; no HTML is written."""
    table = tmp_path / name
    table.write_bytes(data)
    out = tmp_path / "r.html"
    code, stdout, err = invoke("report", str(table), "--html", str(out))
    assert code == 3 and stdout == ""
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


TORCHRUN_RUNS = Path(__file__).resolve().parent.parent / "corpora" / "torchrun" / "runs"
ASCEND = Path(__file__).resolve().parent.parent / "corpora" / "ascend" / "bundles"


def test_the_text_report_ends_with_what_to_do() -> None:
    """Issue 17, point 7: the report ends with the recovery in words, the host to cordon,
    the checkpoint a restart resumes from and the root signature's own advice."""
    code, out, _ = invoke(str(ASCEND / "hbm-uce-device-log" / "logs"), "--color", "never")
    assert code == 0
    todo = out[out.index("What to do:") :]
    assert out.rstrip().endswith(todo.rstrip())  # the last section
    assert "isolate_and_reschedule (isolate node and reschedule job): mark the faulty" in todo
    assert "Cordon worker-0 and reschedule the job elsewhere." in todo
    assert "From torch-npu-uce-error: Isolate the node" in todo
    code, out, _ = invoke(str(TORCHRUN_RUNS / "hang" / "logs"))
    todo = " ".join(out[out.index("What to do:") :].split())
    assert "Resume from checkpoints/checkpoint-100.pt (step 100;" in todo


def test_a_bare_sigkill_is_called_a_guess_and_teardown_is_not_preemption() -> None:
    """Issue 17, points 4 and 7: a worker killed by SIGKILL with no OOM-killer line is a
    guess, said so plainly; torchrun's SIGTERM to the other workers is their teardown,
    not `preempted x3`."""
    code, out, _ = invoke(str(TORCHRUN_RUNS / "kill" / "logs"))
    assert code == 0 and out.startswith("HOST_OOM")
    summary = out.splitlines()[2]
    assert "The evidence is weak (confidence 0.55): this is a guess" in summary
    assert "teardown x3" in summary and "preempted" not in summary
    assert re.search(r"^  symptom +teardown +pytorch-elastic-worker-teardown", out, re.M)


def test_a_clean_run_shows_no_confidence_and_no_classifier_guess() -> None:
    code, out, _ = invoke(str(TORCHRUN_RUNS / "none" / "logs"))
    assert code == 0 and out.startswith("NONE")
    assert "confidence" not in out and "Classifier" not in out and "What to do" not in out


def test_lang_zh_labels_every_heading_in_chinese() -> None:
    """Issue 17, point 7: `--lang zh` has no English heading or label left (ids, and the
    signatures' own messages and advice, stay as written)."""
    english = ("Root cause", "Also found", "What to do", "decided by", "retryable", "Read ")
    for bundle in (
        TORCHRUN_RUNS / "hang",
        TORCHRUN_RUNS / "kill",
        ASCEND / "ring-rank-never-arrives",
    ):
        code, out, _ = invoke(str(bundle / "logs"), "--lang", "zh")
        assert code == 0 and "建议操作:" in out and "判定依据" in out
        assert not [w for w in english if w in out], out
        assert "first to report" not in out and "waited for:" not in out
        summary = out.splitlines()[2]  # the signature's message too, or the hang's own words
        assert not re.search(r"[a-z]{4,} [a-z]{4,}", summary.split("：", 1)[-1]), summary


def test_timeline_columns_line_up() -> None:
    """Issue 17, point 7: every row's cells start where the header's do, whatever the
    lengths of the signature ids and times (`?` for a line without one)."""
    code, out, _ = invoke(str(TORCHRUN_RUNS / "kill" / "logs"), "--format", "timeline")
    assert code == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.lstrip().startswith("who "))
    header = lines[head]
    starts = [header.index(h) for h in ("last progress", "time", "role", "first telling", "file")]
    rows = lines[head + 1 : lines.index("", head)]
    assert len(rows) > 5
    for row in rows:
        for s in starts:
            assert (row[s - 2 : s] == "  " and row[s] != " ") or row[s - 2 : s + 1] == "   ", row


def test_readme_sample_output_is_what_the_command_prints() -> None:
    """Issue 17, point 9: README's sample is the real output of its command, in order; a
    line that ends in `...` is a prefix, a line of `...` skips lines. It fails when the
    report drifts from what README shows."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("```\n$ ha-analyze ", 1)[1].split("\n```", 1)[0].splitlines()
    command, shown = block[0].split(), block[1:]
    code, out, _ = invoke(*command, "--color", "never")
    assert code == 0
    printed = out.splitlines()
    at = 0
    for want in shown:
        if want.strip() == "...":
            continue
        prefix = want[:-3] if want.endswith("...") else None
        while at < len(printed) and not (
            printed[at].startswith(prefix) if prefix is not None else printed[at] == want
        ):
            at += 1
        assert at < len(printed), f"README line not printed (in order): {want!r}"
        at += 1


@pytest.mark.slow
def test_readme_accuracy_table_is_this_checkouts() -> None:
    """Issue 17, point 11: README's per-category dev-set figures are what the shared
    scorer measures on this checkout (benchmarks/accuracy.py); skipped where the dev set
    is not beside the repository."""
    repo = Path(__file__).resolve().parent.parent
    if not (repo.parent / "shared" / "eval" / "score.py").is_file():
        pytest.skip("the dev set (../shared/eval) is not here")
    r = subprocess.run(
        [sys.executable, str(repo / "benchmarks" / "accuracy.py")],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_output_that_cannot_be_written_ends_in_one_line(job: Path) -> None:
    """Issue 18, point 10: stdout on a full device (/dev/full) gives one line on stderr
    and exit 7, not a traceback, whatever the format."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    for fmt in ("text", "json", "timeline"):
        with open("/dev/full", "w") as full:
            r = subprocess.run(
                [sys.executable, "-m", "analyzer", str(job), "--format", fmt],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
        assert r.returncode == 7, r.stderr
        assert r.stderr.strip() == "ha-analyze: cannot write the output: No space left on device"


def test_every_registered_sink_is_a_format_choice_and_renders(tmp_path: Path) -> None:
    """The --format choices are the sink registry; each sink renders a real verdict."""
    from analyzer.sinks import SINKS

    (tmp_path / "rank_0.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    )
    for name in SINKS:
        r = CliRunner().invoke(main, ["analyze", str(tmp_path), "--format", name])
        assert r.exit_code == 0, (name, r.output)
        assert "out of memory" in r.output.lower() or "device_oom" in r.output, name
    r = CliRunner().invoke(main, ["analyze", str(tmp_path), "--format", "nosuch"])
    assert r.exit_code == 2 and all(name in r.output for name in SINKS)
