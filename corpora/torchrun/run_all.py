"""Run train.py under a real torchrun once per fault scenario and keep the logs and labels.

    python corpora/torchrun/run_all.py [--torchrun /tmp/torchvenv/bin/torchrun] [SCENARIO...]

Each scenario runs in a scratch folder (``--scratch``, default ``/tmp/torchrun-corpus``) and
its logs are copied to ``runs/<scenario>/logs/`` beside this file, scrubbed of this
machine's paths and hostname and otherwise exactly as torch printed them, with a
``label.json`` beside ``logs/``. ``tests/test_torchrun_runs.py`` imports ``run_scenario``
from here to reproduce one run live.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
TRAIN = HERE / "train.py"
RUNS = HERE / "runs"
DEFAULT_TORCHRUN = "/tmp/torchvenv/bin/torchrun"
NPROC = 4
RUN_TIMEOUT = 90  # seconds; every scenario finishes in well under 60
MAX_FILE = 200_000

RECOVERY = {
    "none": "none",
    "user_code_error": "fix_and_resubmit",
    "host_oom": "fix_and_resubmit",
    "hang": "hang_restart",
    "numerical_error": "checkpoint_resume",
}


@dataclass(frozen=True)
class Scenario:
    name: str
    fault: str
    category: str
    rank: int | None = None
    step: int = 120
    # "logdir": torchrun --tee 3 --log-dir logs (launcher.log + attempt_0/<rank>/ files);
    # "console": torchrun --nnodes 1 --tee 3, everything captured into one console.log.
    layout: str = "logdir"
    # where the root-cause line is: "stderr", "stdout" (the rank's own file), "launcher"
    # (torchrun's output) and a literal the line contains; "last-progress" for a hang
    evidence: tuple[str, str] | None = None
    env: dict[str, str] = field(default_factory=dict)
    about: str = ""
    # seconds after which torchrun itself gets SIGTERM, as a scheduler's time limit or a
    # user's kill sends it (None: the run ends by itself)
    stop_after: float | None = None
    # whether the logs can show the faulty rank: ranks that all stop at one step in one
    # collective cannot be told apart without a stack dump (the label's rank is then None)
    rank_shown: bool = True


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("none", "none", "none", about="clean run, 300 steps, 3 checkpoints"),
    Scenario(
        "raise-keyerror",
        "raise",
        "user_code_error",
        rank=1,
        evidence=("stderr", "KeyError: 'input'"),
        about="rank 1 indexes a batch key that is not there; the others lose their gloo peer",
    ),
    Scenario(
        "shape-mismatch",
        "shape",
        "user_code_error",
        rank=2,
        step=80,
        evidence=("stderr", "mat1 and mat2 shapes cannot be multiplied"),
        about="rank 2 gets a batch of the wrong width: a real shape-mismatch RuntimeError",
    ),
    Scenario(
        "hang",
        "hang",
        "hang",
        rank=3,
        step=150,
        evidence=("stdout", "last-progress"),
        about="rank 3 stops making progress before a collective; the others hit the 20 s gloo timeout",
    ),
    Scenario(
        "hang-sigterm",
        "hang",
        "hang",
        rank=1,
        step=150,
        evidence=("launcher", "step 140/100000"),
        env={"PG_TIMEOUT": "3600", "STEPS": "100000"},
        stop_after=400,
        rank_shown=False,
        about="rank 1 stops before a collective, the others block in it (a one-hour timeout); "
        "400 s later torchrun is sent SIGTERM and tears the job down: a hang, not a "
        "preemption, and every rank's last step is 140, so no rank is shown to be the one",
    ),
    Scenario(
        "kill",
        "kill",
        "host_oom",
        rank=2,
        step=200,
        evidence=("launcher", "exitcode: -9"),
        about="rank 2 is SIGKILLed (as by the kernel OOM killer): exitcode -9, no error file",
    ),
    Scenario(
        "oom-torch-alloc",
        "oom",
        "host_oom",
        rank=1,
        step=60,
        evidence=("stderr", "DefaultCPUAllocator: can't allocate memory"),
        about="rank 1 fills host memory with tensors under an RLIMIT_AS cap: torch's CPU allocator fails",
    ),
    Scenario(
        "memoryerror",
        "memerror",
        "host_oom",
        rank=3,
        step=60,
        evidence=("stderr", "MemoryError"),
        about="rank 3 fills host memory with Python buffers under an RLIMIT_AS cap: MemoryError",
    ),
    Scenario(
        "nan-loss",
        "nan",
        "numerical_error",
        rank=2,
        step=140,
        evidence=("stdout", "Loss is nan, stopping training"),
        about="rank 2's batch holds a NaN; its loss is nan and it stops training (sys.exit(1))",
    ),
    Scenario(
        "console-keyerror",
        "raise",
        "user_code_error",
        rank=1,
        layout="console",
        evidence=("console", "KeyError: 'input'"),
        env={"RECORD_ERRORS": "0"},
        about="as raise-keyerror, without @record, only the console captured ([defaultN]:[rankN]: prefixes)",
    ),
    Scenario(
        "console-kill",
        "kill",
        "host_oom",
        rank=0,
        step=90,
        layout="console",
        evidence=("console", "exitcode: -9"),
        about="rank 0 is SIGKILLed; only the console captured",
    ),
)
BY_NAME = {s.name: s for s in SCENARIOS}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command(sc: Scenario, train: str = "train.py") -> list[str]:
    """The torchrun arguments (after the torchrun executable) for a scenario."""
    if sc.layout == "console":
        return ["--nnodes", "1", f"--nproc-per-node={NPROC}", "--tee", "3", train]
    return [f"--nproc-per-node={NPROC}", "--tee", "3", "--log-dir", "logs", train]


def fault_env(sc: Scenario) -> dict[str, str]:
    env = {"FAULT": sc.fault}
    if sc.rank is not None:
        env |= {"FAULT_RANK": str(sc.rank), "FAULT_STEP": str(sc.step)}
    return env | sc.env


def run_scenario(sc: Scenario, work: Path, torchrun: str = DEFAULT_TORCHRUN) -> Path:
    """Run one scenario in ``work`` (made empty first); return the folder of its logs.

    The logs folder holds ``launcher.log`` and torchrun's per-rank tree (``logdir``
    layout), or just ``console.log`` (``console`` layout). Nothing is scrubbed here.
    """
    shutil.rmtree(work, ignore_errors=True)
    (work / "tmp").mkdir(parents=True)
    shutil.copy2(TRAIN, work / "train.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FAULT", "TORCHELASTIC"))}
    env |= fault_env(sc)
    env |= {"CKPT_DIR": "checkpoints", "TMPDIR": str(work / "tmp"), "PYTHONUNBUFFERED": "1"}
    argv = [torchrun, *command(sc)]
    argv.insert(-1, f"--master-port={free_port()}")
    logs = work / "logs"
    logs.mkdir()
    out_name = "console.log" if sc.layout == "console" else "launcher.log"
    with open(logs / out_name, "wb") as out:
        proc = subprocess.Popen(
            argv,
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            if sc.stop_after is not None:
                try:
                    proc.wait(timeout=sc.stop_after)
                except subprocess.TimeoutExpired:
                    proc.send_signal(signal.SIGTERM)  # torchrun only, as a scheduler does
            proc.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise RuntimeError(f"{sc.name}: torchrun did not finish in {RUN_TIMEOUT} s") from None
    shutil.rmtree(work / "tmp", ignore_errors=True)
    return logs


def scrubber(work: Path, torchrun: str) -> list[tuple[re.Pattern[str], str]]:
    """This machine's paths and hostname -> neutral ones; everything else stays."""
    venv = Path(torchrun).resolve().parent.parent
    pairs = [
        (re.escape(str(work / "tmp")), "/workspace/tmp"),  # TMPDIR: torchrun's own log dir
        (re.escape(str(work)), "/workspace/job"),
        (re.escape(str(venv)), "/workspace/venv"),
        (re.escape(str(HERE)), "/workspace/job"),
        (r"(?<![\w.-])/tmp/", "/workspace/tmp/"),
        (r"(?<![\w.-])/work/", "/workspace/"),
        (r"(?<![\w.-])/root/", "/home/user/"),
        (rf"(?<![\w.-]){re.escape(socket.gethostname())}(?![\w-])", "gpu-node1"),
    ]
    return [(re.compile(a), b) for a, b in pairs]


def scrub_bytes(data: bytes, subs: list[tuple[re.Pattern[str], str]]) -> bytes:
    """Apply the substitutions to raw log bytes (undecodable bytes survive as they are)."""
    text = data.decode("utf-8", errors="surrogateescape")
    for rx, repl in subs:
        text = rx.sub(repl, text)
    return text.encode("utf-8", errors="surrogateescape")


def scrub_tree(src: Path, dst: Path, subs: list[tuple[re.Pattern[str], str]]) -> None:
    for path in sorted(src.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(src)
        data = scrub_bytes(path.read_bytes(), subs)
        if len(data) > MAX_FILE:
            raise RuntimeError(f"{rel}: {len(data)} bytes, over {MAX_FILE}")
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def rank_dir(logs: Path, rank: int) -> Path:
    found = sorted(logs.glob(f"*/attempt_*/{rank}"))
    if not found:
        raise RuntimeError(f"no torchrun folder for rank {rank} under {logs}")
    return found[-1]


def find_evidence(sc: Scenario, logs: Path) -> tuple[str | None, str | None]:
    """The file (relative to ``logs``) and a literal of the root-cause line."""
    if sc.evidence is None or sc.rank is None:
        return None, None
    where, needle = sc.evidence
    if where in ("launcher", "console"):
        path = logs / f"{where}.log"
    else:
        path = rank_dir(logs, sc.rank) / f"{where}.log"
    lines = path.read_text(errors="replace").splitlines()
    if needle == "last-progress":
        steps = [ln for ln in lines if re.search(r" step \d+/\d+ loss ", ln)]
        if not steps:
            raise RuntimeError(f"{sc.name}: no progress line in {path}")
        needle = re.search(r"step \d+/\d+", steps[-1]).group(0)  # type: ignore[union-attr]
    elif not any(needle in ln for ln in lines):
        raise RuntimeError(f"{sc.name}: {needle!r} not in {path}: the fault did not happen")
    return path.relative_to(logs).as_posix(), needle


def torch_version(torchrun: str) -> str:
    py = Path(torchrun).parent / "python"
    out = subprocess.run(
        [str(py), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip().split("+")[0]


def record(sc: Scenario, torchrun: str, scratch: Path, version: str) -> dict[str, object]:
    work = scratch / sc.name
    t0 = time.time()
    logs = run_scenario(sc, work, torchrun)
    took = time.time() - t0
    subs = scrubber(work, torchrun)
    dest = RUNS / sc.name
    shutil.rmtree(dest, ignore_errors=True)
    scrub_tree(logs, dest / "logs", subs)
    file, needle = find_evidence(sc, dest / "logs")
    env = " ".join(f"{k}={v}" for k, v in fault_env(sc).items())
    label = {
        "category": sc.category,
        "recovery": RECOVERY[sc.category],
        "root_cause_rank": sc.rank if sc.rank_shown else None,
        "fault_rank": sc.rank,
        "root_cause_file": file,
        "root_cause_line_contains": needle,
        "torch": version,
        "command": f"{env} torchrun {' '.join(command(sc))}",
        "layout": sc.layout,
        "about": sc.about,
        "recorded": time.strftime("%Y-%m-%d", time.gmtime(t0)),
        "seconds": round(took, 1),
    }
    (dest / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return label


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--torchrun", default=DEFAULT_TORCHRUN)
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/torchrun-corpus"))
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO", help=", ".join(BY_NAME))
    args = ap.parse_args(argv)
    unknown = sorted(set(args.scenarios) - set(BY_NAME))
    if unknown:
        ap.error(f"unknown scenario(s): {', '.join(unknown)}")
    version = torch_version(args.torchrun)
    for name in args.scenarios or list(BY_NAME):
        label = record(BY_NAME[name], args.torchrun, args.scratch, version)
        print(
            f"{name:18} {label['seconds']:5.1f}s  {label['category']:16} "
            f"rank {label['root_cause_rank']}  {label['root_cause_file']}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
