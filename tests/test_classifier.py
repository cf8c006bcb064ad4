"""The classifier: plain-Python inference equals scikit-learn, the shipped model is safe
and small, and the verdict uses it only when signatures do not decide."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import analyze
from analyzer.read.lines import message_of
from analyzer.unknowns import classifier
from analyzer.unknowns.classifier import Model, region_text

ROOT = Path(__file__).resolve().parent.parent
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3"


def _small_corpus() -> tuple[list[str], list[str]]:
    texts, labels = [], []
    for sources in sorted((ROOT / "corpora" / "failures").glob("*/SOURCES.yaml")):
        for log in sorted(sources.parent.glob("*.log"))[:4]:
            lines = log.read_text(encoding="utf-8").splitlines()
            texts.append(region_text([message_of(x) for x in lines[-40:]]))
            labels.append(sources.parent.name)
    return texts, labels


def test_plain_python_inference_equals_scikit_learn() -> None:
    pytest.importorskip("sklearn")
    from tools.train_classifier import _pipeline, _softmax, export

    texts, labels = _small_corpus()
    pipe = _pipeline().fit(texts[1::2], labels[1::2])
    model = Model(json.loads(json.dumps(export(pipe, 0.5, {}))))
    held = texts[::2]
    for text, row in zip(held, pipe.decision_function(held), strict=True):
        want = _softmax([float(x) for x in row], 0.5)
        got = model.probabilities(text)
        assert max(abs(a - b) for a, b in zip(want, got, strict=True)) < 1e-4
    assert model.classes == list(pipe.classes_)


def test_export_is_deterministic() -> None:
    pytest.importorskip("sklearn")
    from tools.train_classifier import _pipeline, export

    texts, labels = _small_corpus()
    a = export(_pipeline().fit(texts, labels), 0.5, {})
    b = export(_pipeline().fit(texts, labels), 0.5, {})
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_the_shipped_model_is_small_safe_and_loads_without_sklearn_or_numpy() -> None:
    assert classifier.MODEL_PATH.stat().st_size < 10 << 20
    code = (
        "import sys; from analyzer.unknowns import classifier; m = classifier.load(); "
        f"p = m.predict([{OOM!r}]); "
        "print(p.category, 'sklearn' in sys.modules, 'numpy' in sys.modules, 'pickle' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert out == ["device_oom", "False", "False", "False"]


def test_a_broken_model_file_means_no_model(tmp_path: Path) -> None:
    bad = tmp_path / "m.json.gz"
    bad.write_bytes(b"\x1f\x8b not gzip")
    assert classifier.load(bad) is None
    assert classifier.load(tmp_path / "missing.json.gz") is None


def test_probabilities_are_a_distribution() -> None:
    model = classifier.load()
    assert model is not None
    probs = model.probabilities(region_text([OOM]))
    assert math.isclose(sum(probs), 1.0) and min(probs) >= 0.0


def test_signatures_off_leaves_the_classifier_to_decide(tmp_path: Path) -> None:
    (tmp_path / "rank3.log").write_text(
        "step 1 loss 2.0\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        f"{OOM}\n"
    )
    v = analyze(tmp_path, signatures=False)
    assert v.decided_by == "model" and v.category == "device_oom"
    assert v.model is not None and v.model.decided and v.model.probability >= 0.6
    assert v.root_cause is not None and "out of memory" in v.root_cause.text
    assert v.to_dict()["model"]["category"] == "device_oom"
    off = analyze(tmp_path, signatures=False, model=False)
    assert off.category == "none" and off.model is None
    with_signatures = analyze(tmp_path)
    assert with_signatures.decided_by == "signature" and with_signatures.model is None


def test_an_unsure_model_never_decides(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text("something odd failed somewhere\n")
    v = analyze(tmp_path, signatures=False)
    assert v.decided_by != "model"
    assert v.model is not None and not v.model.decided


def test_cli_flags(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(OOM + "\n")
    run = [sys.executable, "-m", "analyzer", str(tmp_path), "--format", "json"]
    got = json.loads(
        subprocess.run([*run, "--no-signatures"], capture_output=True, check=True).stdout
    )
    assert got["decided_by"] == "model" and got["category"] == "device_oom"
    got = json.loads(
        subprocess.run(
            [*run, "--no-signatures", "--no-model"], capture_output=True, check=True
        ).stdout
    )
    assert got["category"] == "none" and got["model"] is None


def test_unknowns_lists_and_drafts_templates(tmp_path: Path) -> None:
    for job in ("job1", "job2"):
        (tmp_path / job).mkdir()
        (tmp_path / job / "rank0.log").write_text(
            "step 1 loss 2.0\n"
            f"FooCollective: peer 10.0.0.{len(job)} lost sync at epoch 4 (code=0x1f)\n"
        )
    base = [
        sys.executable,
        "-m",
        "analyzer",
        "unknowns",
        str(tmp_path / "job1"),
        str(tmp_path / "job2"),
    ]
    out = subprocess.run(base, capture_output=True, text=True, check=True).stdout
    assert "x2" in out and "FooCollective: peer <IP> lost sync" in out
    draft = subprocess.run([*base, "--suggest"], capture_output=True, text=True, check=True).stdout
    assert "FooCollective" in draft and "category: unknown" in draft


PREEMPT_WARNING = (
    "2024-05-27 16:02:30,012 watch WARNING instance is being preempted, ~30s until ACPI G2 soft off"
)
LOSS_SCALE_SKIP = (
    "[2024-01-01 10:00:0{i},000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! "
    "Rank 0 Skipping step. Attempted loss scale: 4096, reducing to 2048"
)


def test_a_warning_is_evidence_only_when_the_caller_knows_the_job_failed(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(PREEMPT_WARNING + "\n")
    healthy = analyze(tmp_path, signatures=False)
    assert healthy.category == "none"
    assert healthy.model is not None and healthy.model.category == "preempted"
    assert not healthy.model.decided  # sure of its reading, but a warning is no failure
    failed = analyze(tmp_path, signatures=False, failed=True)
    assert (failed.category, failed.decided_by) == ("preempted", "model")


def test_a_line_that_calls_itself_harmless_is_never_evidence(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text("".join(LOSS_SCALE_SKIP.format(i=i) + "\n" for i in range(4)))
    for failed in (False, True):
        v = analyze(tmp_path, signatures=False, failed=failed)
        assert v.model is not None and v.model.probability > 0.9 and not v.model.decided
        assert v.decided_by != "model"


@pytest.mark.parametrize(
    "line, harmless, warning",
    [
        ("This warning can be safely ignored.", True, False),
        ("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536", True, False),
        ("retrying request to obs ... succeeded after 2 attempts", True, False),
        (
            "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
            True,
            False,
        ),
        ("[rank0]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1", True, False),
        (
            "        Possible Cause: 1. An exception occurs during the execution on some NPUs",
            True,
            False,
        ),
        (
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
            "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
            False,
            False,
        ),
        (
            "[WARNING] [comm.py:152:init_deepspeed_backend] NCCL backend not yet implemented",
            False,
            True,
        ),
        ("W1129 10:00:00.000 1 x.cpp:10] Warning: something failed", False, True),
        ("/x.py:3: FutureWarning: failed to load ...", False, True),
        (
            "node1:1:2 [0] misc/socket.cc:46 NCCL WARN Call to recv failed : Broken pipe",
            False,
            False,
        ),
        ("WARNING: RuntimeError: CUDA error: an illegal memory access", False, False),
        ("E1129 10:00:00.000 1 x.cpp] something failed", False, False),
        (
            "[INFO][pid:2241703][awatchdog_monitor.c:145](tid:2245407) watchdog timeout, dogId "
            "65584, timeout : 3s",
            False,
            True,
        ),
        ("I1207 16:33:10.491000 77 agent.py:10] rendezvous timed out, retrying", False, True),
    ],
)
def test_harmless_and_warning_level_lines(line: str, harmless: bool, warning: bool) -> None:
    from analyzer.unknowns.region import below_error
    from analyzer.unknowns.region import harmless as is_harmless

    assert (is_harmless(line), below_error(line)) == (harmless, warning)


@pytest.mark.parametrize(
    "line, record",
    [
        # a Megatron line hard-wrapped by a terminal: its middle, the last label cut off
        (
            " rate: 3.000E-04 | global batch size: 1024 | lm loss: 2.301E+00 | grad norm: "
            "0.211 | num zeros: 0.0 | number of skipped iterations:  0 | number of nan",
            True,
        ),
        ("iterations:  0 | samples per second: 21.5 | TFLOPs: 150.2 |", True),
        ("epoch=1 step=100 loss=2.3 lr=0.0001", True),
        ("step: 10, loss: nan, lr: 1e-4", False),  # a NaN value is a finding
        ("ERROR step: 10, loss: 2.0, lr: 1e-4", False),
        (
            "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=57, "
            "OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800034 "
            "milliseconds before timing out.",
            False,
        ),
        (
            "Killed process 4821 (python) total-vm:98765432kB, anon-rss:8765432kB, "
            "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0",
            False,
        ),
        ("step 100 failed: loss=2.0 lr=0.1 gnorm=3.0", False),
    ],
)
def test_a_metrics_record_is_data(line: str, record: bool) -> None:
    from analyzer.unknowns.region import metrics_record

    assert metrics_record(line) is record


def test_a_wrapped_progress_line_is_not_a_finding(tmp_path: Path) -> None:
    """A healthy Megatron excerpt pasted from a terminal that hard-wrapped its lines: the
    fragment `... | number of skipped iterations: 0 | number of nan` is a metric's name,
    and the classifier read it as a NaN before metrics records were data."""
    wrapped = "".join(
        f"[default3]: iteration   {n}/ 500000 | consumed samples:    {n * 1024} | elapsed "
        f"time per iteration (s): 10{n % 10}.2 | learning\n rate: 3.000E-04 | global batch "
        f"size: 1024 | lm loss: 2.30{n % 10}E+00 | grad norm: 0.2{n % 10} | num zeros: 0.0 | "
        "number of skipped iterations:   0 | number of nan\niterations:   0 | samples per "
        "second: 10.1 | TFLOPs: 150.2 |\n"
        for n in range(12000, 12005)
    )
    (tmp_path / "main_log.txt").write_text(wrapped)
    v = analyze(tmp_path)
    assert v.category == "none", (v.category, v.root_cause)


IB_EVENT = "gpu{n}:50{n}1:53{n}6 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration"


def test_a_line_a_signature_knows_as_context_is_never_cited(tmp_path: Path) -> None:
    """NCCL prints routine IB events as WARN; the info signature knows them, so the
    classifier, sure as it is of a network fault without signatures, decides nothing."""
    (tmp_path / "train.log").write_text("".join(IB_EVENT.format(n=n) + "\n" for n in range(4)))
    bare = analyze(tmp_path, signatures=False)
    assert bare.decided_by == "model"  # the words alone read as a failure
    v = analyze(tmp_path)
    assert v.category == "none" and v.model is not None and not v.model.decided


def test_a_last_line_that_looks_like_no_error_is_never_cited(tmp_path: Path) -> None:
    """A file's last lines reach the classifier whatever they say; a bare `step 1` (no
    progress format the timeline knows) read as `numerical_error` at p=0.92. Unless the
    caller knows the job failed, the model cites only a line that looks like an error."""
    (tmp_path / "x.log").write_text("step 1\n")
    v = analyze(tmp_path)
    assert v.category == "none" and v.decided_by == "none"
    assert v.model is None or not v.model.decided


def test_a_frameworks_list_of_possible_causes_is_not_read() -> None:
    """Ray lists what might have killed an actor after saying it died: the model reads
    the death, not the guesses (b5 first look, gpu-09: read as a host OOM)."""
    from analyzer.unknowns.masking import mask

    line = (
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
        "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of "
        "file. There are some potential root causes. (1) The process is killed by SIGKILL by "
        "OOM killer due to high memory usage. (2) ray stop --force is called."
    )
    masked = mask(line)
    assert "SYSTEM_ERROR" in masked and "OOM" not in masked and "SIGKILL" not in masked
    newer = line.replace("There are some potential root causes.", "Some common causes include:")
    assert mask(newer) == masked
    assert "OOM" not in mask("Error. Possible causes: (1) OOM killer")
    assert mask("CUDA error: out of memory") == "CUDA error: out of memory"


@pytest.mark.parametrize(
    "line, where",
    [
        ("Traceback (most recent call last):", True),
        ("[rank3]: Traceback (most recent call last):", True),
        ('  File "/data/LLaMA-Factory/src/llamafactory/launcher.py", line 5, in launch', True),
        ('[rank3]:   File "/root/train.py", line 22, in <module>', True),
        (
            "frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr"
            "<c10d::NCCLComm>&) + 0x220 (0x7fc0e54df7f0 in /x/libtorch_cuda.so)",
            True,
        ),
        ("[rank0]: RuntimeError: setup failed!", False),
        ("RuntimeError: File not found: /data/x.bin", False),
        ("OSError: [Errno 5] Input/output error: 'File \"x\", line 3'", False),
        ('2024-06-07T11:43:12.485694025Z   File "/app/train.py", line 482, in run', True),
        ("2024-06-07T11:43:12.483401697Z Process Process-2:", True),
    ],
)
def test_a_traceback_header_or_frame_says_only_where(line: str, where: bool) -> None:
    """The model never cites a line that only says where (b5 first look, asc-07: a
    traceback cut before its error was read as a code bug), behind a timestamp too (b10
    first look, gpu-01)."""
    from analyzer.read.errors import ErrorLine
    from analyzer.unknowns.region import where_only

    assert where_only(ErrorLine("x.log", 1, None, line, False)) is where


def test_a_line_its_file_went_on_past_is_no_failure_unless_the_caller_says_so(
    tmp_path: Path,
) -> None:
    """A start-up's import error, then the config it printed and ran with (b6 first look,
    asc-06: a healthy torchtune start read as an environment error)."""
    config = [f"  option_{i}: value_{i}" for i in range(30)]
    (tmp_path / "a.log").write_text(
        "\n".join(["import error: No module named 'triton'", "Running with torchrun...", *config])
        + "\n"
    )
    healthy = analyze(tmp_path)
    assert healthy.category == "none" and (healthy.model is None or not healthy.model.decided)
    # the same line last in its file is what ended it
    (tmp_path / "a.log").write_text(
        "\n".join([*config, "import error: No module named 'triton'"]) + "\n"
    )
    ended = analyze(tmp_path)
    assert ended.decided_by == "model" and ended.category == "environment_error", ended.summary


def test_a_bare_eoferror_is_a_lost_parent_not_a_guess(tmp_path: Path) -> None:
    """Compile workers' `raise EOFError` from multiprocessing's pipe when their parent is
    gone: the classifier read the word as a truncated checkpoint (first look b17 asc-04).
    The signature's `unknown` is final: the line says a process vanished, nothing more."""
    frames = (
        "Process ForkServerProcess-{n}:\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/multiprocessing/connection.py", line 414, in _recv_bytes\n'
        "    buf = self._recv(4)\n"
        '  File "/usr/lib/python3.10/multiprocessing/connection.py", line 383, in _recv\n'
        "    raise EOFError\n"
        "EOFError\n"
    )
    (tmp_path / "console.log").write_text("".join(frames.format(n=n) for n in range(2, 6)))
    v = analyze(tmp_path, failed=True)
    assert (v.category, v.decided_by) == ("unknown", "signature"), v.summary
    assert v.root_cause is not None and v.root_cause.signature == "python-pipe-peer-gone"


def test_nccl_info_output_is_never_what_failed(tmp_path: Path) -> None:
    """NCCL's INFO lines report what NCCL did (`... - Abort COMPLETE`, `NET/IB : Using`):
    the classifier cited them (first look b17 gpu-11, b19 gpu-02); its return-code trace
    after a WARN (`NCCL INFO misc/socket.cc:568 -> 2`) still may be cited."""
    from analyzer.read.errors import ErrorLine
    from analyzer.unknowns.region import stating

    texts = [
        "gpu-03:2355:2355 [6] NCCL INFO comm 0xa98fab70 rank 14 nranks 16 cudaDev 6 busId b7000 "
        "- Abort COMPLETE",
        "node1:15874:17284 [4] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB em1:10.0.0.2<0>",
        "node1:4533:4667 [0] NCCL INFO misc/socket.cc:568 -> 2",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed",
    ]
    lines = [ErrorLine("a.log", i + 1, None, t, False) for i, t in enumerate(texts)]
    assert stating(lines) == [2, 3]


def test_a_bare_eoferror_inside_torch_load_is_a_checkpoint_cut_short(tmp_path: Path) -> None:
    """torch's weights-only unpickler raises a bare `EOFError` on an empty checkpoint (a
    save killed by a preemption, resumed from: first look b19 run-02): read inside
    `torch.load`, the bare EOFError is checkpoint_corrupt, not a pipe whose peer left."""
    site = "/usr/lib/python3.11/site-packages/torch"
    (tmp_path / "rank0.log").write_text(
        "[rank0]: Traceback (most recent call last):\n"
        f'[rank0]:   File "{site}/serialization.py", line 1529, in load\n'
        "[rank0]:     return _legacy_load(opened_file, map_location, _weights_only_unpickler)\n"
        f'[rank0]:   File "{site}/_weights_only_unpickler.py", line 327, in load\n'
        "[rank0]:     raise EOFError\n"
        "[rank0]: EOFError\n"
    )
    v = analyze(tmp_path, failed=True)
    assert v.category == "checkpoint_corrupt", v.summary
