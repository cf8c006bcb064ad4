"""Record real torchrun runs with known recovery settings, for `ha-analyze readiness`.

    python corpora/readiness/run_all.py [NAME...]

Each run is corpora/torchrun/train.py (4 gloo ranks, CPU) under a real torchrun, its
console kept in ``runs/<name>/console.log`` (this machine's paths replaced) with a
``label.json`` that gives the scenario and the state every row must have.
``tests/test_readiness.py`` checks them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
TRAIN = HERE.parent / "torchrun" / "train.py"


@dataclass(frozen=True)
class Run:
    name: str
    about: str
    rows: dict[str, str]  # feature -> the state the table must show
    scenario: str | None = None  # given to readiness (None: inferred)
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    local_ckpt: bool = False  # checkpoints under /tmp (a node's own disk)


RUNS_ = [
    Run(
        "elastic-restart",
        "torchrun --max-restarts=2 at LOGLEVEL=INFO; rank 1 is killed at step 120 of the "
        "first attempt; the restarted workers resume from checkpoint-100",
        {"checkpoint_resume": "in_place", "auto_restart": "in_place"},
        args=("--max-restarts=2",),
        env={
            "LOGLEVEL": "INFO",
            "FAULT": "kill",
            "FAULT_STEP": "120",
            "FAULT_ATTEMPTS": "0",
            "RESUME": "1",
            "CKPT_EVERY": "50",
            "STEPS": "200",
        },
    ),
    Run(
        "no-restart-budget",
        "torchrun without --max-restarts at LOGLEVEL=INFO (max_restarts 0); rank 1 is "
        "killed at step 120: nothing restarts it",
        {"auto_restart": "missing", "checkpoint_resume": "in_place"},
        env={"LOGLEVEL": "INFO", "FAULT": "kill", "FAULT_STEP": "120", "STEPS": "200"},
    ),
    Run(
        "local-checkpoints",
        "a clean run that saves its checkpoints under /tmp, judged as a multi-node job: a "
        "rescheduled job cannot see them",
        {"checkpoint_resume": "missing", "auto_restart": "cannot_tell"},
        scenario="multi_node",
        env={"STEPS": "200"},
        local_ckpt=True,
    ),
    Run(
        "default-logging",
        "a clean run at torchrun's default log level: no launch config, so the restart "
        "budget cannot be told",
        {
            "checkpoint_resume": "in_place",
            "auto_restart": "cannot_tell",
            "hang_detection": "cannot_tell",
        },
        env={"STEPS": "200"},
    ),
]


def run(r: Run, torchrun: str) -> None:
    out = RUNS / r.name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    work = Path(tempfile.mkdtemp(prefix="ha-readiness-"))
    ckpt = str(work / "ckpt") if r.local_ckpt else "checkpoints"
    env = {**os.environ, "CKPT_DIR": ckpt, **r.env}
    cmd = [torchrun, "--nproc-per-node=4", "--tee", "3", *r.args, str(TRAIN)]
    started = time.time()
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=180)
    text = (
        (proc.stdout + proc.stderr).replace(str(work), "/tmp/job").replace(str(TRAIN), "train.py")
    )
    (out / "console.log").write_text(text)
    shutil.rmtree(work, ignore_errors=True)
    shown = {k: v for k, v in r.env.items()}
    label = {
        "about": r.about,
        "scenario": r.scenario,
        "rows": r.rows,
        "torch": "2.13.0",
        "exit": proc.returncode,
        "command": " ".join(f"{k}={v}" for k, v in shown.items())
        + f" CKPT_DIR={'/tmp/job/ckpt' if r.local_ckpt else 'checkpoints'} "
        + " ".join(["torchrun", *cmd[1:-1], "train.py"]),
        "recorded": time.strftime("%Y-%m-%d"),
        "seconds": round(time.time() - started, 1),
    }
    (out / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    print(f"{r.name}: exit {proc.returncode}, {label['seconds']} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--torchrun", default=shutil.which("torchrun") or "torchrun")
    args = ap.parse_args()
    for r in RUNS_:
        if not args.names or r.name in args.names:
            run(r, args.torchrun)


if __name__ == "__main__":
    sys.exit(main())
