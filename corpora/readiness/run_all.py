"""Record real torchrun runs with known recovery settings, for `ha-analyze readiness`.

    python corpora/readiness/run_all.py [NAME...]

Each run is corpora/torchrun/train.py (gloo ranks, CPU) under a real torchrun, its logs
kept in ``runs/<name>/logs/`` (this machine's paths replaced) with a ``label.json`` beside
them that gives the scenario and the state every row must have.
``tests/test_readiness.py`` checks them. Single-node runs keep torchrun's console
(``logs/console.log``); multi-node runs are corpora/torchrun/run_multinode.py's jobs (one
torchrun agent per node, each in its own UTS and mount namespace with its own hostname),
kept as ``logs/<host>/console.log``, with their checkpoints in a folder every node sees
(bound at ``/mnt/nfs/...``, as an NFS mount) or in each node's own (``/mnt/localssd/...``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
TRAIN = HERE.parent / "torchrun" / "train.py"
sys.path.insert(0, str(HERE.parent / "torchrun"))

import run_multinode as multinode  # noqa: E402  (a script folder, not a package)
from generate_large import table  # noqa: E402


@dataclass(frozen=True)
class Run:
    name: str
    about: str
    rows: dict[str, str]  # feature -> the state the table must show (every row)
    scenario: str | None = None  # given to readiness (None: inferred)
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    local_ckpt: bool = False  # checkpoints under /tmp (a node's own disk)
    # run under this repo's ha-run (the restart controller: attempt_N/ folders, HA_RESUME
    # on later attempts), its log folder kept whole as the job's logs
    controller: bool = False


RUNS_ = [
    Run(
        "elastic-restart",
        "torchrun --max-restarts=2 at LOGLEVEL=INFO; rank 1 is killed at step 120 of the "
        "first attempt; the restarted workers resume from checkpoint-100",
        table("in_place", "in_place", "cannot_tell"),
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
        table("in_place", "missing", "cannot_tell"),
        env={"LOGLEVEL": "INFO", "FAULT": "kill", "FAULT_STEP": "120", "STEPS": "200"},
    ),
    Run(
        "local-checkpoints",
        "a clean run that saves its checkpoints under /tmp, judged as a multi-node job: a "
        "rescheduled job cannot see them",
        table("missing", "cannot_tell", "cannot_tell"),
        scenario="multi_node",
        env={"STEPS": "200"},
        local_ckpt=True,
    ),
    Run(
        "ha-run-restart",
        "torchrun under ha-run --max-attempts 3 (this repo's restart controller); rank 1 "
        "is killed at step 120 of attempt_0, ha-run decides a restart and attempt_1 resumes "
        "from checkpoint-100 (HA_RESUME=1) and completes",
        table("in_place", "in_place", "cannot_tell"),
        env={
            "FAULT": "kill",
            "FAULT_STEP": "120",
            "FAULT_ATTEMPTS": "0",
            "CKPT_EVERY": "50",
            "STEPS": "200",
        },
        controller=True,
    ),
    Run(
        "no-checkpoints",
        "a clean run that never saves (CKPT_EVERY beyond its 200 steps): a plain script's "
        "logs cannot say whether it saves below the level kept, so nothing is guessed",
        table("cannot_tell", "cannot_tell", "cannot_tell"),
        env={"STEPS": "200", "CKPT_EVERY": "1000"},
    ),
    Run(
        "default-logging",
        "a clean run at torchrun's default log level: no launch config, so the restart "
        "budget cannot be told",
        table("in_place", "cannot_tell", "cannot_tell"),
        env={"STEPS": "200"},
    ),
]


@dataclass(frozen=True)
class MultiRun:
    name: str
    about: str
    rows: dict[str, str]
    job: multinode.Job
    scenario: str | None = None
    # launched a second time after it fails, as a platform restarts a job: the attempts'
    # logs in logs/attempt_0/ and logs/attempt_1/ (ha-run's layout)
    relaunch: bool = False


_MN_ENV = {"RESUME": "1", "CKPT_EVERY": "50", "STEP_SLEEP": "0.01"}
MULTI = [
    MultiRun(
        "mn-shared-restart",
        "2 nodes x 2 ranks, torchrun --max-restarts=1 (agents at LOGLEVEL=INFO); checkpoints "
        "every 50 steps to /mnt/nfs/ha-job/ckpt, one folder both nodes see; global rank 3 "
        "is killed at step 80 of the first attempt and every rank of the restarted group "
        "resumes from checkpoint-50",
        table("in_place", "in_place", "cannot_tell"),
        multinode.Job(
            "mn-shared-restart",
            "kill",
            "unknown",
            rank=3,
            step=80,
            agent_info=True,
            max_restarts=1,
            ckpt_dir="/mnt/nfs/ha-job/ckpt",
            mounts=(("/mnt/nfs/ha-job", "shared"),),
            env={**_MN_ENV, "FAULT_ATTEMPTS": "0"},
        ),
    ),
    MultiRun(
        "mn-shared-relaunch",
        "2 nodes x 2 ranks, checkpoints every 50 steps to /mnt/nfs/ha-job/ckpt (one folder "
        "both nodes see); global rank 3 is killed at step 80 and the job fails; the "
        "platform launches it again (attempt_1/): every rank resumes from checkpoint-50 and "
        "the run completes",
        table("in_place", "in_place", "cannot_tell"),
        multinode.Job(
            "mn-shared-relaunch",
            "kill",
            "unknown",
            rank=3,
            step=80,
            ckpt_dir="/mnt/nfs/ha-job/ckpt",
            mounts=(("/mnt/nfs/ha-job", "shared"),),
            env={**_MN_ENV, "FAULT_ATTEMPTS": "0"},
        ),
        relaunch=True,
    ),
    MultiRun(
        "mn-local-relaunch",
        "the same job with its checkpoints in each node's own /mnt/localssd/ha-job/ckpt: "
        "in attempt_1/ the ranks of the node that saved resume from checkpoint-50, the "
        "others find no checkpoint and start at step 1, and the job fails again",
        # gloo's 20-second timeout shows when the second node's ranks wait in vain
        table("missing", "in_place", "in_place"),
        multinode.Job(
            "mn-local-relaunch",
            "kill",
            "unknown",
            rank=3,
            step=80,
            ckpt_dir="/mnt/localssd/ha-job/ckpt",
            mounts=(("/mnt/localssd/ha-job", "node"),),
            env={**_MN_ENV, "FAULT_ATTEMPTS": "0"},
        ),
        relaunch=True,
    ),
    MultiRun(
        "mn-shared-no-restart",
        "2 nodes x 2 ranks at torchrun's defaults (no --max-restarts, agents at WARNING) "
        "with shared checkpoints; a clean run: the restart budget cannot be told",
        table("in_place", "cannot_tell", "cannot_tell"),
        multinode.Job(
            "mn-shared-no-restart",
            "none",
            "none",
            ckpt_dir="/mnt/nfs/ha-job/ckpt",
            mounts=(("/mnt/nfs/ha-job", "shared"),),
            env={"CKPT_EVERY": "50"},
        ),
    ),
]


def record_multi(m: MultiRun, torchrun: str) -> None:
    out = RUNS / m.name
    shutil.rmtree(out, ignore_errors=True)
    scratch = Path(tempfile.mkdtemp(prefix="ha-readiness-mn-"))
    started = time.time()
    try:
        if not m.relaunch:
            result = multinode.run_job(m.job, scratch / m.name, torchrun)
            multinode.build_bundle(result, multinode.NODE_DIR, out / "logs", torchrun)
        for attempt in (0, 1) if m.relaunch else ():
            job = replace(m.job, env={**m.job.env, "HA_ATTEMPT": str(attempt)})
            result = multinode.run_job(job, scratch / m.name, torchrun, again=attempt > 0)
            dest = out / "logs" / f"attempt_{attempt}"
            multinode.build_bundle(result, multinode.NODE_DIR, dest, torchrun)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    env = multinode.job_env(m.job) | {"CKPT_DIR": m.job.ckpt_dir}
    label = {
        "about": m.about,
        "scenario": m.scenario,
        "rows": m.rows,
        "torch": "2.13.0",
        "hosts": list(m.job.hosts),
        "mounts": {path: kind for path, kind in m.job.mounts},
        "relaunched": m.relaunch,
        "command": " ".join(f"{k}={v}" for k, v in env.items())
        + " torchrun "
        + " ".join(multinode.torchrun_args(m.job, "<port>")),
        "node_command": "unshare --uts --mount sh -c 'mount --bind /workspace/hosts /etc/hosts "
        "&& hostname <node> && mount --bind <shared or node folder> <mount> && exec torchrun "
        "...'  # once per node, at once",
        "recorded": time.strftime("%Y-%m-%d"),
        "seconds": round(time.time() - started, 1),
    }
    (out / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    print(f"{m.name}: {label['seconds']} s")


def machine_paths(text: str, torchrun: str) -> str:
    """This machine's Python, home and name -> neutral ones (the torchrun corpus's
    words); /tmp stays, it is what a node-local checkpoint path looks like."""
    venv = str(Path(torchrun).resolve().parent.parent)
    text = text.replace(venv, "/workspace/venv")
    text = re.sub(r"(?<![\w.-])/root/", "/home/user/", text)
    return re.sub(rf"(?<![\w.-]){re.escape(socket.gethostname())}(?![\w-])", "gpu-node1", text)


def run(r: Run, torchrun: str) -> None:
    out = RUNS / r.name
    shutil.rmtree(out, ignore_errors=True)
    (out / "logs").mkdir(parents=True)
    work = Path(tempfile.mkdtemp(prefix="ha-readiness-"))
    ckpt = str(work / "ckpt") if r.local_ckpt else "checkpoints"
    env = {**os.environ, "CKPT_DIR": ckpt, **r.env}
    cmd = [torchrun, "--nproc-per-node=4", "--tee", "3", *r.args, str(TRAIN)]
    if r.controller:  # this checkout's ha-run, whatever is installed
        env["PYTHONPATH"] = str(HERE.parent.parent)
        ha_run = [sys.executable, "-m", "analyzer.ops.torchrun", "--log-dir", "logs"]
        cmd = [*ha_run, "--max-attempts", "3", "--", *cmd]
    started = time.time()
    proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300)

    def scrub(text: str) -> str:
        return machine_paths(
            text.replace(str(work), "/tmp/job").replace(str(TRAIN), "train.py"), torchrun
        )

    (out / "logs" / "console.log").write_text(scrub(proc.stdout + proc.stderr))
    for f in sorted((work / "logs").rglob("*")) if r.controller else ():
        if f.is_file():
            dest = out / "logs" / f.relative_to(work / "logs")
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(scrub(f.read_text(errors="replace")))
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
        + ("ha-run --log-dir logs --max-attempts 3 -- " if r.controller else "")
        + " ".join(["torchrun", "--nproc-per-node=4", "--tee", "3", *r.args, "train.py"]),
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
    for m in MULTI:
        if not args.names or m.name in args.names:
            record_multi(m, args.torchrun)


if __name__ == "__main__":
    sys.exit(main())
