"""ha-run: run a training command; when it fails or hangs, analyse, decide, restart or stop.

    ha-run [--log-dir DIR] [--policy P] [--max-attempts 5] -- torchrun --nproc-per-node 8 train.py
    python -m analyzer.torchrun ...   (the same)

Each attempt gets `DIR/attempt_N/`: the launcher's output (`launcher.log`, also echoed),
torchrun's per-rank logs (`--log-dir DIR/attempt_N/ranks --tee 3` are added to a torchrun
command that has no `--log-dir`), and, after a failure, `verdict.json` and
`decision.json`. The logs are watched while the job runs: a confirmed hang kills the
job's process group, so a hang costs the hang threshold, not the collective timeout.
Restarts in place (auto_restart, checkpoint_resume, hang_restart, ...) are done here, with
`HA_ATTEMPT=N` and `HA_RESUME=1` in the environment so the script resumes from its newest
checkpoint; anything else ends the run with the decision's exit code
(analyzer.policy: 0 none, 10 fix and resubmit, 200 restart, 201 pod reschedule, 202
isolate and reschedule), which an outer scheduler (Kubeflow's ExitCode policy retries
>= 128) acts on.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from .analysis import analyze
from .history import Attempt, load_history
from .policy import EXIT_NONE, EXIT_PERMANENT, EXIT_RESTART, decide, load_policy
from .timeline import HANG_FACTOR, HANG_MIN_GAP
from .types import AnalyzerError, Verdict
from .watch import Watcher

_GRACE = 10.0  # seconds between SIGTERM and SIGKILL when a hung job is stopped


def _with_logs(cmd: list[str], attempt_dir: Path) -> list[str]:
    """torchrun keeps per-rank logs only when asked; ask, unless the user did."""
    launcher = Path(cmd[0]).name
    is_torchrun = launcher == "torchrun" or cmd[:3] == [
        sys.executable,
        "-m",
        "torch.distributed.run",
    ]
    if not is_torchrun or any(a.startswith("--log-dir") or a.startswith("--log_dir") for a in cmd):
        return cmd
    at = 1 if launcher == "torchrun" else 3
    return [*cmd[:at], "--log-dir", str(attempt_dir / "ranks"), "--tee", "3", *cmd[at:]]


def _copy(src: IO[bytes], log: IO[bytes]) -> None:
    for chunk in iter(lambda: src.read1(65536), b""):  # type: ignore[attr-defined]
        log.write(chunk)
        log.flush()
        sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()


def _stop(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, _GRACE), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_attempt(
    cmd: list[str],
    attempt_dir: Path,
    env: dict[str, str],
    *,
    poll: float,
    hang_factor: float,
    hang_min_gap: float,
) -> tuple[int, Verdict | None]:
    """Run one attempt to its end: its exit code, and the verdict taken when it was found
    hung (before it was stopped: the teardown that follows is ours, not its cause)."""
    attempt_dir.mkdir(parents=True, exist_ok=True)
    watcher = Watcher([attempt_dir], hang_factor=hang_factor, hang_min_gap=hang_min_gap)
    with open(attempt_dir / "launcher.log", "wb") as log:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        assert proc.stdout is not None
        copier = threading.Thread(target=_copy, args=(proc.stdout, log), daemon=True)
        copier.start()
        hung = None
        while proc.poll() is None:
            time.sleep(poll)
            if any(e.kind == "hang_confirmed" for e in watcher.poll()):
                hung = watcher.verdict()
                _stop(proc)
        copier.join(5.0)
    return proc.wait(), hung


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="ha-run", description=__doc__.split("\n")[0] if __doc__ else None
    )
    ap.add_argument("--log-dir", type=Path, default=Path("ha-run-logs"))
    ap.add_argument("--policy", help="recovery policy YAML (default: the taxonomy's)")
    ap.add_argument("--history", help="verdicts of earlier runs of this job (JSON lines)")
    ap.add_argument("--max-attempts", type=int, default=5, help="hard cap on attempts here")
    ap.add_argument("--deadline", type=float, default=60.0, help="seconds per analysis")
    ap.add_argument("--hang-factor", type=float, default=HANG_FACTOR)
    ap.add_argument("--hang-min-gap", type=float, default=HANG_MIN_GAP)
    ap.add_argument("--poll", type=float, default=2.0, help="seconds between log polls")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- the training command")
    args = ap.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command given (put it after --)")
    try:
        policy = load_policy(args.policy) if args.policy else None
        history = load_history(args.history) if args.history else []
    except AnalyzerError as e:
        ap.error(str(e))
    code = EXIT_PERMANENT
    for n in range(args.max_attempts):
        adir = args.log_dir / f"attempt_{n}"
        env = dict(os.environ, HA_ATTEMPT=str(n), HA_RESUME="1" if n else "0")
        rc, hung = run_attempt(
            _with_logs(cmd, adir),
            adir,
            env,
            poll=args.poll,
            hang_factor=args.hang_factor,
            hang_min_gap=args.hang_min_gap,
        )
        if rc == 0 and hung is None:
            return EXIT_NONE
        verdict = hung or analyze(
            adir,
            failed=rc != 0,
            deadline=args.deadline,
            hang_factor=args.hang_factor,
            hang_min_gap=args.hang_min_gap,
        )
        decision = decide(Attempt.of(verdict), history, policy)
        (adir / "verdict.json").write_text(json.dumps(verdict.to_dict(), indent=1) + "\n")
        (adir / "decision.json").write_text(json.dumps(decision.to_dict(), indent=1) + "\n")
        with open(args.log_dir / "verdicts.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(verdict.to_dict()) + "\n")
        print(
            f"ha-run: attempt {n} {'hung' if hung else f'exited {rc}'}: {verdict.category} "
            f"-> {decision.action} {decision.recovery} (exit {decision.exit_code}): "
            f"{decision.reason}",
            file=sys.stderr,
        )
        history.append(Attempt.of(verdict))
        code = decision.exit_code
        if code != EXIT_RESTART:
            return code
    print(f"ha-run: {args.max_attempts} attempts used; giving up here", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
