"""Choosing one root cause among many hits, and mapping it to recovery."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_PATTERNS, torchelastic_table, write_bundle

from analyzer import analyze

TIMEOUT = (
    "[rank{r}]:[E1129 {t} 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=42, OpType=ALLREDUCE)"
)
OOM = (
    "2026-11-29 {t} [rank{r}]: torch.OutOfMemoryError: CUDA out of memory. "
    "Tried to allocate 2.00 GiB."
)
SIGTERM = (
    "[2026-11-29 {t}] WARNING:torch.distributed.elastic.multiprocessing.api:"
    "Sending process 9 closing signal SIGTERM"
)


def _job(tmp_path: Path, files: dict[str, list[str]]) -> Path:
    for name, lines in files.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


def run(path: Path):  # type: ignore[no-untyped-def]
    return analyze(path, patterns=[DEMO_PATTERNS], builtin_patterns=False, model=False)


def test_a_cause_outranks_earlier_symptoms_of_other_ranks(tmp_path: Path) -> None:
    files = {f"rank{r}.log": [TIMEOUT.format(r=r, t="10:10:00.000000")] for r in range(4)}
    files["rank2.log"] = ["2026-11-29 10:20:00,000 step 1", OOM.format(r=2, t="10:20:01,000")]
    files["launcher.log"] = [SIGTERM.format(t="10:20:02,000")] * 3
    v = run(_job(tmp_path, files))
    assert (v.category, v.recovery, v.retryable) == ("device_oom", "fix_and_resubmit", False)
    assert v.root_cause is not None and v.root_cause.rank == 2
    assert v.root_cause.file == "rank2.log" and v.root_cause.line == 2
    timeouts = [f for f in v.findings if f.signature.id == "demo-timeout"]
    assert len(timeouts) == 1 and timeouts[0].count == 3 and timeouts[0].ranks == (0, 1, 3)
    sigterms = [f for f in v.findings if f.signature.id == "demo-sigterm"]
    assert sigterms[0].count == 3
    assert v.confidence >= 0.8


def test_earliest_cause_wins_across_files(tmp_path: Path) -> None:
    files = {
        "rank0.log": [OOM.format(r=0, t="10:00:05,000")],
        "rank1.log": [OOM.format(r=1, t="10:00:01,000")],
    }
    v = run(_job(tmp_path, files))
    assert v.root_cause is not None and v.root_cause.rank == 1


def test_file_order_decides_where_no_time_is_known(tmp_path: Path) -> None:
    files = {"a.log": ["KeyError: 'first'"], "b.log": ["ValueError: second"]}
    v = run(_job(tmp_path, files))
    assert v.root_cause is not None and v.root_cause.file == "a.log"


def test_symptoms_alone_give_the_symptom_category_with_lower_confidence(tmp_path: Path) -> None:
    files = {f"rank{r}.log": [TIMEOUT.format(r=r, t="10:10:00.000000")] for r in range(2)}
    files["launcher.log"] = [SIGTERM.format(t="10:10:02,000")]
    v = run(_job(tmp_path, files))
    assert (v.category, v.recovery, v.retryable) == ("collective_timeout", "auto_restart", True)
    assert v.confidence < 0.8


def test_clean_run_is_none(tmp_path: Path) -> None:
    files = {
        "rank0.log": ["node1:1:2 [0] NCCL INFO Bootstrap : Using eth0", "step 1 loss 2.0", "done"]
    }
    v = run(_job(tmp_path, files))
    assert (v.category, v.recovery, v.root_cause) == ("none", "none", None)
    assert v.retryable is None
    assert [f.signature.id for f in v.findings] == ["demo-info"]  # info is context, never a verdict


def test_empty_input_is_none_with_zero_confidence(tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_bytes(b"")
    v = run(tmp_path)
    assert v.category == "none" and v.confidence == 0.0


def test_identical_lines_collapse_into_one_finding(tmp_path: Path) -> None:
    lines = [TIMEOUT.format(r=r, t=f"10:10:{r % 60:02d}.000000") for r in range(1000)]
    v = run(_job(tmp_path, {"all.log": lines}))
    assert len(v.findings) == 1
    assert v.findings[0].count == 1000 and len(v.findings[0].ranks) == 1000


def test_evidence_last_shows_the_final_line_of_a_decline(tmp_path: Path) -> None:
    pats = tmp_path / "pats"
    pats.mkdir()
    src = (DEMO_PATTERNS / "demo.yaml").read_text()
    (pats / "demo.yaml").write_text(
        src.replace(
            "    message: 'tried to allocate {size}'\n",
            "    message: 'tried to allocate {size}'\n    evidence: last\n",
        )
    )
    lines = [OOM.format(r=0, t=f"10:00:0{i},000").replace("2.00", f"{i}.00") for i in range(1, 4)]
    (tmp_path / "rank0.log").write_text("\n".join(lines) + "\n")
    v = analyze(tmp_path / "rank0.log", patterns=[pats], builtin_patterns=False)
    assert v.root_cause is not None and v.root_cause.line == 3 and "3.00 GiB" in v.root_cause.text


def test_min_count_keeps_a_single_occurrence_from_deciding(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text("step 1 grad_norm: nan\nstep 2 grad_norm: 0.4\n")
    assert run(tmp_path).category == "none"
    (tmp_path / "a.log").write_text("step 1 grad_norm: nan\nstep 2 grad_norm: nan\n")
    assert run(tmp_path).category == "numerical_error"


def test_completion_marker_silences_symptoms_but_not_causes(tmp_path: Path) -> None:
    files = {
        "launcher.log": [
            SIGTERM.format(t="10:00:00,000"),
            "[default] worker group successfully finished.",
        ],
    }
    assert run(_job(tmp_path, files)).category == "none"
    files["rank0.log"] = [OOM.format(r=0, t="10:00:01,000")]
    assert run(_job(tmp_path, files)).category == "device_oom"


def test_lowest_sequence_number_names_the_rank_that_fell_behind(tmp_path: Path) -> None:
    line = (
        "[rank{r}]:[E1129 10:10:0{r}.000000 1 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE)"
    )
    files = {f"rank{r}.log": [line.format(r=r, seq=42)] for r in range(4)}
    files["rank2.log"] = [line.format(r=2, seq=41)]
    v = run(_job(tmp_path, files))
    assert v.category == "collective_timeout"
    assert v.root_cause is not None and v.root_cause.rank == 2


def test_findings_stay_bounded_on_endless_unique_lines(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from analyzer.job import correlate

    monkeypatch.setattr(correlate, "_MAX_GROUPS", 5)
    lines = [f"KeyError: 'key-{chr(97 + i % 26)}{chr(97 + i // 26)}'" for i in range(200)]
    v = run(_job(tmp_path, {"a.log": lines}))
    assert len(v.findings) <= 6
    assert sum(f.count for f in v.findings) == 200


def test_user_prints_quoting_failures_forge_no_verdict() -> None:
    """Prose that quotes failure messages (tips, retry policies, grep patterns) is not
    the framework printing them: signatures anchor on the framework's own prefixes."""
    from conftest import FIXTURES

    v = analyze(FIXTURES / "forged")
    assert v.category == "none" and v.findings == ()


@pytest.mark.parametrize(("after", "expected"), [(1, "device_oom"), (2, "none"), (5, "none")])
def test_a_cause_the_same_stream_trained_past_does_not_decide(
    tmp_path: Path, after: int, expected: str
) -> None:
    """A caught OOM (a batch-size finder, a retry loop) is followed by more steps of the
    same stream; a real one is not, beyond the one step a lockstep peer may still log."""
    lines = [f"2026-11-29 10:00:{i:02d},000 - INFO - step {i} loss 1.9" for i in range(1, 4)]
    lines.append("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    lines += [
        f"2026-11-29 10:01:{i:02d},000 - INFO - step {i} loss 1.9" for i in range(4, 4 + after)
    ]
    (tmp_path / "a.log").write_text("\n".join(lines) + "\n")
    assert analyze(tmp_path).category == expected


MEGATRON_STEP = (
    " [2026-11-29 10:{m:02d}:00] iteration {i:8d}/   50000 | consumed samples: {s:12d} | "
    "elapsed time per iteration (ms): 60000.0 | learning rate: 2.999E-04 | "
    "lm loss: 3.412345E+00 | loss scale: 1.0 |"
)


def _silent_job(tmp_path: Path, saving: bool) -> Path:
    lines = [MEGATRON_STEP.format(m=m, i=m + 1, s=(m + 1) * 1024) for m in range(6)]
    if saving:
        lines.append("saving checkpoint at iteration       6 to /ckpt/gpt in torch_dist format")
    return _job(tmp_path, {"rank_0.log": lines})


@pytest.mark.parametrize("saving", [False, True])
def test_logs_that_just_end_are_none_unless_the_caller_says_the_job_failed(
    tmp_path: Path, saving: bool
) -> None:
    job = _silent_job(tmp_path, saving)
    assert analyze(job).category == "none"
    v = analyze(job, failed=True)
    assert (v.category, v.recovery, v.decided_by) == ("unknown", "unconditional_restart", "caller")
    assert v.root_cause is None
    if saving:
        assert "began saving a checkpoint after step 6 and never finished" in v.summary
    else:
        assert "the last progress is rank 0 at step 6, then the logs end" in v.summary
    assert "作业已失败" in analyze(job, failed=True, lang="zh").summary


def test_a_failed_job_whose_error_no_signature_knows_cites_its_first_error_line(
    tmp_path: Path,
) -> None:
    """The caller knows the job failed and no signature or confident classifier says why:
    the verdict stays unknown, and cites the first line that states an error (an error
    level first) instead of saying that no line does (b10 first look: blind labellers cite
    it); a warning, advice or a line the file went on past is not cited."""
    step = [MEGATRON_STEP.format(m=m, i=m + 1, s=(m + 1) * 1024) for m in range(3)]
    lines = [
        *step,
        "W1207 10:00:01.000000 4242 sampler.py:12] prefetch queue ran empty, unable to keep up",
        "Please check the operator plugin is installed",
        "[rank0]:[E329 11:57:50.830056524 compiler_depend.ts:422] setup failed!",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8",
    ]
    for d in ("error", "cut", "quiet"):
        (tmp_path / d).mkdir()
    v = analyze(_job(tmp_path / "error", {"rank_0.log": lines}), failed=True, model=False)
    assert (v.category, v.decided_by, v.reasons) == ("unknown", "caller", ("failed-unrecognised",))
    assert v.root_cause is not None and v.root_cause.text.endswith("setup failed!")
    assert v.root_cause.line == len(step) + 3 and "setup failed!" in v.summary
    cut = [*step, "[rank11]: Traceback (most recent call last):", '[rank11]:   File "t.py", line 4']
    v = analyze(_job(tmp_path / "cut", {"rank_0.log": cut}), failed=True, model=False)
    assert v.root_cause is not None and v.root_cause.text.endswith(
        "Traceback (most recent call last):"
    )
    assert analyze(_job(tmp_path / "quiet", {"rank_0.log": lines}), model=False).category == "none"


def test_a_traceback_cut_before_its_error_names_no_cause_behind_any_prefix(
    tmp_path: Path,
) -> None:
    """An excerpt that ends inside a traceback says where, never what: behind kubectl's
    timestamps or a logger's prefix, no frame, code line, marker (`^^^^`) or
    multiprocessing's `Process Process-2:` header is cited (b10 first look, gpu-01 and
    asc-04: the classifier read `.backward()` as a numerical error); the verdict is
    unknown and cites the traceback's header."""
    ts = "2024-06-07T11:43:12.4856{:05d}Z "
    lines = [
        "Process Process-2:",
        "Traceback (most recent call last):",
        '  File "/app/train.py", line 482, in train_and_evaluate',
        "    scaler.scale(loss_disc).backward()",
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        '  File "/usr/local/lib/python3.10/site-packages/torch/_tensor.py", line 525, in backward',
    ]
    (tmp_path / "cut").mkdir()
    job = _job(tmp_path / "cut", {"console.log": [ts.format(i) + x for i, x in enumerate(lines)]})
    v = analyze(job, failed=True)
    assert (v.category, v.decided_by) == ("unknown", "caller"), v.summary
    assert v.root_cause is not None and v.root_cause.line == 2


def test_failed_does_not_override_a_cause_the_logs_show(tmp_path: Path) -> None:
    job = _job(tmp_path, {"rank2.log": [OOM.format(r=2, t="10:20:01,000")]})
    assert analyze(job, failed=True).category == "device_oom"


def test_failed_with_nothing_readable_is_unknown(tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_text("")
    v = analyze(tmp_path, failed=True)
    assert v.category == "unknown" and "no log lines could be read" in v.summary


def test_a_dataloader_worker_reraise_cites_the_original_exception(tmp_path: Path) -> None:
    """torch re-raises a worker's exception as `KeyError: Caught KeyError in DataLoader
    worker process 0.` and then prints the original traceback: its last line is the cause."""
    trace = [
        "Traceback (most recent call last):",
        '  File "train.py", line 88, in <module>',
        "    for batch in loader:",
        '  File "/usr/lib/python3.10/site-packages/torch/_utils.py", line 722, in reraise',
        "    raise exception",
        "KeyError: Caught KeyError in DataLoader worker process 0.",
        "Original Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308,'
        " in _worker_loop",
        "    data = fetcher.fetch(index)",
        '  File "/data/ds.py", line 40, in __getitem__',
        "    label = self.labels[name]",
        "KeyError: 'img_00042.jpg'",
    ]
    v = analyze(_job(tmp_path, {"train.log": trace}))
    assert v.category == "user_code_error"
    assert v.root_cause is not None and v.root_cause.text == "KeyError: 'img_00042.jpg'"


def _hf_resume_trace(last: str, frames: list[str]) -> list[str]:
    head = [
        "Traceback (most recent call last):",
        '  File "/work/train.py", line 210, in <module>',
        "    trainer.train(resume_from_checkpoint=True)",
    ]
    return head + frames + [last]


def test_a_missing_checkpoint_file_is_no_corrupt_checkpoint_but_a_missing_shard_is(
    tmp_path: Path,
) -> None:
    """The taxonomy: a checkpoint path that does not exist is not corruption, even raised
    through the trainer's checkpoint loading (a wrong path: user_code_error); one
    per-rank shard missing from a checkpoint's step folder is an incomplete checkpoint
    (checkpoint_corrupt)."""
    missing = (
        "FileNotFoundError: [Errno 2] No such file or directory: '/out/checkpoint-500/optimizer.pt'"
    )
    loading = [
        '  File "/usr/lib/python3.10/site-packages/transformers/trainer.py", line 2100, in _load_from_checkpoint',
        "    state_dict = torch.load(path, map_location='cpu')",
    ]
    v = analyze(_job(tmp_path, {"train.log": _hf_resume_trace(missing, loading)}))
    assert (v.category, v.recovery) == ("user_code_error", "fix_and_resubmit")
    assert v.root_cause is not None and v.root_cause.text == missing
    shard = (
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'/out/checkpoint-500/global_step500/zero_pp_rank_3_mp_rank_00_optim_states.pt'"
    )
    other = tmp_path / "other"
    other.mkdir()
    v = analyze(_job(other, {"train.log": _hf_resume_trace(shard, loading)}))
    assert (v.category, v.recovery) == ("checkpoint_corrupt", "checkpoint_resume")


def test_the_traceback_in_torchelastics_root_cause_table_is_read_as_raised(tmp_path: Path) -> None:
    """torchelastic indents the worker's traceback by two spaces in its failure table;
    the exception that ends it is the cause, not the bare `failed (exitcode: 1)` line
    nor the teardown of the other worker."""
    launcher = [
        "W0101 10:00:05.000000 1200 torch/distributed/elastic/multiprocessing/api.py:897] "
        "Sending process 1235 closing signal SIGTERM",
        "E0101 10:00:06.000000 1200 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: 1) local_rank: 3 (pid: 1234) of binary: /usr/bin/python3",
        "Traceback (most recent call last):",
        '  File "/usr/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
    ]
    worker = [
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/'
        'errors/__init__.py", line 355, in wrapper',
        "    return f(*args, **kwargs)",
        '  File "/work/train.py", line 10, in main',
        '    cfg = conf["optimizer"]',
        "KeyError: 'optimizer'",
    ]
    table = launcher + torchelastic_table("node1", 3, 3, 1234, traceback=worker)
    v = analyze(_job(tmp_path, {"launcher.log": table}))
    assert v.category == "user_code_error"
    assert v.root_cause is not None and v.root_cause.text.strip() == "KeyError: 'optimizer'"


# transformers' chained error for a corrupt weights file (TaskMatrix#93, EmoLLM#199)
_LOAD_FAILED = (
    "OSError: Unable to load weights from pytorch checkpoint file for '{p}' at '{p}'. If you "
    "tried to load a PyTorch model from a TF 2.0 checkpoint, please set from_tf=True."
)
_FROM_PRETRAINED = [
    "Traceback (most recent call last):",
    '  File "/init/projects/EmoLLM/web_internlm2.py", line 167, in load_model',
    '    AutoModelForCausalLM.from_pretrained("model", trust_remote_code=True)',
    '  File "/opt/conda/lib/python3.9/site-packages/transformers/modeling_utils.py", line 3706, in from_pretrained',
    "    ) = cls._load_pretrained_model(",
    '  File "/opt/conda/lib/python3.9/site-packages/transformers/modeling_utils.py", line 535, in load_state_dict',
    "    raise OSError(",
]


@pytest.mark.parametrize(
    "lines, recovery",
    [
        # a model in the Hub cache: an older checkpoint does not replace it
        (
            [
                _LOAD_FAILED.format(
                    p="/home/usr/.cache/huggingface/hub/models--runwayml--stable-diffusion-inpainting/snapshots/caac1048/safety_checker/pytorch_model.bin"
                )
            ],
            "fix_and_resubmit",
        ),
        # from_pretrained of a local model folder in a run that did not resume
        (
            [*_FROM_PRETRAINED, _LOAD_FAILED.format(p="model/pytorch_model-00001-of-00008.bin")],
            "fix_and_resubmit",
        ),
        # the run's own rolling checkpoint: resume from an older one
        (
            [
                *_FROM_PRETRAINED,
                _LOAD_FAILED.format(p="/scratch/user/bert-ft/checkpoint-6000/pytorch_model.bin"),
            ],
            "checkpoint_resume",
        ),
    ],
    ids=["hub-cache", "from-pretrained", "rolling-checkpoint"],
)
def test_a_corrupt_fixed_input_needs_a_fix_not_a_rollback(
    tmp_path: Path, lines: list[str], recovery: str
) -> None:
    (tmp_path / "train.log").write_text("\n".join(lines) + "\n")
    v = analyze(tmp_path, model=False)
    assert (v.category, v.recovery) == ("checkpoint_corrupt", recovery)


def test_the_evidence_is_the_failure_not_its_summary_or_advice(tmp_path: Path) -> None:
    """Issue 15, point 12, on the signature side: NCCL's `Last error:` detail on the line
    after its summary is cited (the payload that wrapped), and advice printed beside a
    CUDA error (`CUDA_LAUNCH_BLOCKING`, `TORCH_USE_CUDA_DSA`) never is."""
    nccl = [
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/workspace/train.py", line 88, in <module>',
        "[rank1]:     dist.barrier()",
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), "
        "NCCL version 2.19.3",
        "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed "
        "or device error. ",
        "[rank1]: Last error:",
        "[rank1]: socketStartConnect: Connect to 10.0.0.2<35247> failed : Software caused connection abort",
    ]
    v = analyze(write_bundle(tmp_path / "nccl", {"rank_1.log": nccl}), model=False)
    assert v.root_cause is not None and v.root_cause.line == 7 and v.root_cause.rank == 1
    assert v.category == "network_fault"
    cuda = [
        "Traceback (most recent call last):",
        '  File "train.py", line 12, in <module>',
        '    x = torch.randn(10, device="cuda") @ w',
        "RuntimeError: CUDA error: device-side assert triggered",
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    ]
    v = analyze(write_bundle(tmp_path / "cuda", {"train.log": cuda}), model=False)
    assert v.root_cause is not None and v.root_cause.line == 4


# A vLLM 0.5 tensor-parallel worker that timed out in its input loop (vllm#5084's layout:
# the multiproc worker prefix on every line, the gloo timeout, then the frames)
_VLLM = "(VllmWorkerProcess pid={pid}) ERROR 06-17 15:30:29 multiproc_worker_utils.py:226] "
_VLLM_WORKER = [
    "Exception in worker VllmWorkerProcess while processing method start_worker_execution_loop: "
    "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms "
    "for recv operation to complete, Traceback (most recent call last):",
    '  File "/srv/vllm/vllm/executor/multiproc_worker_utils.py", line 223, in _run_worker_process',
    "    output = executor(*args, **kwargs)",
    '  File "/srv/vllm/vllm/worker/worker.py", line 286, in start_worker_execution_loop',
    "    while self._execute_model_non_driver():",
    '  File "/srv/vllm/vllm/worker/worker.py", line 303, in _execute_model_non_driver',
    "    data = broadcast_tensor_dict(src=0)",
    '  File "/srv/vllm/vllm/distributed/communication_op.py", line 32, in broadcast_tensor_dict',
    "    return get_tp_group().broadcast_tensor_dict(tensor_dict, src)",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
    "waiting 1800000ms for recv operation to complete",
]
_VLLM_STATS = (
    "INFO 06-17 14:58:02 metrics.py:341] Avg prompt throughput: {p} tokens/s, Avg generation "
    "throughput: 0.0 tokens/s, Running: {run} reqs, Swapped: 0 reqs, Pending: {pend} reqs, "
    "GPU KV cache usage: 0.4%, CPU KV cache usage: 0.0%."
)
# lmdeploy on Ascend (Ascend/pytorch#54's layout: the device's EI9999 block first, then
# lmdeploy's `Rank[N] failed.` with the worker's traceback)
_LMDEPLOY = [
    'INFO:     10.0.3.7:41120 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "EI9999: Inner Error!",
    "EI9999: 2025-03-02-09:51:17.604.112  The error from device(chipId:1, dieId:0), serial number "
    "is 4, hccl fftsplus task timeout occurred during task execution, stream_id:6, sq_id:6, "
    "task_id:1207, stuck notify num:1, timeout:30min(default).[FUNC:ProcessStarsHcclFftsPlusTimeout"
    "ErrorInfo][FILE:device_error_proc.cc][LINE:1435]",
    "        TraceBack (most recent call last):",
    "        rtStreamSynchronizeWithTimeout execute failed, reason=[task timeout][FUNC:FuncErrorReason]"
    "[FILE:error_message_manage.cc][LINE:53]",
    "",
    "2025-03-02 09:51:17,611 - lmdeploy - ERROR - model_agent.py:489 - Rank[1] failed.",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/pytorch/engine/model_agent.py", '
    "line 486, in _start_tp_process",
    "    func(rank, *args, **kwargs)",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/pytorch/engine/model_agent.py", '
    "line 439, in _tp_model_loop",
    "    inputs, swap_in_map, swap_out_map, exit_flag = _broadcast_inputs(",
    '  File "/usr/local/lib/python3.10/site-packages/lmdeploy/pytorch/engine/model_agent.py", '
    "line 404, in _broadcast_inputs",
    "    dist.broadcast_object_list(inputs)",
    "RuntimeError: ACL stream synchronize failed.",
]


def _builtin(path: Path):  # type: ignore[no-untyped-def]
    return analyze(path, model=False)


@pytest.mark.parametrize("layout", ["vllm", "lmdeploy"])
def test_a_serving_workers_idle_wait_timeout_is_fix_and_resubmit(
    tmp_path: Path, layout: str
) -> None:
    """Issue 16 (dev-039's class): a tensor-parallel serving worker waits in a collective
    for the driver's next request; an idle server outlasts the timeout and a restart
    times out the same way: the recovery is a longer timeout, not a restart."""
    if layout == "vllm":
        files = {
            "server.log": [_VLLM_STATS.format(p="35.2", run=0, pend=0)]
            + [_VLLM.format(pid=pid) + line for pid in (71, 72, 73) for line in _VLLM_WORKER]
        }
    else:
        files = {"server.log": _LMDEPLOY}
    v = _builtin(_job(tmp_path, files))
    assert (v.category, v.recovery, v.retryable) == (
        "collective_timeout",
        "fix_and_resubmit",
        False,
    )
    assert "waiting in _" in v.summary and "for the driver's next request" in v.summary


def test_a_worker_timeout_while_requests_run_is_not_an_idle_wait(tmp_path: Path) -> None:
    """vllm#5531's class: the same worker frames, but the engine reported a request
    running: the driver was stuck with work, and the timeout keeps its default recovery."""
    worker = [_VLLM.format(pid=73) + line for line in _VLLM_WORKER]
    files = {"server.log": [_VLLM_STATS.format(p="12.0", run=1, pend=0), *worker]}
    v = _builtin(_job(tmp_path, files))
    assert (v.category, v.recovery) == ("collective_timeout", "auto_restart")
    assert "next request" not in v.summary


def test_a_timeout_in_a_loop_that_broadcasts_every_iteration_is_not_idle(tmp_path: Path) -> None:
    """SGLang's scheduler broadcasts on every loop iteration, idle or not: a timeout in
    `recv_requests` -> `broadcast_pyobj` means rank 0 stopped, not that the server idled."""
    sglang = [
        "[2025-02-18 11:20:31 TP1] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1787, '
        "in run_scheduler_process",
        "    scheduler.event_loop_normal()",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 478, '
        "in event_loop_normal",
        "    recv_reqs = self.recv_requests()",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 560, '
        "in recv_requests",
        "    recv_reqs = broadcast_pyobj(recv_reqs, self.tp_rank, self.tp_cpu_group)",
        '  File "/sgl-workspace/sglang/python/sglang/srt/utils.py", line 693, in broadcast_pyobj',
        "    dist.broadcast(tensor_size, src=src, group=dist_group)",
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
        "waiting 1800000ms for recv operation to complete",
    ]
    v = _builtin(_job(tmp_path, {"sglang.log": sglang}))
    assert (v.category, v.recovery) == ("collective_timeout", "auto_restart")


def test_ranks_timed_out_in_different_collectives_need_a_fix(tmp_path: Path) -> None:
    """Rank 0 waits in ALLREDUCE #308004, rank 1 in _ALLGATHER_BASE #308004: the program
    issued different collectives, and a restart meets the same mismatch (b6 first look,
    gpu-11). The same collective on both is a plain timeout."""
    line = (
        "[rank{r}]:[E327 23:04:00.815080959 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=308004, OpType={op}, NumelIn=16, "
        "NumelOut=32, Timeout(ms)=600000) ran for 600025 milliseconds before timing out."
    )
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "job.log").write_text(
        line.format(r=0, op="ALLREDUCE") + "\n" + line.format(r=1, op="_ALLGATHER_BASE") + "\n"
    )
    v = analyze(mixed, model=False)
    assert (v.category, v.recovery) == ("collective_timeout", "fix_and_resubmit")
    assert "mismatch" in v.reasons
    same = tmp_path / "same"
    same.mkdir()
    (same / "job.log").write_text(
        line.format(r=0, op="ALLREDUCE") + "\n" + line.format(r=1, op="ALLREDUCE") + "\n"
    )
    assert analyze(same, model=False).recovery == "auto_restart"


@pytest.mark.parametrize(("step", "fixed"), [(16, True), (5000, False)])
def test_nan_in_the_first_hundredth_of_a_fresh_run_is_fixed_not_resumed(
    tmp_path: Path, step: int, fixed: bool
) -> None:
    """A loss that turns NaN at step 16 of 6,000 (b15 gpu-09's accelerate bar), no save in
    the logs and no resume: no checkpoint predates it, a restart diverges the same way,
    `fix_and_resubmit`; at step 5,000 a checkpoint to roll back to is likely there,
    `checkpoint_resume`."""
    bar = "Steps:   0%|▏          | {s}/6000 [00:55<4:54:46,  2.96s/it, lr=0, step_loss={v}]"
    lines = [bar.format(s=s, v="0.31") for s in (step - 2, step - 1)]
    lines.append(bar.format(s=step, v="nan"))
    v = analyze(write_bundle(tmp_path, {"train.log": lines}), model=False, failed=True)
    assert v.category == "numerical_error", v.summary
    assert v.recovery == ("fix_and_resubmit" if fixed else "checkpoint_resume"), v.summary


_SITE = "/usr/local/lib/python3.11/site-packages"
_SEAM_FRAMES = {
    # the job's code calls transformers, which calls accelerate, which raises
    "between": [
        ("/app/train.py", 40, "main"),
        (f"{_SITE}/transformers/trainer.py", 409, "__init__"),
        (f"{_SITE}/accelerate/accelerator.py", 477, "__init__"),
        (f"{_SITE}/accelerate/state.py", 1234, "__getattr__"),
    ],
    # the job's code calls one package, which raises
    "one package": [
        ("/app/train.py", 40, "main"),
        (f"{_SITE}/accelerate/accelerator.py", 477, "__init__"),
        (f"{_SITE}/accelerate/state.py", 1234, "__getattr__"),
    ],
    # raised in the job's own code after a package call returned
    "own code": [
        (f"{_SITE}/transformers/trainer.py", 409, "__init__"),
        ("/app/train.py", 52, "setup"),
    ],
}


@pytest.mark.parametrize(
    "frames, error, category",
    [
        (
            "between",
            "AttributeError: 'AcceleratorState' object has no attribute 'mixed_precision'",
            "environment_error",
        ),
        (
            "between",
            "AttributeError: module 'torch.compiler' has no attribute 'is_compiling'",
            "environment_error",
        ),
        (
            "between",
            "AttributeError: '_MultiProcessingDataLoaderIter' object has no attribute '_in_order'",
            "environment_error",
        ),
        # None or a builtin container is what the job's data put there
        (
            "between",
            "AttributeError: 'NoneType' object has no attribute 'shape'",
            "user_code_error",
        ),
        (
            "between",
            "AttributeError: 'dict' object has no attribute 'input_ids'",
            "user_code_error",
        ),
        ("between", "KeyError: 'labels'", "user_code_error"),
        (
            "one package",
            "AttributeError: 'AcceleratorState' object has no attribute 'mixed_precision'",
            "user_code_error",
        ),
        (
            "own code",
            "AttributeError: 'AcceleratorState' object has no attribute 'mixed_precision'",
            "user_code_error",
        ),
    ],
)
def test_an_attribute_error_between_two_installed_packages_is_a_version_mismatch(
    tmp_path: Path, frames: str, error: str, category: str
) -> None:
    """`raised_between`: an AttributeError on a package's own class or module, raised
    where one installed package called another, is two versions that do not fit
    (first look b17 asc-02: transformers' Trainer under an accelerate without the
    attribute); raised in the job's code, under one package, or on None or a builtin
    container, it stays the job's bug."""
    lines = ["[rank0]: Traceback (most recent call last):"]
    for path, n, fn in _SEAM_FRAMES[frames]:
        lines += [f'[rank0]:   File "{path}", line {n}, in {fn}', "[rank0]:     x = y()"]
    (tmp_path / "rank0.log").write_text("\n".join([*lines, f"[rank0]: {error}", ""]))
    v = analyze(tmp_path)
    assert v.category == category, (v.category, v.summary)


def test_a_symptom_that_names_its_kind_outranks_one_that_reads_unknown(tmp_path: Path) -> None:
    """NCCL's `internal error` summary (unknown, fatal) and the `Last error:` torch relays
    under it (the peer refused the connection: a network symptom): the line that says
    what kind of failure it echoes ranks first (first look b17 gpu-10 read the summary's
    `unknown`, and the classifier guessed an environment error from its words)."""
    (tmp_path / "rank0.log").write_text(
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, NCCL "
        "version 2.14.3\n"
        "ncclInternalError: Internal check failed.\n"
        "Last error:\n"
        "Net : Call to recv from 10.1.2.3<56843> failed : Connection refused\n"
    )
    v = analyze(tmp_path, failed=True)
    assert v.category == "network_fault", (v.category, v.summary)
    assert v.root_cause is not None and v.root_cause.signature == "nccl-socket-connection-lost"


_STORE_RETRY = (
    "[E1207 22:00:55.020540957 socket.cpp:1028] [c10d] The client socket has timed out after "
    "10000ms while trying to connect to (node-a, 29179).\n"
    "[W1207 22:00:55.021151212 TCPStore.cpp:340] [c10d] TCP client failed to connect/validate "
    "to host node-a:29179 - retrying (try=0, timeout=10000ms, delay=5306ms): The client socket "
    "has timed out after 10000ms while trying to connect to (node-a, 29179).\n"
)


@pytest.mark.parametrize("steps, category", [(6, "none"), (1, "collective_timeout")])
def test_a_store_timeout_its_process_trained_past_is_set_aside(
    tmp_path: Path, steps: int, category: str
) -> None:
    """A node that reached for the rendezvous store before the store's host was up, then
    retried and trained (first look b17 run-09, a healthy run read as a timeout): its
    timeout decides nothing once its process logged two more steps; with one step after
    it, it may still be what ended the run."""
    lines = "".join(f"step {25 * n}/450 loss=0.{n}1 lr=0.05\n" for n in range(1, steps + 1))
    (tmp_path / "node-b.log").write_text(_STORE_RETRY + lines)
    v = analyze(tmp_path)
    assert v.category == category, (v.category, v.summary)


def test_a_node_the_scheduler_reports_lost_is_named_not_the_host_that_reported_it(
    tmp_path: Path,
) -> None:
    """`srun: error: Node failure on X` printed on the batch host Y (whose slurmstepd line
    names Y): the taxonomy's lost node, `unknown`, and X is the host to act on, never Y, a
    survivor (first look b18 hw-03 read device_fault and named both)."""
    (tmp_path / "main_log.txt").write_text(
        "** Finished validation **\n"
        "srun: error: Node failure on jean-zay-iam37\n"
        "srun: Job step aborted: Waiting up to 62 seconds for job step to finish.\n"
        "slurmstepd: error: *** STEP 1943824.0 ON jean-zay-iam17 CANCELLED AT "
        "2023-03-06T03:17:51 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"
    )
    v = analyze(tmp_path, failed=True)
    assert (v.category, v.decided_by) == ("unknown", "signature"), v.summary
    assert v.act_on.hosts == ("jean-zay-iam37",), v.act_on
    assert "jean-zay-iam37" in v.summary and "jean-zay-iam17" not in v.summary


def test_a_line_read_by_its_frames_is_as_sure_as_that_reading(tmp_path: Path) -> None:
    """A fork's EAGAIN reads environment_error by the frame it was raised in; its
    confidence is that reading's, not the 0.3 cap of the signature's own `unknown`."""
    log = tmp_path / "rank3.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/multiprocessing/popen_fork.py", line 66, in _launch\n'
        "    self.pid = os.fork()\n"
        "BlockingIOError: [Errno 11] Resource temporarily unavailable\n"
    )
    v = analyze(tmp_path, model=False)  # the signature decides, not the classifier
    assert (v.category, v.decided_by) == ("environment_error", "signature")
    assert v.confidence > 0.5
