"""HA readiness (analyzer.decide.readiness): the rows the logs of a job decide, and only those.

corpora/readiness/runs/ holds real torchrun runs with known settings
(corpora/readiness/run_all.py); the lines of other stacks come from the signatures' own
real examples (patterns/signatures/readiness.yaml).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import REPO

from analyzer import analyze, readiness
from analyzer.cli import main
from analyzer.decide.readiness import FEATURES, SCHEMA, where
from analyzer.sinks.prose import TEXT, say

RUNS = REPO / "corpora" / "readiness" / "runs"
GENERATED = REPO / "corpora" / "readiness" / "generated"


def _runs(*folders: Path) -> list[Path]:
    """The corpus's jobs: real runs, and generated large-model jobs."""
    return sorted(
        p for f in folders or (RUNS, GENERATED) for p in f.iterdir() if (p / "label.json").is_file()
    )


def _label(run: Path) -> dict[str, Any]:
    label: dict[str, Any] = json.loads((run / "label.json").read_text())
    return label


@pytest.mark.parametrize("run", _runs(), ids=lambda p: p.name)
def test_real_runs_get_every_labelled_row_right(run: Path) -> None:
    label = _label(run)
    table = readiness(run / "logs", label["scenario"])
    got = {r.feature: r.state for r in table.rows}
    assert set(label["rows"]) == set(FEATURES)  # every row labelled, not the easy ones
    assert {k: got[k] for k in label["rows"]} == label["rows"], table
    assert [r.feature for r in table.rows] == list(FEATURES)
    for row in table.rows:
        if row.state != "cannot_tell" and row.feature != "failure_analysis":
            assert row.evidence, row  # a decided row cites its line


def test_the_corpus_covers_restart_budgets_and_checkpoint_places() -> None:
    assert {p.name for p in _runs(RUNS)} >= {
        "elastic-restart",
        "no-restart-budget",
        "local-checkpoints",
        "default-logging",
        "no-checkpoints",
        "ha-run-restart",
        "mn-shared-restart",
        "mn-shared-relaunch",
        "mn-local-relaunch",
        "mn-shared-no-restart",
    }
    assert all(_label(p)["torch"] == "2.13.0" for p in _runs(RUNS))
    # the multi-node runs ran on two hosts, and the table counts them from the paths
    for run in _runs(RUNS):
        if run.name.startswith("mn-"):
            assert readiness(run / "logs").nodes == 2, run


def test_the_generated_large_model_jobs_are_what_the_generator_writes(tmp_path: Path) -> None:
    """generated/ is generate_large.py's output, byte for byte: the labels and the
    script cannot drift apart."""
    import subprocess
    import sys

    script = REPO / "corpora" / "readiness" / "generate_large.py"
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], check=True)
    kept = {p.relative_to(GENERATED): p.read_bytes() for p in GENERATED.rglob("*") if p.is_file()}
    made = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert kept.keys() == made.keys() and kept == made
    for run in _runs(GENERATED):
        assert readiness(run / "logs").scenario == "large_model", run


def _table(tmp_path: Path, lines: list[str], scenario: str | None = None) -> Any:
    (tmp_path / "rank_0.log").write_text("\n".join(lines) + "\n")
    return readiness(tmp_path, scenario)  # type: ignore[arg-type]


def test_a_setting_line_is_data_never_a_failure(tmp_path: Path) -> None:
    lines = [
        "  max_restarts             : 0",
        "[INFO] HCCL(1,t):2026-01-06-15:38:29.881.882 [externalinput.cc:558] [1][HCCL_ENV] "
        "HCCL_EXEC_TIMEOUT set by default to [1836]s",
    ]
    (tmp_path / "rank_0.log").write_text("\n".join(lines) + "\n")
    v = analyze(tmp_path)
    assert v.category == "none" and not v.findings


def test_hccl_plog_settings_decide_the_timeout_and_retry_rows(tmp_path: Path) -> None:
    prefix = (
        "[INFO] HCCL(1595259,train):2026-01-06-15:38:29.881.882 [externalinput.cc:558] [1595259]"
    )
    table = _table(
        tmp_path,
        [
            f"{prefix}[HCCL_ENV] HCCL_EXEC_TIMEOUT set by default to [1836]s",
            f"{prefix}[HCCL_ENV][ParseRetryEnable] HCCL_OP_RETRY_ENABLE set by environment "
            "variable to [L0:0,L1:1,L2:1].",
        ],
        "large_model",
    )
    hang, retry = table.row("hang_detection"), table.row("operator_retry")
    assert hang.state == "missing" and "31 min" in hang.detail  # over half an hour
    assert retry.state == "in_place" and retry.need == "recommended"
    off = _table(
        tmp_path,
        [
            f"{prefix}[HCCL_ENV][ParseRetryEnable] HCCL_OP_RETRY_ENABLE set by default to [L0:0,L1:0,L2:0]."
        ],
    )
    assert off.row("operator_retry").state == "missing"


def test_a_short_collective_timeout_is_in_place(tmp_path: Path) -> None:
    table = _table(tmp_path, ["  distributed_timeout_minutes ..................... 10"])
    row = table.row("hang_detection")
    assert row.state == "in_place" and "10.0 min" in row.detail


def test_a_script_that_cannot_start_again_is_missing_resume(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        [
            "[INFO] saved checkpoint to /lustre/job/checkpoint-100.pt",
            "ValueError: Output directory (/out/gpt2) already exists and is not empty. "
            "Use --overwrite_output_dir to overcome.",
        ],
    )
    row = table.row("checkpoint_resume")
    assert row.state == "missing" and "fails when it starts again" in row.detail


def test_a_fresh_start_after_saves_is_missing_resume(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        [
            "[INFO] saved checkpoint to /lustre/job/checkpoint-100.pt",
            "WARNING: could not find the metadata file /lustre/job/latest_checkpointed_iteration.txt",
            "    will not load any checkpoints and will start from random",
        ],
        "multi_node",
    )
    assert table.row("checkpoint_resume").state == "missing"


def test_checkpoints_on_shared_storage_are_in_place_for_a_multi_node_job(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        [
            "2024-01-01 10:00:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-100.pt",
            "2024-01-01 10:30:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-200.pt",
            "2024-01-01 11:00:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-300.pt",
        ],
        "multi_node",
    )
    row = table.row("checkpoint_resume")
    assert row.state == "in_place" and "every 100 steps, every 30.0 min" in row.detail


@pytest.mark.parametrize(
    ("path", "place"),
    [
        ("s3://bucket/ckpt", "shared"),
        ("obs://bucket/run/ckpt", "shared"),
        ("/lustre/proj/ckpt", "shared"),
        ("/fsx/run/checkpoints/step-10", "shared"),
        ("/mnt/sfs_turbo/ckpt", "shared"),
        ("/opt/ml/checkpoints/step_1", "shared"),
        ("/tmp/ckpt", "local"),
        ("/cache/ckpt", "local"),
        ("/dev/shm/ckpt", "local"),
        ("/root/ckpt", "local"),
        ("/nvme0/ckpt", "local"),
        ("checkpoints/checkpoint-100.pt", "unknown"),
        ("/data/ckpt", "unknown"),
        ("/tmpfoo/ckpt", "unknown"),
    ],
)
def test_checkpoint_paths_are_placed_shared_or_local(path: str, place: str) -> None:
    assert where(path) == place


def test_no_save_line_cannot_tell_never_missing(tmp_path: Path) -> None:
    """HF Trainer logs its saves at INFO, below its default level: steps and no save
    line say nothing about checkpoints."""
    table = _table(tmp_path, ["{'loss': 1.2, 'learning_rate': 1e-05, 'epoch': 0.1}"] * 3)
    assert table.row("checkpoint_resume").state == "cannot_tell"


def test_the_cli_prints_the_table_as_json_and_in_chinese() -> None:
    run = RUNS / "no-restart-budget" / "logs"
    out = CliRunner().invoke(main, ["readiness", str(run), "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["schema"] == SCHEMA and doc["scenario"] == "single_node"
    assert {r["feature"]: r["state"] for r in doc["rows"]}["auto_restart"] == "missing"
    zh = CliRunner().invoke(main, ["readiness", str(run), "--lang", "zh"])
    assert zh.exit_code == 0 and "自动重启" in zh.output and "缺失" in zh.output
    assert zh.output.startswith("场景：单机（推断：")
    from analyzer.sinks import text_width

    # the states line up on a terminal, where a CJK character takes two columns
    rows = [line for line in zh.output.splitlines() if line.startswith("  ") and "(" in line]
    states = {
        text_width(line[: line.index(state)])
        for line in rows
        for state in ("已具备", "缺失", "无法判断")
        if state in line
    }
    assert len(rows) == len(FEATURES) and len(states) == 1, zh.output
    assert all(say(f"feature.{f}", "zh") != say(f"feature.{f}") for f in FEATURES)


def test_a_bad_scenario_is_a_clear_error() -> None:
    out = CliRunner().invoke(
        main, ["readiness", str(RUNS / "default-logging" / "logs"), "--scenario", "x"]
    )
    assert out.exit_code == 2 and "x" in out.output


def test_readme_counts_the_corpus() -> None:
    readme = (REPO / "README.md").read_text()
    assert f"`corpora/readiness/runs/` holds {len(_runs(RUNS))} real torchrun runs" in readme
    assert f"`corpora/readiness/generated/` holds {len(_runs(GENERATED))} generated" in readme


def test_the_batch_table_has_a_readiness_column_per_row_and_the_report_a_section(
    tmp_path: Path,
) -> None:
    from analyzer.batch.report import not_resumable, render
    from analyzer.batch.run import analyze_many

    frame = analyze_many([RUNS, GENERATED], workers=1)
    by_job = {r["job_id"]: r for r in frame.to_dict("records")}
    assert set(by_job) == {p.name for p in _runs()}
    for run in _runs():
        label, row = _label(run), by_job[run.name]
        if label["scenario"] is None:  # the batch infers every job's scenario
            for feature, state in label["rows"].items():
                assert row[f"ready_{feature}"] == state, (run.name, feature)
    rows = [
        {"category": "hang", "ready_checkpoint_resume": "missing", "gpu_hours": 40.0},
        {"category": "hang", "ready_checkpoint_resume": "cannot_tell", "gpu_hours": 5.0},
        {"category": "device_fault", "ready_checkpoint_resume": "in_place", "gpu_hours": 9.0},
    ]
    assert not_resumable(rows) == (1, 1, 40.0)
    page = render([{**r, "job_id": str(i)} for i, r in enumerate(rows)])
    assert "1 of 3 failed jobs (33%) could not have been resumed" in page
    assert "repeats 40 accelerator hours" in page


def test_a_resume_line_shows_the_restart_resumed(tmp_path: Path) -> None:
    table = _table(
        tmp_path,
        [
            "12/02/2024 16:03:31 - INFO - accelerate.accelerator - Saving current state to "
            "/lustre/run/checkpoint-6928",
            "12/02/2024 17:10:02 - INFO - accelerate.accelerator - Loading states from "
            "/lustre/run/checkpoint-6928",
        ],
        "multi_node",
    )
    row = table.row("checkpoint_resume")
    assert row.state == "in_place" and "resumed at step 6928" in row.detail
    assert len(row.evidence) == 2


def test_the_parameter_count_makes_a_large_model_job(tmp_path: Path) -> None:
    """Megatron prints one count per (tensor, pipeline) shard: they add up; a trainer's
    own total is taken as it is."""
    shards = [
        f" > number of parameters on (tensor, pipeline) model parallel rank ({t}, {p}): 1712590848"
        for t in range(2)
        for p in range(4)
    ]
    big = _table(tmp_path, shards + shards[:2])  # a shard printed twice counts once
    assert big.scenario == "large_model" and big.scenario_why == "13.7B parameters"
    small = _table(tmp_path, ["  Number of trainable parameters = 124,439,808"])
    assert small.scenario == "single_node"
    titan = _table(
        tmp_path,
        ["[rank0]:[titan] - root - INFO - Model llama3 70B size: 70,553,706,496 total parameters"],
    )
    assert titan.scenario == "large_model" and titan.row("checkpoint_resume").need == "required"


def test_a_first_run_that_finds_no_checkpoint_is_no_failure_of_resume(tmp_path: Path) -> None:
    """Megatron and torchtitan say they start afresh on every first run: only a start
    after a save (further down, later in time, a later attempt) lost the checkpoints."""
    first = [
        "[rank0]:[titan] 2026-06-01 10:00:00,000 - root - INFO - No checkpoint was provided, "
        "this is a fresh start.",
        "2026-06-01 10:30:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-100.pt",
    ]
    assert _table(tmp_path, first, "multi_node").row("checkpoint_resume").state == "in_place"
    later = tmp_path / "later"
    (later / "attempt_0").mkdir(parents=True)
    (later / "attempt_1").mkdir()
    (later / "attempt_0" / "rank_0.log").write_text(first[1] + "\n")
    (later / "attempt_1" / "rank_0.log").write_text(
        "    will not load any checkpoints and will start from random\n"
    )
    row = readiness(later, "multi_node").row("checkpoint_resume")
    assert row.state == "missing" and "later start loaded no checkpoint" in row.detail


@pytest.mark.parametrize(
    "line",
    ["  save ............................................ None", "save_strategy=SaveStrategy.NO,"],
)
def test_a_job_set_to_save_nothing_is_missing_resume(tmp_path: Path, line: str) -> None:
    row = _table(tmp_path, [line]).row("checkpoint_resume")
    assert row.state == "missing" and "save no checkpoint" in row.detail and row.evidence


def test_a_configured_save_folder_decides_before_the_first_save(tmp_path: Path) -> None:
    local = ["  save ............................................ /tmp/ckpt/gpt"]
    row = _table(tmp_path, local, "multi_node").row("checkpoint_resume")
    assert row.state == "missing" and "/tmp/ckpt/gpt" in row.detail
    shared = ["  save ............................................ /lustre/ckpt/gpt"]
    row = _table(tmp_path, shared, "multi_node").row("checkpoint_resume")
    assert row.state == "cannot_tell" and "none was saved" in row.detail


@pytest.mark.parametrize(
    "line", ["  no_save_optim ................................... True", "save_only_model=True,"]
)
def test_weights_only_checkpoints_are_missing_for_a_large_model(tmp_path: Path, line: str) -> None:
    save = "2026-06-01 10:30:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-100.pt"
    large = _table(tmp_path, [line, save], "large_model").row("checkpoint_resume")
    assert large.state == "missing" and "lack the training state" in large.detail
    small = _table(tmp_path, [line, save], "single_node").row("checkpoint_resume")
    assert small.state == "in_place" and "lack the training state" in small.detail


@pytest.mark.parametrize(
    ("line", "state"),
    [
        ("ddp_timeout=180000000,", "missing"),  # LLaMA-Factory's: hangs are never timed out
        ("ddp_timeout=1800,", "missing"),  # HF's default: half an hour per hang
        ("ddp_timeout=600,", "in_place"),
    ],
)
def test_the_trainer_ddp_timeout_decides_hang_detection(
    tmp_path: Path, line: str, state: str
) -> None:
    assert _table(tmp_path, [line]).row("hang_detection").state == state


def test_a_watchdog_that_does_not_end_the_process_is_missing_hang_detection(
    tmp_path: Path,
) -> None:
    line = (
        "I20241209 23:39:42.495654 138559122262912 ProcessGroupNCCL.cpp:914] [PG ID 0 PG GUID 0 "
        "Rank 1] ProcessGroupNCCL environments: NCCL version: 2.20.5, "
        "TORCH_NCCL_ASYNC_ERROR_HANDLING: {}, TORCH_NCCL_DUMP_ON_TIMEOUT: 0"
    )
    timeout = "  distributed_timeout_minutes ..................... 10"
    row = _table(tmp_path, [line.format(0), timeout]).row("hang_detection")
    assert row.state == "missing" and "ASYNC_ERROR_HANDLING 0" in row.detail
    assert _table(tmp_path, [line.format(1), timeout]).row("hang_detection").state == "in_place"


def test_a_wandb_run_id_clash_is_missing_resume(tmp_path: Path) -> None:
    lines = [
        "2026-06-01 10:30:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-100.pt",
        "wandb.errors.UsageError: resume='never' but run (1psvaz8q) exists",
    ]
    row = _table(tmp_path, lines).row("checkpoint_resume")
    assert row.state == "missing" and "1psvaz8q" in row.detail


@pytest.mark.parametrize(
    "line",
    [
        "[2025-06-01 10:00:00,123] [INFO] [logging.py:107:log_dist] [Rank 0] [Torch] Begin Load "
        "checkpoint from /lustre/run1/global_step1000/mp_rank_00_model_states.pt...",
        "Restored all states from the checkpoint at /lustre/run1/checkpoints/0-1250.ckpt",
    ],
)
def test_deepspeed_and_lightning_resumes_show_the_restart_resumed(
    tmp_path: Path, line: str
) -> None:
    save = "2026-06-01 10:30:00,000 [INFO] saved checkpoint to /lustre/job/checkpoint-100.pt"
    row = _table(tmp_path, [save, line], "multi_node").row("checkpoint_resume")
    assert row.state == "in_place" and "resumed" in row.detail


@pytest.mark.parametrize("run", _runs(), ids=lambda p: p.name)
def test_every_detail_is_in_chinese_with_lang_zh(run: Path) -> None:
    """`--lang zh` says the details too, not only the names: no English sentence left
    (the evidence lines and the settings' own names stay as the logs have them)."""
    zh = readiness(run / "logs", _label(run)["scenario"], lang="zh")
    en = readiness(run / "logs", _label(run)["scenario"])
    for a, b in zip(zh.rows, en.rows, strict=True):
        assert a.state == b.state and a.evidence == b.evidence
        assert any("\u4e00" <= ch <= "\u9fff" for ch in a.detail), a
        assert a.detail != b.detail
    details = [zh_ for code, (_, zh_) in TEXT.items() if code.startswith("readiness.")]
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in zh_) for zh_ in details)


def test_a_deepspeed_save_shows_its_step_and_the_optimizer_state(tmp_path: Path) -> None:
    """DeepSpeed's save as a real log shows it (transformers#27820, DeepSpeed 0.12): the
    `is ready now` line later releases dropped is not needed."""
    base = "[2023-12-12 06:20:1{}] [INFO] [{}] "
    where_ = "/scratch/run/tmp-checkpoint-10/global_step10/"
    lines = [
        base.format("2,261", "logging.py:96:log_dist")
        + "[Rank 0] [Torch] Checkpoint global_step10 is about to be saved!",
        base.format("2,266", "logging.py:96:log_dist")
        + f"[Rank 0] Saving model checkpoint: {where_}zero_pp_rank_0_mp_rank_00_model_states.pt",
        base.format("2,269", "torch_checkpoint_engine.py:21:save")
        + f"[Torch] Saving {where_}bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt...",
    ]
    row = _table(tmp_path, lines).row("checkpoint_resume")
    assert row.state == "in_place" and row.detail.startswith("1 checkpoint save(s)")
    assert "saved: optimizer" in row.detail


def test_an_elastic_node_range_is_noted_on_the_restart_row(tmp_path: Path) -> None:
    head = "I1203 15:01:59.646000 29833 site-packages/torch/distributed/launcher/api.py:254]"
    lines = [f"{head}   min_nodes                : 2", f"{head}   max_nodes                : 4"]
    lines.append(f"{head}   max_restarts             : 3")
    row = _table(tmp_path, lines).row("auto_restart")
    assert row.state == "in_place" and "2 to 4 nodes" in row.detail
    fixed = [line.replace(": 2", ": 4") for line in lines]
    assert "nodes" not in _table(tmp_path, fixed).row("auto_restart").detail


def test_a_long_hccl_connect_timeout_is_missing_hang_detection(tmp_path: Path) -> None:
    line = (
        "[INFO] HCCL(1595259,python3):2026-01-06-15:38:29.881.877 [externalinput.cc:598] "
        "[1595259][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by environment to [{}]s"
    )
    assert _table(tmp_path, [line.format(7200)]).row("hang_detection").state == "missing"
    assert _table(tmp_path, [line.format(120)]).row("hang_detection").state == "in_place"


def test_a_resume_says_its_step_and_how_far_its_attempt_went(tmp_path: Path) -> None:
    """The ha-run restart of the corpus: attempt_1 resumed at step 100, then trained on
    to 200 (its own progress lines, not attempt_0's)."""
    row = readiness(RUNS / "ha-run-restart" / "logs").row("checkpoint_resume")
    assert "resumed at step 100, then reached step 200" in row.detail
    zh = readiness(RUNS / "ha-run-restart" / "logs", lang="zh").row("checkpoint_resume")
    assert "从第 100 步续训，之后训练到第 200 步" in zh.detail


def test_ranks_that_did_not_resume_with_the_others_are_missing_resume(tmp_path: Path) -> None:
    """The node-local relaunch of the corpus with its folder renamed to one that looks
    like nothing (/data/ckpt): the path cannot tell, the ranks can: in attempt_1 ranks 0
    and 1 resumed at step 50, ranks 2 and 3 (the other node) started at step 1."""
    import shutil

    logs = tmp_path / "logs"
    shutil.copytree(RUNS / "mn-local-relaunch" / "logs", logs)
    for f in logs.rglob("*.log"):
        f.write_text(f.read_text().replace("/mnt/localssd/ha-job/ckpt", "/data/ckpt"))
    row = readiness(logs).row("checkpoint_resume")
    assert row.state == "missing"
    assert "ranks 2, 3 started at step 1 while the others resumed at step 50" in row.detail


def test_nothing_to_read_is_an_error_with_the_reason_never_a_table(tmp_path: Path) -> None:
    from analyzer.cli import EXIT_UNREADABLE

    missing = str(tmp_path / "no-such-job")
    out = CliRunner().invoke(main, ["readiness", missing])
    assert out.exit_code == EXIT_UNREADABLE and "checkpoint resume" not in out.stdout
    assert "nothing to analyse" in out.stderr and "cannot read" in out.stderr
    as_json = CliRunner().invoke(main, ["readiness", missing, "--format", "json"])
    doc = json.loads(as_json.stdout)  # a program still gets its table, and why
    assert any("cannot read" in n for n in doc["notes"])
    assert readiness(missing).notes == tuple(doc["notes"])  # the library call never raises
