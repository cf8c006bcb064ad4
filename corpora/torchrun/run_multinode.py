"""Run train.py as real multi-node torchrun jobs on this one machine and keep the logs.

    python corpora/torchrun/run_multinode.py [--torchrun PATH] [--list] [JOB...]

Every "node" is one torchrun agent (``--nnodes N --nproc-per-node 2``, c10d rendezvous on
127.0.0.1) started in its own UTS and mount namespace::

    unshare --uts --mount sh -c 'mount --bind HOSTS /etc/hosts && hostname NODE && exec torchrun ...'

so it has its own hostname (``gpu-b03``, ``llama-pretrain-worker-1``, ``dgx-013``) and an
``/etc/hosts`` in which every node's name resolves (to its own 127.0.1.x address), as on a
cluster. Each node runs in its own folder (its "local disk"); their outputs are read line by
line as they are produced and written, at once, as the node's plain console, as
``kubectl logs --timestamps`` would show it (an RFC3339Nano UTC timestamp and a space before
every line) and into one Slurm-style file for the whole job (``N: `` before every line, N
being the node's srun task id, as ``srun --label`` does). Every rank also writes where it
really ran (global rank, local rank, node rank, hostname, pid) to a side file outside the
logs (train.py's ``RANK_INFO_DIR``): the labels' ground truth.

One job can be saved in several layouts (the same run, different platform conventions),
each bundle as ``multinode/<job>-<layout>/logs/`` with a ``label.json`` beside it. Scrubbing
is run_all.py's (this machine's paths; the nodes' hostnames are kept: they are the point).

A job can also lose a whole node (``Job.lose_host``, the ``lost-*`` jobs): when that node's
local rank 0 prints step ``lose_step`` on its console, the runner SIGKILLs, from outside and
at once, the node's agent's process group and every descendant of the agent (its ranks), as a
power loss would end them; the node's logs just stop and its survivors report the loss.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from run_all import (  # noqa: E402  (this folder is not a package)
    DEFAULT_TORCHRUN,
    MAX_FILE,
    RECOVERY,
    TRAIN,
    Scenario,
    fault_env,
    free_port,
    scrub_bytes,
    scrub_tree,
    scrubber,
    torch_version,
)

MULTINODE = HERE / "multinode"
RUN_TIMEOUT = 150  # seconds; a hang job takes about 45
STEPS = 150
CKPT_EVERY = 50
MEMCG_ROOT = Path("/sys/fs/cgroup/memory")
CATEGORY_RECOVERY = RECOVERY | {"unknown": "unconditional_restart"}

# Layouts: how a platform collects the logs of one multi-node job.
NODE_DIR = "node-dir"  # <host>/console.log (the node's torchrun console, --tee 3)
NODE_FILE = "node-file"  # <host>.log at the top
LOGDIR = "logdir"  # <host>/launcher.log + <host>/<run_id>_<x>/attempt_0/<local_rank>/...
KUBECTL = "kubectl"  # <pod>.log as `kubectl logs --timestamps <pod>` prints it
SLURM = "slurm"  # slurm-<jobid>.out: every node's output, `srun --label` prefixes
LAYOUTS = (NODE_DIR, NODE_FILE, LOGDIR, KUBECTL, SLURM)
BARE = (NODE_DIR, NODE_FILE, LOGDIR)

GPU2 = ("gpu-a17", "gpu-b03")
GPU3 = ("gpu-a17", "gpu-b03", "gpu-c11")
PODS = ("llama-pretrain-worker-0", "llama-pretrain-worker-1")
DGX2 = ("dgx-012", "dgx-013")
DGX3 = ("dgx-012", "dgx-013", "dgx-014")
# Slurm's node list is in numeric order (task 0 on dgx-9), torch's rendezvous sorts the
# nodes' names as strings ("dgx-10" < "dgx-9"): srun task 0 is node rank 1 here.
DGX_UNPADDED = ("dgx-9", "dgx-10")


@dataclass(frozen=True)
class Job(Scenario):
    """A multi-node scenario: run_all's Scenario plus where and how it runs.

    ``rank`` is a GLOBAL rank; ``evidence`` is (where, literal) with ``where`` one of
    ``stdout``/``stderr`` (the rank's own stream), ``launcher`` (its node's torchrun output)
    or ``dmesg`` (its node's kernel log), and the literal may use ``{rank}``,
    ``{local_rank}`` and ``{pid}`` (filled from the ground truth) or be ``last-progress``.
    """

    layout: str = "multinode"
    hosts: tuple[str, ...] = GPU2  # in platform order: srun task id / pod ordinal
    nproc: int = 2
    layouts: tuple[str, ...] = BARE
    log_rank: bool = True  # train.py's LOG_RANK: "[rank N]" in its log lines
    agent_info: bool = False  # LOGLEVEL=INFO for the agents (rendezvous result, ranks)
    memcg_mb: int | None = None  # each node (agent + workers) in a memory cgroup this big
    rdzv_id: str | None = None  # torchrun --rdzv-id (default: the job name)
    slurm_job: int = 0  # the Slurm job id of the slurm layout
    max_restarts: int = 0  # torchrun --max-restarts
    ckpt_dir: str = "checkpoints"  # train.py's CKPT_DIR, as every node sees it
    # folders bound into every node's mount namespace: (path, "shared") is one folder all
    # nodes see (an NFS mount), (path, "node") each node's own (a local SSD)
    mounts: tuple[tuple[str, str], ...] = ()
    ckpt_every: int = CKPT_EVERY  # train.py's CKPT_EVERY
    # A lost node (power loss, kernel panic): when `lose_host`'s local rank 0 prints step
    # `lose_step` on the node's console, the runner (not the job) SIGKILLs that node's agent
    # process group and every descendant of the agent (its ranks, each in a session of its
    # own) at once. Its logs just stop; the label names it (category unknown).
    lose_host: str | None = None
    lose_step: int = 40
    lose_node_rank: int | None = None  # the node rank the rendezvous must give it (checked)
    # started alone, the others only once its agent listens on the rendezvous port: so this
    # node's agent hosts the c10d rendezvous store (checked), not whichever bound it first
    first_host: str | None = None


LOST_ENV = {"STEP_SLEEP": "0.05"}  # 50 ms steps: a step line every 0.5 s, a kill on time

JOBS: tuple[Job, ...] = (
    Job("mn-none", "none", "none", about="clean 2x2 run, 150 steps, 3 checkpoints"),
    Job(
        "mn-raise",
        "raise",
        "user_code_error",
        rank=3,
        step=70,
        agent_info=True,
        evidence=("stderr", "[rank{rank}]: KeyError: 'input'"),
        about="global rank 3 (node 1, local rank 1) indexes a missing batch key; agents at INFO",
    ),
    Job(
        "mn-shape",
        "shape",
        "user_code_error",
        rank=2,
        step=50,
        log_rank=False,
        evidence=(
            "stderr",
            "[rank{rank}]: RuntimeError: mat1 and mat2 shapes cannot be multiplied",
        ),
        about="global rank 2 (node 1, local rank 0) gets a batch one column too wide",
    ),
    Job(
        "mn-hang",
        "hang",
        "hang",
        rank=3,
        step=100,
        log_rank=False,
        agent_info=True,
        evidence=("stdout", "last-progress"),
        about="global rank 3 stalls before step 100; the other three hit the 20 s gloo timeout",
    ),
    Job(
        "mn-nan",
        "nan",
        "numerical_error",
        rank=2,
        step=90,
        log_rank=False,
        evidence=("stdout", "Loss is nan, stopping training"),
        about="global rank 2's batch holds a NaN; it logs 'Loss is nan' and exits 1",
    ),
    Job(
        "mn-exit",
        "exit",
        "unknown",
        rank=3,
        step=80,
        log_rank=False,
        evidence=("launcher", "failed (exitcode: 1) local_rank: {local_rank} (pid: {pid})"),
        about="global rank 3 calls os._exit(1): no message, no traceback, no error file",
    ),
    Job(
        "mn-oomkill",
        "oomkill",
        "host_oom",
        rank=3,
        step=60,
        memcg_mb=1536,
        layouts=(NODE_DIR, LOGDIR),
        evidence=("dmesg", "Killed process {pid} (python3)"),
        about="every node in a 1.5 GiB memory cgroup; global rank 3 grows host memory until "
        "the kernel's OOM killer kills it (dmesg of the run kept as the node's kernel log)",
    ),
    Job(
        "mn3-raise",
        "raise",
        "user_code_error",
        rank=5,
        step=60,
        hosts=GPU3,
        log_rank=False,
        layouts=(NODE_DIR, LOGDIR),
        evidence=("stderr", "[rank{rank}]: KeyError: 'input'"),
        about="3x2: global rank 5 (node 2, local rank 1) indexes a missing batch key",
    ),
    Job(
        "k8s-none",
        "none",
        "none",
        hosts=PODS,
        layouts=(KUBECTL,),
        rdzv_id="llama-pretrain",
        about="clean run, two pods",
    ),
    Job(
        "k8s-raise",
        "raise",
        "user_code_error",
        rank=2,
        step=70,
        hosts=PODS,
        layouts=(KUBECTL,),
        rdzv_id="llama-pretrain",
        evidence=("stderr", "[rank{rank}]: KeyError: 'input'"),
        about="pod worker-1's local rank 0 (global rank 2) indexes a missing batch key",
    ),
    Job(
        "k8s-hang",
        "hang",
        "hang",
        rank=3,
        step=110,
        hosts=PODS,
        layouts=(KUBECTL,),
        log_rank=False,
        rdzv_id="llama-pretrain",
        evidence=("stdout", "last-progress"),
        about="global rank 3 (pod worker-1) stalls; the others time out after 20 s",
    ),
    Job(
        "k8s-exit",
        "exit",
        "unknown",
        rank=3,
        step=80,
        hosts=PODS,
        layouts=(KUBECTL,),
        log_rank=False,
        agent_info=True,
        rdzv_id="llama-pretrain",
        evidence=("launcher", "failed (exitcode: 1) local_rank: {local_rank} (pid: {pid})"),
        about="global rank 3 (pod worker-1) exits 1 silently; agents at INFO",
    ),
    Job(
        "slurm-none",
        "none",
        "none",
        hosts=DGX2,
        layouts=(SLURM,),
        slurm_job=48213,
        about="clean run, two Slurm nodes",
    ),
    Job(
        "slurm-shape",
        "shape",
        "user_code_error",
        rank=3,
        step=50,
        hosts=DGX2,
        layouts=(SLURM,),
        slurm_job=48217,
        evidence=(
            "stderr",
            "[rank{rank}]: RuntimeError: mat1 and mat2 shapes cannot be multiplied",
        ),
        about="global rank 3 (dgx-013, srun task 1) gets a batch one column too wide",
    ),
    Job(
        "slurm-nan",
        "nan",
        "numerical_error",
        rank=2,
        step=90,
        hosts=DGX2,
        layouts=(SLURM,),
        log_rank=False,
        slurm_job=48220,
        evidence=("stdout", "Loss is nan, stopping training"),
        about="global rank 2 (dgx-013) logs 'Loss is nan' (no [rank N] in the trainer's lines)",
    ),
    Job(
        "slurm-hang",
        "hang",
        "hang",
        rank=3,
        step=100,
        hosts=DGX_UNPADDED,
        layouts=(SLURM,),
        log_rank=False,
        agent_info=True,
        slurm_job=48226,
        evidence=("stdout", "last-progress"),
        about="nodes dgx-9 (srun task 0) and dgx-10 (task 1): the rendezvous makes dgx-10 node "
        "rank 0, so global rank 3 runs on dgx-9 under the '0: ' label; it stalls",
    ),
    Job(
        "slurm-exit",
        "exit",
        "unknown",
        rank=2,
        step=80,
        hosts=DGX_UNPADDED,
        layouts=(SLURM,),
        slurm_job=48231,
        evidence=("launcher", "failed (exitcode: 1) local_rank: {local_rank} (pid: {pid})"),
        about="as slurm-hang's nodes: global rank 2 (dgx-9, srun task 0) exits 1 silently",
    ),
    Job(
        "slurm3-exit",
        "exit",
        "unknown",
        rank=4,
        step=80,
        hosts=DGX3,
        layouts=(SLURM,),
        log_rank=False,
        slurm_job=48240,
        evidence=("launcher", "failed (exitcode: 1) local_rank: {local_rank} (pid: {pid})"),
        about="3x2: global rank 4 (dgx-014, node 2, local rank 0) exits 1 silently",
    ),
    Job(
        "lost-b",
        "none",
        "unknown",
        layouts=(NODE_DIR, NODE_FILE, LOGDIR, KUBECTL, SLURM),
        env=LOST_ENV,
        slurm_job=48250,
        lose_host="gpu-b03",
        lose_step=40,
        lose_node_rank=1,
        first_host="gpu-a17",
        about="node gpu-b03 (node rank 1, global ranks 2, 3) is lost at step 40 of 150: its "
        "agent and both ranks SIGKILLed at once from outside; gpu-a17 hosts the stores and "
        "its ranks lose their peers",
    ),
    Job(
        "lost-a",
        "none",
        "unknown",
        layouts=(NODE_DIR, KUBECTL),
        env=LOST_ENV,
        agent_info=True,
        lose_host="gpu-a17",
        lose_step=40,
        lose_node_rank=0,
        first_host="gpu-a17",
        about="node gpu-a17 (node rank 0, global ranks 0, 1), whose agent hosts the c10d "
        "rendezvous store and the workers' store, is lost at step 40 of 150; agents at INFO",
    ),
    Job(
        "lost-3n",
        "none",
        "unknown",
        hosts=GPU3,
        layouts=(NODE_DIR, LOGDIR),
        env=LOST_ENV,
        log_rank=False,
        lose_host="gpu-b03",
        lose_step=40,
        lose_node_rank=1,
        first_host="gpu-a17",
        about="3x2: the middle node gpu-b03 (node rank 1, global ranks 2, 3) is lost at step "
        "40 of 150; gpu-a17 (the stores) and gpu-c11 survive",
    ),
    Job(
        "lost-ckpt",
        "none",
        "unknown",
        layouts=(NODE_DIR,),
        env=LOST_ENV,
        ckpt_every=20,
        lose_host="gpu-b03",
        lose_step=50,
        lose_node_rank=1,
        first_host="gpu-a17",
        about="as lost-b with a checkpoint every 20 steps, the node lost at step 50: the last "
        "checkpoint before the loss is checkpoint-40.pt (saved by rank 0 on gpu-a17)",
    ),
)
BY_NAME = {j.name: j for j in JOBS}


@dataclass
class Node:
    host: str
    index: int  # position in Job.hosts: srun task id / pod ordinal
    folder: Path  # the node's working folder (train.py, logs/, checkpoints/)
    addr: str  # its address in the shared /etc/hosts
    cgroup: Path | None = None
    proc: subprocess.Popen[bytes] | None = None
    tap: threading.Thread | None = None
    watch: tuple[re.Pattern[bytes], threading.Event] | None = None  # the line a kill awaits


@dataclass
class Loss:
    """A node lost on purpose: what was killed, when, and who hosted the c10d store."""

    host: str
    step: int  # the step line whose arrival triggered the kill
    trigger: str  # that line, as the node's console showed it
    at: float  # epoch of the kill
    agent_pid: int
    pids: list[int]  # the agent's process group and every descendant, all SIGKILLed
    store_hosts: list[str]  # nodes whose agent listened on the rendezvous port at the kill


@dataclass
class Run:
    """What one job left behind (unscrubbed) and its ground truth."""

    job: Job
    work: Path
    nodes: list[Node]
    ranks: list[dict[str, object]]
    seconds: float
    start_epoch: float
    dmesg: dict[str, list[str]] = field(default_factory=dict)  # host -> raw dmesg lines
    boot_epoch: float = 0.0
    loss: Loss | None = None

    def capture(self, node: Node, kind: str) -> Path:
        return self.work / "capture" / f"{node.host}.{kind}"


def default_torchrun() -> str:
    beside = Path(sys.executable).parent / "torchrun"
    return str(beside) if beside.is_file() else DEFAULT_TORCHRUN


def rfc3339nano(ns: int) -> bytes:
    """As kubelet writes `kubectl logs --timestamps`: UTC, always nine fraction digits."""
    secs, frac = divmod(ns, 1_000_000_000)
    stamp = datetime.fromtimestamp(secs, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{frac:09d}Z".encode()


class SlurmSink:
    """One slurm-<jobid>.out for the whole job: `srun --label` puts `N: ` before each line."""

    def __init__(self, path: Path, ntasks: int) -> None:
        self.out = open(path, "wb")  # noqa: SIM115  (closed by close())
        self.width = len(str(ntasks - 1))
        self.lock = threading.Lock()

    def write(self, task: int, line: bytes) -> None:
        with self.lock:
            self.out.write(b"%0*d: " % (self.width, task) + line)
            self.out.flush()

    def close(self) -> None:
        self.out.close()


def tap(
    stream: IO[bytes],
    console: Path,
    kube: Path,
    slurm: SlurmSink,
    task: int,
    watch: tuple[re.Pattern[bytes], threading.Event] | None = None,
) -> None:
    """Read a node's output line by line as it comes and write it three ways at once;
    with `watch`, set its event once a line matching its pattern has been written."""
    with open(console, "wb") as plain, open(kube, "wb") as stamped:
        for line in iter(stream.readline, b""):
            now = time.time_ns()
            plain.write(line)
            stamped.write(rfc3339nano(now) + b" " + line)
            plain.flush()
            stamped.flush()
            slurm.write(task, line)
            if watch is not None and not watch[1].is_set() and watch[0].search(line):
                watch[1].set()
    stream.close()


def own_memcg() -> Path | None:
    """This process's cgroup v1 memory folder (new cgroups go below it)."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if "memory" in controllers.split(","):
                folder = MEMCG_ROOT / path.lstrip("/")
                return folder if folder.is_dir() else None
    except OSError:
        return None
    return None


def make_cgroups(job: Job, nodes: list[Node]) -> None:
    base = own_memcg()
    if base is None:
        raise RuntimeError(f"{job.name}: no cgroup v1 memory controller at {MEMCG_ROOT}")
    assert job.memcg_mb is not None
    for node in nodes:
        cg = base / "ha-corpus" / job.name / node.host
        cg.mkdir(parents=True, exist_ok=True)
        (cg / "memory.limit_in_bytes").write_text(str(job.memcg_mb << 20))
        node.cgroup = cg


def remove_cgroups(nodes: list[Node]) -> None:
    for node in nodes:
        cg = node.cgroup
        if cg is None or not cg.exists():
            continue
        for _ in range(50):
            try:
                cg.rmdir()
                break
            except OSError:
                for pid in (cg / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(int(pid), signal.SIGKILL)
                time.sleep(0.1)
        for parent in (cg.parent, cg.parent.parent):
            with contextlib.suppress(OSError):
                parent.rmdir()


def oom_kills(cg: Path) -> int:
    for line in (cg / "memory.oom_control").read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill":
            return int(value)
    return 0


def uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


DMESG_LINE = re.compile(r"^\[\s*(\d+\.\d+)\]")


def dmesg_window(since: float, until: float) -> list[str]:
    out = subprocess.run(["dmesg"], capture_output=True, text=True, check=True).stdout
    keep = []
    for line in out.splitlines():
        m = DMESG_LINE.match(line)
        if m and since <= float(m.group(1)) <= until:
            keep.append(line)
    return keep


def torchrun_args(job: Job, port: int | str) -> list[str]:
    return [
        "--nnodes",
        str(len(job.hosts)),
        "--nproc-per-node",
        str(job.nproc),
        "--rdzv-backend",
        "c10d",
        "--rdzv-endpoint",
        f"127.0.0.1:{port}",
        "--rdzv-id",
        job.rdzv_id or job.name,
        *([f"--max-restarts={job.max_restarts}"] if job.max_restarts else []),
        "--tee",
        "3",
        "--log-dir",
        "logs",
        "train.py",
    ]


def job_env(job: Job) -> dict[str, str]:
    """The job's own environment (the same on every node), as in its label's command."""
    env = fault_env(job) | {
        "STEPS": str(STEPS),
        "CKPT_EVERY": str(job.ckpt_every),
        "LOG_RANK": "1" if job.log_rank else "0",
    }
    if job.agent_info:
        env["LOGLEVEL"] = "INFO"
    return env


def node_script(
    node: Node, hosts_file: Path, torchrun_cmd: str, binds: tuple[tuple[Path, str], ...] = ()
) -> str:
    steps = [f"mount --bind {hosts_file} /etc/hosts", f"hostname {node.host}"]
    steps += [f"mount --bind {source} {target}" for source, target in binds]
    if node.cgroup is not None:
        steps.append(f"echo $$ > {node.cgroup / 'cgroup.procs'}")
    return " && ".join([*steps, f"exec {torchrun_cmd}"])


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def proc_stat(pid: int | str) -> tuple[str, int] | None:
    """(state, ppid) of a process from /proc/<pid>/stat, None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the command name may hold spaces
    return fields[0], int(fields[1])


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (torchelastic starts each worker in a session of its own,
    so the agent's process group does not hold them)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and (st := proc_stat(d.name)) is not None:
            children.setdefault(st[1], []).append(int(d.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def lose_node(node: Node) -> list[int]:
    """Kill a whole node at once, as a power loss would: SIGKILL to its agent's process
    group (``exec torchrun`` in a new session: the agent is its leader) and to every
    descendant of the agent. Nothing of the node runs afterwards (checked)."""
    assert node.proc is not None
    agent = node.proc.pid
    below = descendants(agent)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(agent, signal.SIGKILL)
    for pid in below:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    pids = [agent, *below]
    for _ in range(100):
        alive = [p for p in pids if (st := proc_stat(p)) is not None and st[0] != "Z"]
        if not alive:
            return pids
        time.sleep(0.05)
    raise RuntimeError(f"{node.host}: still running after SIGKILL: {alive}")


def port_listeners(port: int) -> set[int]:
    """The pids holding a listening TCP socket on ``port`` (any address)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                cols = row.split()
                if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{cols[9]}]")
    pids: set[int] = set()
    if not inodes:
        return pids
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (d / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        pids.add(int(d.name))
                        break
    return pids


def run_job(job: Job, work: Path, torchrun: str, again: bool = False) -> Run:
    """Run one job in ``work`` (made empty first): one torchrun agent per node. `again`
    keeps the nodes' folders and disks of an earlier run in ``work``: the job launched
    once more, as a platform restarts it."""
    if not again:
        shutil.rmtree(work, ignore_errors=True)
    for old in ("capture", "rankinfo"):
        shutil.rmtree(work / old, ignore_errors=True)
    (work / "capture").mkdir(parents=True)
    nodes = [
        Node(host, i, work / "nodes" / host, f"127.0.1.{11 + i}")
        for i, host in enumerate(job.hosts)
    ]
    hosts_file = work / "hosts"
    hosts_file.write_text("127.0.0.1 localhost\n" + "".join(f"{n.addr} {n.host}\n" for n in nodes))
    rank_info = work / "rankinfo"
    base_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("FAULT", "TORCHELASTIC", "LOGLEVEL", "SLURM", "MASTER_"))
    }
    port = free_port()
    torchrun_cmd = " ".join([torchrun, *torchrun_args(job, port)])
    if job.memcg_mb is not None:
        make_cgroups(job, nodes)
    slurm = SlurmSink(work / "capture" / "slurm.out", len(nodes))
    t0 = time.time()
    up0 = uptime()
    timed_out = False
    loss: Loss | None = None
    hosts = [n.host for n in nodes]
    for host in (job.first_host, job.lose_host):
        if host is not None and host not in hosts:
            raise RuntimeError(f"{job.name}: {host} is not one of {hosts}")
    if job.lose_host is not None:
        lost = nodes[hosts.index(job.lose_host)]
        # its local rank 0's step line, as the node's console shows it (--tee 3)
        lost.watch = (
            re.compile(rb"^\[default0\]:.* step %d/\d+ loss " % job.lose_step),
            threading.Event(),
        )
    order = sorted(nodes, key=lambda n: n.host != job.first_host)  # first_host first
    try:
        for i, node in enumerate(order):
            if i == 1 and job.first_host is not None:
                # the first node alone until its agent listens on the rendezvous port
                first = order[0].proc
                assert first is not None
                while not port_listeners(port):
                    if time.time() > t0 + 30 or first.poll() is not None:
                        raise RuntimeError(f"{job.name}: {order[0].host} never hosted the store")
                    time.sleep(0.05)
            (node.folder / "tmp").mkdir(parents=True, exist_ok=again)
            shutil.copy2(TRAIN, node.folder / "train.py")
            env = base_env | job_env(job)
            binds = []
            for target, kind in job.mounts:
                source = (work / "shared" if kind == "shared" else node.folder / "disk") / (
                    target.strip("/").replace("/", "_")
                )
                source.mkdir(parents=True, exist_ok=True)
                Path(target).mkdir(parents=True, exist_ok=True)  # the mount point
                binds.append((source, target))
            env |= {
                "CKPT_DIR": job.ckpt_dir,
                "TMPDIR": str(node.folder / "tmp"),
                "PYTHONUNBUFFERED": "1",
                "RANK_INFO_DIR": str(rank_info),
            }
            node.proc = subprocess.Popen(
                [
                    "unshare",
                    "--uts",
                    "--mount",
                    "sh",
                    "-c",
                    node_script(node, hosts_file, torchrun_cmd, tuple(binds)),
                ],
                cwd=node.folder,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            assert node.proc.stdout is not None
            node.tap = threading.Thread(
                target=tap,
                args=(
                    node.proc.stdout,
                    work / "capture" / f"{node.host}.console",
                    work / "capture" / f"{node.host}.kubectl",
                    slurm,
                    node.index,
                    node.watch,
                ),
                daemon=True,
            )
            node.tap.start()
        deadline = t0 + RUN_TIMEOUT
        if job.lose_host is not None:
            lost = nodes[hosts.index(job.lose_host)]
            assert lost.watch is not None and lost.proc is not None
            if not lost.watch[1].wait(timeout=max(0.1, deadline - time.time())):
                raise RuntimeError(f"{job.name}: {lost.host} never logged step {job.lose_step}")
            agents = {n.proc.pid: n.host for n in nodes if n.proc is not None}
            store = sorted(agents.get(pid, f"pid {pid}") for pid in port_listeners(port))
            at = time.time()
            pids = lose_node(lost)
            console = (work / "capture" / f"{lost.host}.console").read_bytes()
            trigger = next(ln for ln in reversed(console.splitlines()) if lost.watch[0].search(ln))
            loss = Loss(lost.host, job.lose_step, trigger.decode(), at, pids[0], pids, store)
        for node in nodes:
            assert node.proc is not None
            try:
                node.proc.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                timed_out = True
                break
    finally:
        for node in nodes:
            if node.proc is not None:
                below = descendants(node.proc.pid)  # workers: each in its own session
                kill_group(node.proc)  # stragglers too, whatever happened
                for pid in below:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                node.proc.wait()
        for node in nodes:
            if node.tap is not None:
                node.tap.join(timeout=10)
        slurm.close()
    took = time.time() - t0
    up1 = uptime()
    run = Run(job, work, nodes, [], took, t0, boot_epoch=time.time() - up1, loss=loss)
    try:
        if job.memcg_mb is not None:
            time.sleep(0.5)  # let the kernel's report reach the ring buffer
            lines = dmesg_window(up0 - 0.5, uptime() + 0.5)
            for node in nodes:
                assert node.cgroup is not None
                if oom_kills(node.cgroup):
                    run.dmesg[node.host] = lines
            if not run.dmesg:
                raise RuntimeError(f"{job.name}: no cgroup recorded an OOM kill")
    finally:
        remove_cgroups(nodes)
    if timed_out:
        raise RuntimeError(f"{job.name}: the job did not finish in {RUN_TIMEOUT} s")
    for f in sorted(rank_info.glob("rank-*.json")):
        run.ranks.append(json.loads(f.read_text()))
    run.ranks.sort(key=lambda r: int(str(r["rank"])))
    world = len(job.hosts) * job.nproc
    if [r["rank"] for r in run.ranks] != list(range(world)):
        raise RuntimeError(f"{job.name}: rank files for {[r['rank'] for r in run.ranks]}")
    return run


# --- bundles -------------------------------------------------------------------------


MACHINE_CGROUP = re.compile(r"/process_api/[0-9a-f]+(?=/)")


def node_subs(run: Run, node: Node, torchrun: str) -> list[tuple[re.Pattern[str], str]]:
    """run_all's scrubbing for this node's folder, plus the sandbox's own cgroup prefix."""
    subs = scrubber(node.folder, torchrun)
    subs.insert(0, (re.compile(re.escape(str(run.work / "rankinfo"))), "/workspace/rankinfo"))
    subs.insert(0, (re.compile(re.escape(str(run.work / "hosts"))), "/workspace/hosts"))
    return [*subs, (MACHINE_CGROUP, "")]


def kern_log(lines: list[str], host: str, boot_epoch: float) -> list[str]:
    """dmesg lines as a syslog kern.log shows them (`Dec  1 20:41:02 host kernel: [...] ...`)."""
    out = []
    for line in lines:
        m = DMESG_LINE.match(line)
        assert m
        when = datetime.fromtimestamp(boot_epoch + float(m.group(1)), tz=timezone.utc)
        stamp = f"{when:%b} {when.day:2d} {when:%H:%M:%S}"
        out.append(f"{stamp} {host} kernel: {line}")
    return out


def write(path: Path, data: bytes) -> None:
    if len(data) > MAX_FILE:
        raise RuntimeError(f"{path}: {len(data)} bytes, over {MAX_FILE}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def build_bundle(run: Run, layout: str, dest: Path, torchrun: str) -> None:
    """Write ``dest`` (a bundle's logs/ folder) for one layout, scrubbed."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    subs = {n.host: node_subs(run, n, torchrun) for n in run.nodes}
    for node in run.nodes:
        s = subs[node.host]
        console = scrub_bytes(run.capture(node, "console").read_bytes(), s)
        kernel = [scrub_bytes(x.encode(), s).decode() for x in run.dmesg.get(node.host, [])]
        if layout == NODE_DIR:
            write(dest / node.host / "console.log", console)
            if kernel:
                write(dest / node.host / "dmesg.txt", "\n".join(kernel).encode() + b"\n")
        elif layout == NODE_FILE:
            write(dest / f"{node.host}.log", console)
        elif layout == LOGDIR:
            write(dest / node.host / "launcher.log", console)
            scrub_tree(node.folder / "logs", dest / node.host, s)
            if kernel:
                text = "\n".join(kern_log(kernel, node.host, run.boot_epoch)) + "\n"
                write(dest / node.host / "kern.log", text.encode())
        elif layout == KUBECTL:
            write(
                dest / f"{node.host}.log", scrub_bytes(run.capture(node, "kubectl").read_bytes(), s)
            )
    if layout == SLURM:
        width = len(str(len(run.nodes) - 1))
        out = bytearray()
        for line in (run.work / "capture" / "slurm.out").read_bytes().splitlines(keepends=True):
            task = int(line[:width])
            out += scrub_bytes(line, subs[run.nodes[task].host])
        write(dest / f"slurm-{run.job.slurm_job}.out", bytes(out))


def rank_dir(logs: Path, local_rank: int) -> Path:
    found = sorted(logs.glob(f"*_*/attempt_*/{local_rank}"))
    if not found:
        raise RuntimeError(f"no torchrun folder for local rank {local_rank} under {logs}")
    return found[-1]


def evidence_file(
    run: Run, layout: str, logs: Path, where: str, host: str, local_rank: int
) -> Path:
    if layout == SLURM:
        return logs / f"slurm-{run.job.slurm_job}.out"
    if layout in (NODE_FILE, KUBECTL):
        return logs / f"{host}.log"
    if layout == NODE_DIR:
        return logs / host / ("dmesg.txt" if where == "dmesg" else "console.log")
    if where == "dmesg":
        return logs / host / "kern.log"
    if where == "launcher":
        return logs / host / "launcher.log"
    return rank_dir(logs / host, local_rank) / f"{where}.log"


def find_evidence(run: Run, layout: str, logs: Path) -> tuple[str | None, str | None]:
    """The file (relative to ``logs``) and a literal of its root-cause line."""
    job = run.job
    if job.evidence is None or job.rank is None:
        return None, None
    truth = run.ranks[job.rank]
    host, lr = str(truth["host"]), int(str(truth["local_rank"]))
    where, needle = job.evidence
    path = evidence_file(run, layout, logs, where, host, lr)
    lines = path.read_text(errors="replace").splitlines()
    if needle == "last-progress":
        prefix = f"[default{lr}]:"
        if layout == SLURM:
            task = next(n.index for n in run.nodes if n.host == host)
            prefix = f"{task}: {prefix}"
        if layout == KUBECTL:  # without kubectl's own timestamps
            lines = [ln.split(" ", 1)[1] if " " in ln else ln for ln in lines]
        mine = [
            ln
            for ln in lines
            if re.search(r" step \d+/\d+ loss ", ln) and (layout == LOGDIR or ln.startswith(prefix))
        ]
        if not mine:
            raise RuntimeError(f"{job.name}: no progress line of rank {job.rank} in {path}")
        needle = mine[-1]
        if layout == LOGDIR:
            needle = re.search(r"step \d+/\d+", needle).group(0)  # type: ignore[union-attr]
    else:
        needle = needle.format(rank=job.rank, local_rank=lr, pid=truth["pid"])
        if not any(needle in ln for ln in lines):
            raise RuntimeError(f"{job.name}: {needle!r} not in {path}: the fault did not happen")
    return path.relative_to(logs).as_posix(), needle


def lost_evidence(run: Run, layout: str, logs: Path) -> tuple[str, str]:
    """The lost node's own file and a literal of its last line (where its logs stop): its
    local rank 0's stdout.log in ``logdir``, its console (or pod log) otherwise, its own
    ``N: `` lines of the Slurm file."""
    loss = run.loss
    assert loss is not None
    node = next(n for n in run.nodes if n.host == loss.host)
    if layout == LOGDIR:
        path = rank_dir(logs / loss.host, 0) / "stdout.log"
    else:
        path = evidence_file(run, layout, logs, "launcher", loss.host, 0)
    lines = [ln.rstrip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    if layout == SLURM:
        width = len(str(len(run.nodes) - 1))
        lines = [ln for ln in lines if ln.startswith(f"{node.index:0{width}d}: ")]
    if not lines:
        raise RuntimeError(f"{run.job.name}: nothing of {loss.host} in {path}")
    needle = lines[-1]
    if layout == KUBECTL:  # without kubectl's own timestamp
        needle = needle.split(" ", 1)[1]
    return path.relative_to(logs).as_posix(), needle


# a lost node must not say anything about its end; its survivors must say they lost it
NODE_END = re.compile(
    r"Traceback|Error\b|exitcode|closing signal|death signal|got signal|Signal \d+|failed|"
    r"shutting down|ChildFailed"
)
PEER_LOSS = re.compile(
    r"Connection (?:closed|reset) by peer|Broken pipe|Timed out waiting|"
    r"RendezvousConnectionError|Failed to recv|Connection refused"
)


def check_loss(run: Run) -> None:
    """The node was lost as the job says: the right node rank, the store where it should be,
    not a word of its end in its own logs, and every survivor reporting the loss."""
    job, loss = run.job, run.loss
    if job.lose_host is None:
        return
    if loss is None:
        raise RuntimeError(f"{job.name}: no node was lost")
    ranks = [r for r in run.ranks if r["host"] == loss.host]
    if {int(str(r["node_rank"])) for r in ranks} != {job.lose_node_rank}:
        raise RuntimeError(f"{job.name}: {loss.host} was not node rank {job.lose_node_rank}")
    if job.first_host is not None and loss.store_hosts != [job.first_host]:
        raise RuntimeError(f"{job.name}: the rendezvous store was on {loss.store_hosts}")
    for node in run.nodes:
        assert node.proc is not None
        console = run.capture(node, "console").read_text(errors="replace")
        if node.host == loss.host:
            if node.proc.returncode != -signal.SIGKILL:
                raise RuntimeError(f"{job.name}: {node.host}'s agent: {node.proc.returncode}")
            files = [run.capture(node, "console"), *sorted((node.folder / "logs").rglob("*"))]
            for f in files:
                if f.name == "error.json":
                    raise RuntimeError(f"{job.name}: {f}: the lost node wrote an error file")
                if f.is_file():
                    for ln in f.read_text(errors="replace").splitlines():
                        if NODE_END.search(ln):
                            raise RuntimeError(f"{job.name}: {f} speaks of its end: {ln}")
        elif not PEER_LOSS.search(console):
            raise RuntimeError(f"{job.name}: survivor {node.host} shows no loss of its peers")


def check_placement(run: Run) -> None:
    job = run.job
    if job.rank is None:
        return
    truth = run.ranks[job.rank]
    if job.rank == 0 or int(str(truth["node_rank"])) == 0:
        raise RuntimeError(f"{job.name}: the fault is on rank {job.rank} of node 0")


def label_for(run: Run, layout: str, logs: Path, version: str) -> dict[str, object]:
    job = run.job
    loss = run.loss
    file: str | None
    needle: str | None
    if loss is not None:  # the lost node's first global rank; its logs just stop
        rc_rank: int | None = min(int(str(r["rank"])) for r in run.ranks if r["host"] == loss.host)
        host: str | None = loss.host
        file, needle = lost_evidence(run, layout, logs)
    else:
        rc_rank = job.rank
        file, needle = find_evidence(run, layout, logs)
        host = str(run.ranks[job.rank]["host"]) if job.rank is not None else None
    env = " ".join(f"{k}={v}" for k, v in job_env(job).items())
    cmd = f"{env} torchrun {' '.join(torchrun_args(job, '<port>'))}"
    wrapper = (
        "mount --bind /workspace/hosts /etc/hosts && hostname <node> && "
        + ("echo $$ > <node's memory cgroup>/cgroup.procs && " if job.memcg_mb else "")
        + "exec torchrun ..."
    )
    nodes = []
    for node in run.nodes:
        mine = [r for r in run.ranks if r["host"] == node.host]
        assert node.proc is not None
        nodes.append(
            {
                "host": node.host,
                "index": node.index,
                "node_rank": mine[0]["node_rank"] if mine else None,
                "addr": node.addr,
                "agent_pid": node.proc.pid,
                "global_ranks": [r["rank"] for r in mine],
                **({"srun_task": node.index} if layout == SLURM else {}),
            }
        )
    label: dict[str, object] = {
        "category": job.category,
        "recovery": CATEGORY_RECOVERY[job.category],
        "root_cause_rank": rc_rank,
        "root_cause_host": host,
        "act_on_hosts": [host] if host else [],
        "root_cause_file": file,
        "root_cause_line_contains": needle,
        "layout": layout,
        "nnodes": len(job.hosts),
        "nproc_per_node": job.nproc,
        "world_size": len(job.hosts) * job.nproc,
        "ranks": [
            {k: r[k] for k in ("rank", "local_rank", "node_rank", "host", "pid")} for r in run.ranks
        ],
        "nodes": nodes,
        "torch": version,
        "command": cmd,
        "node_command": f"unshare --uts --mount sh -c '{wrapper}'  # once per node, "
        + (
            f"{job.first_host} first, the others once its agent listens on the rendezvous port"
            if job.first_host
            else "at once"
        ),
        "trainer_logs_rank": job.log_rank,
        "agent_loglevel": "INFO" if job.agent_info else "WARNING (default)",
        "job": job.name,
        "about": job.about,
        "recorded": time.strftime("%Y-%m-%d", time.gmtime(run.start_epoch)),
        "seconds": round(run.seconds, 1),
    }
    if loss is not None:
        label |= {
            "lost_node": loss.host,
            "survivors": [n.host for n in run.nodes if n.host != loss.host],
            "lost_how": "SIGKILL from outside the job, at once, to the node's torchrun agent's "
            "process group and every descendant of the agent (its ranks): no error, no teardown",
            "lost_at_step": loss.step,
            "lost_trigger_line": loss.trigger,
            "lost_at": datetime.fromtimestamp(loss.at, tz=timezone.utc).isoformat(
                timespec="milliseconds"
            ),
            "lost_after_seconds": round(loss.at - run.start_epoch, 1),
            "lost_pids": loss.pids,
            "rdzv_store_host": loss.store_hosts[0] if loss.store_hosts else None,
            "workers_store_host": run.ranks[0]["master_addr"],
            "started_first": job.first_host,
        }
    if layout == SLURM:
        label["slurm_job_id"] = job.slurm_job
    if job.memcg_mb:
        label["memory_cgroup_mb"] = job.memcg_mb
    return label


def record(job: Job, torchrun: str, scratch: Path, version: str) -> list[dict[str, object]]:
    work = scratch / job.name
    run = run_job(job, work, torchrun)
    check_placement(run)
    check_loss(run)
    for old in MULTINODE.glob("*/label.json"):  # this job's bundles of an earlier recording
        if json.loads(old.read_text()).get("job") == job.name:
            shutil.rmtree(old.parent)
    labels = []
    for layout in job.layouts:
        dest = MULTINODE / f"{job.name}-{layout}"
        shutil.rmtree(dest, ignore_errors=True)
        build_bundle(run, layout, dest / "logs", torchrun)
        label = label_for(run, layout, dest / "logs", version)
        (dest / "label.json").write_text(json.dumps(label, indent=2) + "\n")
        labels.append(label)
    shutil.rmtree(work, ignore_errors=True)
    return labels


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--torchrun", default=default_torchrun())
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/torchrun-multinode"))
    ap.add_argument("--list", action="store_true", help="list the jobs and exit")
    ap.add_argument("jobs", nargs="*", metavar="JOB", help=", ".join(BY_NAME))
    args = ap.parse_args(argv)
    if args.list:
        for j in JOBS:
            where = f"lose {j.lose_host}@{j.lose_step}" if j.lose_host else f"rank {j.rank}"
            print(f"{j.name:14} {j.fault:8} {where}  {'/'.join(j.layouts)}  {j.about}")
        return 0
    unknown = sorted(set(args.jobs) - set(BY_NAME))
    if unknown:
        ap.error(f"unknown job(s): {', '.join(unknown)}")
    version = torch_version(args.torchrun)
    for name in args.jobs or list(BY_NAME):
        for label in record(BY_NAME[name], args.torchrun, args.scratch, version):
            print(
                f"{name:14} {label['layout']:9} {label['seconds']:5.1f}s "
                f"{label['category']:16} rank {label['root_cause_rank']} "
                f"host {label['root_cause_host']}  {label['root_cause_file']}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
