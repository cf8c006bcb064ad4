"""ha-run: run a training command; when it fails or hangs, analyse, decide, restart or stop.

    ha-run [--log-dir DIR] [--policy P] [--max-attempts 5] -- torchrun --nproc-per-node 8 train.py
    python -m analyzer.ops.torchrun ...   (the same)

Each attempt gets `DIR/attempt_N/`: the launcher's output (`launcher.log`, also echoed),
torchrun's per-rank logs (`--log-dir DIR/attempt_N/ranks --tee 3` are added to a torchrun
command that has no `--log-dir`), the ranks' Flight Recorder dumps (`flight/`: NCCL
writes them on a collective timeout; unless the environment names another place), and,
after a failure, `verdict.json` and `decision.json`. The logs are watched while the job
runs: a confirmed hang kills the job's process group, so a hang costs the hang
threshold, not the collective timeout.
Restarts in place (auto_restart, checkpoint_resume, hang_restart, ...) are done here, with
`HA_ATTEMPT=N` and `HA_RESUME=1` in the environment so the script resumes from its newest
checkpoint; anything else ends the run with the decision's exit code
(analyzer.ops.policy: 0 none, 10 fix and resubmit, 200 restart, 201 pod reschedule, 202
isolate and reschedule), which an outer scheduler (Kubeflow's ExitCode policy retries
>= 128) acts on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from ..analysis import analyze
from ..job.timeline import HANG_FACTOR, HANG_MIN_GAP
from ..read.redact import redact
from ..types import AnalyzerError, Verdict
from .history import Attempt, load_history
from .policy import EXIT_NONE, EXIT_PERMANENT, EXIT_RESTART, Policy, decide, load_policy
from .watch import Watcher

_GRACE = 10.0  # default seconds between the stop signal and SIGKILL
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)  # forwarded to the job
# the ranks' faulthandler dumps reach their logs through torchrun's tee and ha-run's copy:
# waited for at least _DUMP_MIN seconds and until no log under the attempt has grown for
# _DUMP_QUIET (a fixed 3 s lost a dump's frames on a loaded machine), at most _DUMP_WAIT
_DUMP_MIN, _DUMP_QUIET, _DUMP_WAIT = 3.0, 1.0, 15.0


# Flight Recorder (analyzer.job.flight): NCCL ranks dump their collectives' records on a
# collective timeout; asked to write them into the attempt's folder, so the verdict reads
# them with the logs. What the user set is left alone.
_FLIGHT_FILE = ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
_FLIGHT_ON = {"TORCH_FR_BUFFER_SIZE": "2000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1"}


def flight_env(env: dict[str, str], attempt_dir: Path) -> dict[str, str]:
    """`env` with the ranks' Flight Recorder dumps going to `attempt_dir/flight/`."""
    out = dict(env)
    if not any(k in env for k in _FLIGHT_FILE):
        (attempt_dir / "flight").mkdir(parents=True, exist_ok=True)
        for key in _FLIGHT_FILE:  # torch 2.10 reads the first, earlier ones the second
            out[key] = str(attempt_dir / "flight" / "nccl_trace_rank_")
    if "TORCH_NCCL_TRACE_BUFFER_SIZE" not in env:
        for key, value in _FLIGHT_ON.items():
            out.setdefault(key, value)
    return out


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


class _Output:
    """The job's output, copied to the attempt's launcher.log and to ha-run's stdout by a
    thread that drains the job's pipe to its end whatever happens to either: a full
    disk (ENOSPC, EFBIG) or a closed stdout costs the bytes that could not be written,
    counted, never a job blocked in write() on a pipe nobody reads."""

    def __init__(self, log: IO[bytes]) -> None:
        self.log = log
        self.lock = threading.Lock()
        self.dropped = 0  # bytes launcher.log could not take
        self.error: str | None = None  # why, the first time
        self._echo = True

    def copy(self, src: IO[bytes]) -> None:
        for chunk in iter(lambda: src.read1(65536), b""):  # type: ignore[attr-defined]
            self.write(chunk)
            if self._echo:
                try:
                    sys.stdout.buffer.write(chunk)
                    sys.stdout.buffer.flush()
                except (OSError, ValueError):  # stdout closed or full: the log still gets it
                    self._echo = False

    def write(self, data: bytes) -> None:
        with self.lock:
            try:
                self.log.write(data)
            except OSError as e:
                self.dropped += len(data)
                self.error = self.error or f"{e.strerror or e}"

    def say(self, text: str) -> None:
        """A line of ha-run's own in the attempt's launcher.log, between whole lines of
        the job's output: what the supervisor did is evidence for a later analysis too
        (the kill that ends a hung job is ours, not a preemption)."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        self.write(f"\n{stamp} ha-run: {text}\n".encode())


def _descendants(root: int) -> list[int]:
    """Every live process below `root` (from /proc): torchrun's workers may leave its
    process group, so a stop that signals the group alone can leave them running."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])  # the name may hold spaces
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out


def _rank_of(pid: int) -> str | None:
    """The global rank a launcher gave a worker (`RANK` in its environment)."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    ranks = [v[5:].decode(errors="replace") for v in env if v.startswith(b"RANK=")]
    return ranks[0] if ranks and ranks[0].isdigit() else None


def _catches(pid: int, sig: signal.Signals) -> bool:
    """Whether the process installed a handler for `sig` (/proc's SigCgt mask): only then
    does sending it dump stacks (faulthandler.register) instead of killing the process."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


def snapshot(pid: int, out_dir: Path, stack_signal: signal.Signals = signal.SIGUSR1) -> list[str]:
    """Stacks of every worker of a hung job, before it is killed: `py-spy dump` of each
    into `out_dir/stacks/rank_N.txt` when py-spy is installed, else `stack_signal` to
    each worker that handles it (a trainer's `faulthandler.register`), whose dump goes to
    its own log. What was taken, for the record; never raises."""
    workers = [(p, _rank_of(p)) for p in _descendants(pid)]
    workers = [(p, r) for p, r in workers if r is not None]
    taken: list[str] = []
    spy = shutil.which("py-spy")
    if spy:
        (out_dir / "stacks").mkdir(parents=True, exist_ok=True)
        for p, rank in workers:
            try:
                r = subprocess.run(
                    [spy, "dump", "--pid", str(p)], capture_output=True, timeout=30, check=False
                )
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0 and r.stdout:
                name = f"stacks/rank_{rank}.txt"
                (out_dir / name).write_bytes(r.stdout)
                taken.append(name)
        if taken:
            return taken
    for p, rank in workers:
        if _catches(p, stack_signal):
            try:
                os.kill(p, stack_signal)
                taken.append(f"{stack_signal.name} to rank {rank} (pid {p})")
            except OSError:
                continue
    if taken:
        _settle(out_dir)
    return taken


def _settle(root: Path) -> None:
    """Wait _DUMP_MIN seconds, and on until no file under `root` has grown for
    _DUMP_QUIET, at most _DUMP_WAIT (a hung job that keeps logging, a heartbeat, only
    costs the limit)."""

    def sizes() -> dict[str, int]:
        out = {}
        for dirpath, _, names in os.walk(root):
            for name in names:
                path = os.path.join(dirpath, name)
                with contextlib.suppress(OSError):
                    out[path] = os.stat(path).st_size
        return out

    start = quiet_since = time.monotonic()
    last = sizes()
    while (t := time.monotonic()) - start < _DUMP_WAIT:
        if t - quiet_since >= _DUMP_QUIET and t - start >= _DUMP_MIN:
            return
        time.sleep(0.2)
        now = sizes()
        if now != last:
            last, quiet_since = now, time.monotonic()


def _stop(proc: subprocess.Popen[bytes], first: signal.Signals | None, grace: float) -> bool:
    """`first` to the job's process group (None: it was sent already), SIGKILL to the
    group and every process left below it after `grace` seconds (tini's and dumb-init's
    order). Whether SIGKILL was needed."""
    below = _descendants(proc.pid)
    try:
        os.killpg(proc.pid, first if first is not None else 0)
    except ProcessLookupError:
        return False
    try:
        proc.wait(grace)
        left = [p for p in below if Path(f"/proc/{p}").exists()]
        if not left:
            return False
    except subprocess.TimeoutExpired:
        left = below
    for target in left:
        with contextlib.suppress(OSError):
            os.kill(target, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return True


class _Signals:
    """The signals ha-run itself receives: recorded, and passed on to the job's whole
    process group the moment they arrive (a scheduler's SIGTERM must reach the training,
    not orphan it, whatever ha-run is doing: polling, taking stacks). Once one came, no
    new attempt starts."""

    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        self.job: subprocess.Popen[bytes] | None = None  # the attempt running now
        self._old = {s: signal.signal(s, self._on) for s in _SIGNALS}

    def _on(self, signum: int, _frame: object) -> None:
        self.received = signal.Signals(signum)
        job = self.job
        if job is not None and job.returncode is None:
            with contextlib.suppress(OSError):
                os.killpg(job.pid, signum)

    def restore(self) -> None:
        for s, handler in self._old.items():
            signal.signal(s, handler)


def run_attempt(
    cmd: list[str],
    attempt_dir: Path,
    env: dict[str, str],
    *,
    poll: float,
    hang_factor: float,
    hang_min_gap: float,
    grace: float = _GRACE,
    signals: _Signals | None = None,
) -> tuple[int, Verdict | None]:
    """Run one attempt to its end: its exit code, and the verdict taken when it was found
    hung (before it was stopped: the teardown that follows is ours, not its cause). A
    hung job's stacks are taken first; a signal ha-run receives is passed on. What the
    supervisor did is written to `supervisor.json`."""
    attempt_dir.mkdir(parents=True, exist_ok=True)
    watcher = Watcher([attempt_dir], hang_factor=hang_factor, hang_min_gap=hang_min_gap)
    # the command as a shell line, redacted: training commands take tokens and passwords
    # as arguments (--hf-token, --password), and this file is shared like a verdict
    record: dict[str, object] = {"command": redact(shlex.join(cmd)), "started": time.time()}
    # unbuffered: a full disk fails the write that met it, and nothing is left for
    # close() to fail on
    with open(attempt_dir / "launcher.log", "wb", buffering=0) as log:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        if signals is not None:
            signals.job = proc
        record["pid"] = proc.pid
        assert proc.stdout is not None
        out = _Output(log)
        copier = threading.Thread(target=out.copy, args=(proc.stdout,), daemon=True)
        copier.start()
        try:
            hung = _supervise(proc, watcher, out, record, attempt_dir, poll, grace, signals)
        finally:  # whatever went wrong here, the job is not left running on its own
            if proc.poll() is None:
                record["killed"] = _stop(proc, signal.SIGTERM, grace)
            if signals is not None:
                signals.job = None
            copier.join(5.0)
            if out.dropped:
                record["output_dropped"] = {"bytes": out.dropped, "error": out.error}
    record["exit_code"] = proc.wait()
    record["ended"] = time.time()
    _write(attempt_dir / "supervisor.json", json.dumps(record, indent=1) + "\n")
    return proc.returncode, hung


def _supervise(
    proc: subprocess.Popen[bytes],
    watcher: Watcher,
    out: _Output,
    record: dict[str, object],
    attempt_dir: Path,
    poll: float,
    grace: float,
    signals: _Signals | None,
) -> Verdict | None:
    """Poll the job until it ends, a signal stops it or a hang is confirmed (its
    verdict, taken before the stop). An analysis that fails is a note in the record and
    the job runs on, supervised without hang detection."""
    while proc.poll() is None:
        time.sleep(poll)
        if signals is not None and signals.received is not None:
            record["signal"] = signals.received.name
            out.say(f"got {signals.received.name}; passing it to the job")
            record["killed"] = _stop(proc, None, grace)
            return None
        if "analysis_error" in record:
            continue
        try:
            confirmed = any(e.kind == "hang_confirmed" for e in watcher.poll())
        except Exception as e:  # a bug in analysis must cost hang detection, not the job
            record["analysis_error"] = f"{type(e).__name__}: {e}"[:500]
            out.say(f"hang detection stopped: {record['analysis_error']}")
            continue
        if confirmed:
            record["hang_confirmed"] = time.time()
            stacks = snapshot(proc.pid, attempt_dir)
            record["stacks"] = stacks
            watcher.poll()  # the dumps the ranks just wrote
            hung = watcher.verdict()
            rank = hung.root_cause.rank if hung.root_cause else None
            out.say(
                "hang confirmed"
                + (f" on rank {rank}" if rank is not None else "")
                + f" (stacks: {len(stacks)}); stopping the job: SIGTERM, "
                f"SIGKILL after {grace:.0f} s"
            )
            record["killed"] = _stop(proc, signal.SIGTERM, grace)
            return hung
    return None


def _write(path: Path, text: str, mode: str = "w") -> None:
    """One of ha-run's own files; a full disk is said on stderr, never a reason to stop
    supervising or deciding."""
    try:
        with open(path, mode, encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"ha-run: could not write {path}: {e.strerror or e}", file=sys.stderr)


# seconds to analyse an attempt stopped by a signal (Kubernetes' default grace is 30 s)
_SIGNAL_DEADLINE = 5.0


def _record(adir: Path, log_dir: Path, verdict: Verdict) -> None:
    """An attempt's verdict: its `verdict.json`, and a line of the job's `verdicts.jsonl`."""
    _write(adir / "verdict.json", json.dumps(verdict.to_dict(), indent=1) + "\n")
    _write(log_dir / "verdicts.jsonl", json.dumps(verdict.to_dict()) + "\n", "a")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="ha-run",
        description=__doc__.split("\n")[0] if __doc__ else None,
        epilog="Exit codes: 0 the job succeeded; 10 stop (fix and resubmit); 200 restart, 201 "
        "reschedule the pod, 202 isolate the node (for an outer scheduler); 128+N when ha-run "
        "itself got signal N (passed on to the job first).",
    )
    ap.add_argument(
        "--log-dir",
        type=Path,
        default=Path("ha-run-logs"),
        help="where each attempt's logs, verdict.json, decision.json and supervisor.json go "
        "(DIR/attempt_N/; default: %(default)s)",
    )
    ap.add_argument("--policy", help="recovery policy YAML (default: the taxonomy's)")
    ap.add_argument("--history", help="verdicts of earlier runs of this job (JSON lines)")
    ap.add_argument(
        "--max-attempts", type=int, default=5, help="hard cap on attempts here (default: 5)"
    )
    ap.add_argument(
        "--deadline", type=float, default=60.0, help="seconds per analysis (default: 60)"
    )
    ap.add_argument(
        "--hang-factor",
        type=float,
        default=HANG_FACTOR,
        help="a hang is progress stopped for this many times a rank's median step... "
        "(default: %(default)s)",
    )
    ap.add_argument(
        "--hang-min-gap",
        type=float,
        default=HANG_MIN_GAP,
        help="...and at least this many seconds (default: %(default)s)",
    )
    ap.add_argument(
        "--poll", type=float, default=2.0, help="seconds between log polls (default: 2)"
    )
    ap.add_argument(
        "--grace",
        type=float,
        default=_GRACE,
        help="seconds a stopped job gets between the stop signal and SIGKILL (default: "
        "%(default)s). A hung job's stacks are taken first: py-spy dump of every rank when "
        "py-spy is installed, else SIGUSR1 to ranks that registered faulthandler for it",
    )
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- the training command")
    args = ap.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command given (put it after --)")
    for name in ("poll", "deadline", "hang_factor", "grace", "hang_min_gap", "max_attempts"):
        got = getattr(args, name)
        zero = name in ("grace", "hang_min_gap")  # may be 0; the others must be above it
        if not math.isfinite(got) or got < 0 or (got == 0 and not zero):
            ap.error(f"--{name.replace('_', '-')}: a finite number above 0, not {got}")
    try:
        policy = load_policy(args.policy) if args.policy else None
        notes: list[str] = []
        history = load_history(args.history, notes) if args.history else []
        for note in notes:
            print(f"ha-run: {note}", file=sys.stderr)
    except AnalyzerError as e:
        ap.error(str(e))
    signals = _Signals()
    try:
        return _attempts(args, cmd, policy, history, signals)
    finally:
        signals.restore()


def _attempts(
    args: argparse.Namespace,
    cmd: list[str],
    policy: Policy | None,
    history: list[Attempt],
    signals: _Signals,
) -> int:
    code = EXIT_PERMANENT
    for n in range(args.max_attempts):
        adir = args.log_dir / f"attempt_{n}"
        env = dict(os.environ, HA_ATTEMPT=str(n), HA_RESUME="1" if n else "0")
        rc, hung = run_attempt(
            _with_logs(cmd, adir),
            adir,
            flight_env(env, adir),
            poll=args.poll,
            hang_factor=args.hang_factor,
            hang_min_gap=args.hang_min_gap,
            grace=args.grace,
            signals=signals,
        )
        if signals.received is not None:  # stopped from outside: the scheduler decides
            # the attempt's verdict still goes on record (its launcher log ends with our
            # note of the signal: preempted), within a deadline a pod's grace period allows
            _record(adir, args.log_dir, analyze(adir, failed=True, deadline=_SIGNAL_DEADLINE))
            print(
                f"ha-run: got {signals.received.name}; passed it to the job, which exited "
                f"{rc} (attempt {n}; {adir / 'verdict.json'})",
                file=sys.stderr,
            )
            return 128 + int(signals.received)
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
        _record(adir, args.log_dir, verdict)
        _write(adir / "decision.json", json.dumps(decision.to_dict(), indent=1) + "\n")
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
        if signals.received is not None:  # a stop asked while we analysed: no new attempt
            print(f"ha-run: got {signals.received.name}; no new attempt", file=sys.stderr)
            return 128 + int(signals.received)
    print(f"ha-run: {args.max_attempts} attempts used; giving up here", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
