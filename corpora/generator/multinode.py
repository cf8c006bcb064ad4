"""Multi-node bundles: one torchrun agent per named host, collected as platforms collect them.

Seeds from bundles.MULTI_SEEDS (2000) on. Every node runs `torchrun --tee 3` with 4 or 8
workers, and its console is what corpora/torchrun/multinode/ recorded from real runs:
worker lines behind torchrun's `[defaultN]:` (N the LOCAL rank), torch's `[rankG]:` (the
GLOBAL rank) before uncaught exceptions and ProcessGroupNCCL lines, NCCL's `HOST:PID:TID
[DEV]` header, the agent's own glog-style lines and, when its workers fail, torchrun's
traceback and ChildFailedError table (`host :`, `rank : G (local_rank: L)`, `exitcode : C
(pid: P)`). Each node's table knows only its own workers, and names its earliest failure
as "Root Cause": on a healthy node a victim, in a hang a victim even on the stuck rank's
node.

Node ranks come from the c10d rendezvous, which sorts hostnames as strings (`dgx-10`
before `dgx-9`); Slurm numbers its tasks in nodelist order (`dgx-9` is task 0), so an
srun label is a task id, not a node rank. In about half of the jobs the trainer's own
lines carry no rank (`trainer_rank`), so only the launcher's lines, torch's prefixes and
the tables tell who is who.

| layout | files under logs/ |
|---|---|
| `node_dir` | `HOST/console.log` (+ `HOST/kern.log` in syslog form or `HOST/dmesg.txt`) |
| `node_file` | `HOST.log` (+ `HOST.kern.log` or `dmesg-HOST.txt`) |
| `kubectl` | `JOB-worker-K.log` (and `JOB-master-0.log`): `kubectl logs --timestamps` |
| `slurm` | `slurm-JOBID.out`: every node's console behind srun --label's `T: `, srun's and slurmstepd's own lines unlabelled |

A kernel log is written only for the failing node of the scenarios that have kernel
evidence (host OOM, Xid), and only where a platform collects one (node_dir, node_file).
Pure hangs get a job monitor's heartbeats (`launcher.log`, or the Slurm file).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from corpora.generator import bundles
from corpora.generator import lines as L
from corpora.generator.bundles import START, TIMEOUT_S, Job, Lines, _join, make_job, marker
from corpora.generator.scenarios import BUSES, DONE, Truth, everyone

NODE_LAYOUTS = ("node_dir", "node_file", "kubectl", "slurm")
JOB_NAMES = ("llama-pretrain", "gpt-neox-20b", "mixtral-sft", "bert-large-mlm", "vit-h14", "t5-xl")
# (torch's site-packages, the workers' python, torchrun, the prefix torch's log lines show)
PYTHONS = (
    ("/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3", "/usr/local/bin/torchrun", ""),
    (
        "/opt/conda/lib/python3.10/site-packages",
        "/opt/conda/bin/python3.10",
        "/opt/conda/bin/torchrun",
        "site-packages/",
    ),
    (
        "/workspace/venv/lib/python3.10/site-packages",
        "/workspace/venv/bin/python3",
        "/workspace/venv/bin/torchrun",
        "site-packages/",
    ),
)


@dataclass
class Exit:
    """A worker's end: when, its exit code, its traceback (unprefixed) if it raised."""

    rank: int
    t: float
    code: int
    tb: tuple[str, ...] = ()


@dataclass
class Cluster:
    layout: str
    nproc: int
    hosts: list[str]  # by node rank (the rendezvous order)
    tasks: list[int]  # the srun task id of each node rank (Slurm's nodelist order)
    apids: list[int]  # the agent's pid, by node rank
    pids: list[int]  # the worker's pid, by global rank
    ips: list[str]
    jobname: str
    jobid: int
    trainer_rank: bool  # the trainer's own lines print `[rank N]`
    nccl: str  # NCCL_DEBUG=INFO init lines: "" (off), "comm" (2.18 form), "local" (2.2x form)
    barrier: bool  # torch's barrier warning on every rank
    info: bool  # agents at LOGLEVEL=INFO: launch config and rendezvous result
    record: bool  # main() under @record: error files, the worker's traceback in the table
    kern_form: str  # "syslog" or "dmesg"
    python: tuple[str, str, str, str]
    kill_on_bad_exit: bool  # srun ends the step when a task fails
    modern_slurm: bool  # slurmstepd's `Detected 1 oom_kill event in StepId=` wording
    port: int
    nodes_written: set[int] = field(default_factory=set)
    agent_out: dict[int, list[tuple[float, Lines]]] = field(default_factory=dict)
    job_out: list[tuple[float, Lines]] = field(default_factory=list)  # srun, slurmstepd, monitor
    ended: dict[int, tuple[float, str]] = field(default_factory=dict)  # node -> (t, srun's word)
    logdirs: dict[int, str] = field(default_factory=dict)

    def console(self, node: int) -> str:
        host = self.hosts[node]
        return {
            "node_dir": f"{host}/console.log",
            "node_file": f"{host}.log",
            "kubectl": f"{host}.log",
            "slurm": f"slurm-{self.jobid}.out",
        }[self.layout]

    def kern_file(self, node: int) -> str | None:
        host, syslog = self.hosts[node], self.kern_form == "syslog"
        if self.layout == "node_dir":
            return f"{host}/kern.log" if syslog else f"{host}/dmesg.txt"
        if self.layout == "node_file":
            return f"{host}.kern.log" if syslog else f"dmesg-{host}.txt"
        return None


def _natural(host: str) -> list[object]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", host)]


def hostnames(rng: random.Random, n: int, layout: str) -> tuple[list[str], str]:
    """n hostnames in the scheduler's order (Slurm's nodelist, the pods' ordinals), and a
    job name."""
    name = rng.choice(JOB_NAMES)
    if layout == "kubectl":
        if rng.random() < 0.5:  # PyTorchJob: a master pod and workers
            return [f"{name}-master-0", *(f"{name}-worker-{k}" for k in range(n - 1))], name
        return [f"{name}-worker-{k}" for k in range(n)], name
    scheme = rng.choice(("gpu", "dgx", "dgx-short", "aws", "nid"))
    names: set[str] = set()
    if scheme == "gpu":
        while len(names) < n:
            names.add(f"gpu-{rng.choice('abcdefgh')}{rng.randint(1, 40):02d}")
    elif scheme == "aws":
        subnet = rng.randrange(8) * 16
        while len(names) < n:
            names.add(f"ip-10-0-{subnet + rng.randrange(16)}-{rng.randint(2, 254)}")
    else:
        first = {"dgx": rng.randint(1, 200), "dgx-short": rng.randint(1, 12)}.get(
            scheme, rng.randint(1000, 7000)
        )
        fmt = {"dgx": "dgx-{:03d}", "dgx-short": "dgx-{}"}.get(scheme, "nid{:06d}")
        names = {fmt.format(first + k) for k in range(n)}
    return sorted(names, key=_natural), name


def make_cluster(rng: random.Random, nodes: int, nproc: int, layout: str) -> Cluster:
    names, jobname = hostnames(rng, nodes, layout)
    hosts = sorted(names, key=lambda h: h + "_")  # c10d sorts `<fqdn>_<pid>_<n>`
    apids: list[int] = []
    pids: list[int] = []
    for _ in range(nodes):
        if layout == "kubectl":  # torchrun is the pod's entrypoint, or under a small shell
            agent = 1 if rng.random() < 0.5 else rng.randint(7, 60)
            first = agent + rng.randint(20, 90)
        else:
            agent = rng.randint(2000, 250000)
            first = agent + rng.randint(12, 300)
        apids.append(agent)
        pids += [first + k for k in range(nproc)]
    if layout == "kubectl":
        ips = [f"10.244.{rng.randint(0, 63)}.{rng.randint(2, 254)}" for _ in range(nodes)]
    elif hosts[0].startswith("ip-"):
        ips = [h.removeprefix("ip-").replace("-", ".") for h in hosts]
    else:
        a, b = rng.randint(1, 250), rng.randint(0, 250)
        ips = [f"10.{a}.{b}.{10 + names.index(h)}" for h in hosts]
    return Cluster(
        layout=layout,
        nproc=nproc,
        hosts=hosts,
        tasks=[names.index(h) for h in hosts],
        apids=apids,
        pids=pids,
        ips=ips,
        jobname=jobname,
        jobid=rng.randint(40000, 9999999),
        trainer_rank=rng.random() < 0.5,
        nccl=rng.choice(("", "comm", "local")),
        barrier=rng.random() < 0.5,
        info=rng.random() < 0.4,
        record=rng.random() < 0.5,
        kern_form=rng.choice(("syslog", "dmesg")),
        python=rng.choice(PYTHONS),
        kill_on_bad_exit=rng.random() < 0.5,
        modern_slurm=rng.random() < 0.5,
        port=rng.randint(20000, 60000),
    )


def new_job(rng: random.Random, layout: str | None = None) -> Job:
    chosen = rng.choice(NODE_LAYOUTS)
    layout = layout or chosen
    nodes, nproc = rng.randint(2, 8), rng.choice((4, 8))
    # a big job collected in part: only a few nodes' consoles (not Slurm's one file)
    if rng.random() < 0.05 and layout != "slurm":
        nodes, nproc = rng.choice((16, 32, 64)), 8
    job = make_job(rng, nodes, nodes * nproc, layout)
    job.mn = make_cluster(rng, nodes, nproc, layout)
    return job


def label_extra(job: Job) -> dict[str, object]:
    mn: Cluster = job.mn
    nodes = []
    for k, host in enumerate(mn.hosts):
        node: dict[str, object] = {"host": host, "node_rank": k}
        if job.layout == "slurm":
            node["srun_task"] = mn.tasks[k]
        node["global_ranks"] = list(range(k * mn.nproc, (k + 1) * mn.nproc))
        nodes.append(node)
    return {"nproc_per_node": mn.nproc, "trainer_logs_rank": mn.trainer_rank, "nodes": nodes}


# --- emitting -------------------------------------------------------------------------


def ranks_of(job: Job, node: int) -> list[int]:
    n = job.mn.nproc
    return list(range(node * n, (node + 1) * n))


def shown(job: Job, rank: int) -> int | None:
    """The rank as the trainer's own lines print it, or None."""
    return rank if job.mn.trainer_rank else None


def agent(job: Job, node: int, t: float, out: Callable[[datetime], Lines]) -> None:
    """Lines of a node's torchrun agent (its stderr, in the node's console)."""
    if node in job.mn.nodes_written:
        job.mn.agent_out.setdefault(node, []).append((t, out(job.when(node, t))))


def stream(job: Job, t: float, out: Callable[[datetime], Lines]) -> None:
    """Lines of the job's own stream: srun and slurmstepd, a job monitor (on the first
    node of the allocation, by its clock)."""
    job.mn.job_out.append((t, out(job.when(job.mn.tasks.index(0), t))))


def kern(job: Job, node: int, t: float, texts: list[str]) -> None:
    mn: Cluster = job.mn
    dt, up = job.when(node, t), job.uptime[node] + t
    if mn.kern_form == "syslog":
        out = [L.syslog(dt, mn.hosts[node], up + k * 1e-5, x) for k, x in enumerate(texts)]
    else:
        out = [L.dmesg(up + k * 1e-5, x) for k, x in enumerate(texts)]
    job.kern_out.setdefault(node, []).append((t, out))


def preamble(job: Job) -> None:
    mn: Cluster = job.mn
    rng, root = job.rng, mn.python[3]
    master = mn.hosts[0]
    for n in sorted(mn.nodes_written):
        a, t0 = mn.apids[n], 0.2 + rng.random() * 0.3
        agent(job, n, t0, lambda dt, a=a: L.agent_banner(dt, a, root))
        if mn.info:
            endpoint = f"{master}:29500"
            agent(
                job,
                n,
                t0,
                lambda dt, a=a, e=endpoint: L.agent_config(
                    dt, a, root, job.nodes, mn.nproc, mn.jobname, e
                ),
            )
            agent(
                job,
                n,
                t0 + 1 + rng.random() * 0.5,
                lambda dt, a=a, n=n: L.agent_rendezvous(
                    dt, a, root, master, mn.port, n, job.nodes, ranks_of(job, n), job.ranks
                ),
            )
    for r in sorted(job.written):
        n, loc = job.node_of(r), job.local(r)
        t = 2.0 + rng.random() * 3
        if job.style != "megatron":
            job.say(r, t, lambda dt, r=r: [L.trainer_init(dt, shown(job, r), job.ranks)])
        if mn.barrier:
            job.say(r, t + 0.4, lambda dt, r=r, loc=loc: [L.barrier_warning(dt, r, loc)])
        if mn.nccl:
            comm = f"0x55{rng.getrandbits(40):010x}"
            job.say(
                r,
                t + 0.5,
                lambda _dt, r=r, n=n, loc=loc, c=comm: L.nccl_init_mn(
                    mn.hosts[n],
                    job.pid(r),
                    loc,
                    mn.ips[n],
                    r,
                    job.ranks,
                    job.nodes,
                    mn.nproc,
                    BUSES[loc % len(BUSES)] + "000",
                    c,
                    mn.nccl,
                ),
            )
        job.say(r, t + 1, lambda _dt: [L.user_warning(mn.python[0])])


def say_step(job: Job, rank: int, t: float, step: int, step_ms: float, loss: float) -> None:
    """A progress line with the trainer's own rank when it prints one, and Megatron's
    memory report after step 10."""
    who = shown(job, rank)
    job.say(rank, t, lambda dt: L.progress_mn(job.style, dt, step, job.total, step_ms, loss, who))
    if job.mn.trainer_rank and job.style == "megatron" and step == 10:
        job.say(rank, t + 0.01, lambda _dt: [L.megatron_memory(rank, 10)])


def run_steps(job: Job, until: dict[int, int]) -> None:
    bundles.run_steps(job, until, say_step)


def _logdir(job: Job, node: int) -> str:
    mn: Cluster = job.mn
    if node not in mn.logdirs:
        tag = "".join(job.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(8))
        base = "".join(job.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))
        mn.logdirs[node] = f"/tmp/torchelastic_{base}/{mn.jobname}_{tag}"
    return mn.logdirs[node]


def node_fails(
    job: Job, node: int, first: Exit, others: list[Exit], sigterm: list[int], oom: bool = False
) -> float:
    """The agent of `node` sees `first` end: it SIGTERMs `sigterm`, reports `first`, and
    torchrun exits with its ChildFailedError table. Returns when it exited."""
    mn: Cluster = job.mn
    pyroot, binary, torchrun, root = mn.python
    a, host = mn.apids[node], mn.hosts[node]
    t = first.t + 0.1 + job.rng.random() * 0.3
    logdir = _logdir(job, node) if mn.record else ""

    def error_file(e: Exit) -> str | None:
        if not mn.record or e.code <= 0 or not e.tb:
            return None
        return f"{logdir}/attempt_0/{job.local(e.rank)}/error.json"

    def entry(e: Exit) -> L.Failure:
        ef = error_file(e)
        tb = (e.tb[0], *L.record_frames(pyroot), *e.tb[1:]) if ef else ()
        when = job.when(node, e.t)
        return L.Failure(when, host, e.rank, job.local(e.rank), e.code, job.pid(e.rank), ef, tb)

    rows = [*others, *(Exit(r, t, -15) for r in sigterm)]
    rows.sort(key=lambda e: job.local(e.rank))
    ef = error_file(first)
    agent(
        job,
        node,
        t,
        lambda dt: [
            *(L.agent_sigterm(dt, a, root, job.pid(r)) for r in sigterm),
            L.agent_failed(
                dt, a, root, first.code, job.local(first.rank), job.pid(first.rank), binary
            ),
            *([L.agent_error_file(dt, a, root, ef)] if ef else []),
        ],
    )
    table = L.child_failed(pyroot, torchrun, entry(first), [entry(e) for e in rows])
    agent(job, node, t + 0.2, lambda _dt: table)
    mn.ended[node] = (t + 0.3, "Out Of Memory" if oom else "Exited with exit code 1")
    return t + 0.3


def time_out(job: Job, ranks: list[int], t: float, seq: int) -> dict[int, float]:
    """Ranks whose collective times out at about t: each one's watchdog aborts it."""
    numel = job.rng.choice((16777216, 8388608, 33554432))
    when: dict[int, float] = {}
    for r in ranks:
        when[r] = t + job.rng.random() * 2
        job.say(r, when[r], lambda d, r=r: L.watchdog_abort(d, r, seq, numel))
    return when


def nodes_time_out(job: Job, when: dict[int, float]) -> None:
    """On every node, the first worker to abort (-6) is what its agent reports; the others
    (a stuck rank among them) are SIGTERMed."""
    for n in sorted({job.node_of(r) for r in when}):
        mine = [r for r in ranks_of(job, n) if r in when]
        first = min(mine, key=lambda r: when[r])
        rest = [r for r in ranks_of(job, n) if r != first]
        node_fails(job, n, Exit(first, when[first], -6), [], rest)
    _srun_terminating(job)


def _srun_terminating(job: Job) -> None:
    """srun --kill-on-bad-exit, once the first task failed (the others fail anyway)."""
    mn: Cluster = job.mn
    if job.layout == "slurm" and mn.kill_on_bad_exit and mn.ended:
        t = min(t for t, _ in mn.ended.values())
        stream(job, t + 0.25, lambda _dt: [f"srun: Terminating StepId={mn.jobid}.0"])


def die(job: Job, culprit: int, t: float, code: int, seq: int, tb: tuple[str, ...] = (), oom: bool = False) -> None:  # fmt: skip
    """The culprit's process ends: its agent reports it and tears its node down; the other
    nodes time out, or srun (--kill-on-bad-exit) ends them."""
    mn: Cluster = job.mn
    node = job.node_of(culprit)
    siblings = [r for r in ranks_of(job, node) if r != culprit]
    end = node_fails(job, node, Exit(culprit, t, code, tb), [], siblings, oom)
    others = [r for r in range(job.ranks) if job.node_of(r) != node]
    if job.layout == "slurm" and mn.kill_on_bad_exit:
        cancel(job, end + 0.3, sorted({job.node_of(r) for r in others}))
    else:
        nodes_time_out(job, time_out(job, others, t + TIMEOUT_S, seq))


def shut_down(job: Job, node: int, t: float) -> None:
    """A node's agent gets SIGTERM: it stops its workers and exits with SignalException."""
    mn: Cluster = job.mn
    pyroot, _, torchrun, root = mn.python
    a = mn.apids[node]
    agent(
        job,
        node,
        t,
        lambda dt: [
            L.agent_death_signal(dt, a, root),
            *(L.agent_sigterm(dt, a, root, job.pid(r)) for r in ranks_of(job, node)),
        ],
    )
    agent(job, node, t + 0.3, lambda _dt: L.signal_exception(pyroot, torchrun, a))


def cancel(job: Job, t: float, nodes: list[int]) -> None:
    """srun ends the step: slurmstepd cancels it, every remaining agent is SIGTERMed."""
    mn: Cluster = job.mn
    first = mn.hosts[mn.tasks.index(0)]
    stream(
        job,
        t,
        lambda dt: [
            f"srun: Terminating StepId={mn.jobid}.0",
            L.slurm_step_cancelled(dt, mn.jobid, first),
        ],
    )
    for n in nodes:
        ts = t + 0.05 + job.rng.random() * 0.2
        shut_down(job, n, ts)
        mn.ended[n] = (ts + 0.4, "Terminated")


def srun_end(job: Job) -> None:
    """srun's own lines as the tasks (one torchrun per node) end."""
    mn: Cluster = job.mn
    if job.layout != "slurm" or not mn.ended:
        return
    killed = []
    for n, (t, what) in sorted(mn.ended.items(), key=lambda e: e[1][0]):
        if what == "Terminated":
            killed.append((t, n))
            continue
        host, task = mn.hosts[n], mn.tasks[n]
        out = [L.srun_task(host, task, what)]
        if what == "Out Of Memory":
            out.insert(0, L.slurm_oom(mn.jobid, mn.modern_slurm))
        stream(job, t + 0.2, lambda _dt, o=out: o)
    if killed:
        last = max(t for t, _ in killed)
        out = [L.srun_task(mn.hosts[n], mn.tasks[n], "Terminated") for _, n in sorted(killed)]
        stream(job, last + 0.2, lambda _dt: [*out, f"srun: Force Terminated StepId={mn.jobid}.0"])


def start(job: Job) -> tuple[int, int, float, int]:
    """The culprit, the failing step, its time and SeqNum; in a big job only the culprit's
    node, node 0 and one more are collected."""
    c = job.rng.randrange(job.ranks)
    if job.nodes > 8:
        keep = {job.node_of(c), 0, job.rng.randrange(job.nodes)}
        job.written = {r for r in range(job.ranks) if job.node_of(r) in keep}
    job.mn.nodes_written = {job.node_of(r) for r in job.written}
    preamble(job)
    step = job.rng.randint(max(10, job.total // 3), job.total - 1)
    t = job.step_t(step) + job.step_s * job.rng.uniform(0.3, 0.9)
    return c, step, t, 7 * step + 23


def _unprefixed(rank: int, lines: list[str]) -> tuple[str, ...]:
    return tuple(x.removeprefix(f"[rank{rank}]: ") for x in lines)


# --- scenarios (the same names and truths as scenarios.py) ---------------------------


def crash(
    job: Job, text: Callable[[int, float], Lines], contains: str, raised: bool = True
) -> Truth:
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    out = text(c, t)
    job.say(c, t, lambda _dt: out)
    tb = _unprefixed(c, [x for x in out if x.startswith(f"[rank{c}]: ")]) if raised else ()
    die(job, c, t, 1, seq, tb)
    srun_end(job)
    return Truth(c, job.rank_file(c), contains)


def device_oom(job: Job) -> Truth:
    gib = job.rng.choice((2.0, 4.5, 12.25))
    return crash(job, lambda c, _t: L.cuda_oom(c, gib, job.local(c)), "CUDA out of memory")


def numerical_error(job: Job) -> Truth:
    return crash(
        job,
        lambda c, t: L.loss_nan_mn(job.when(job.node_of(c), t), shown(job, c)),
        "Loss is nan",
        raised=False,
    )


def user_code_error(job: Job) -> Truth:
    return crash(
        job, lambda c, _t: L.torch_prefixed(c, L.key_error("labels")), "KeyError: 'labels'"
    )


def storage_fault(job: Job) -> Truth:
    return crash(
        job,
        lambda c, t: L.no_space_mn(job.when(job.node_of(c), t), shown(job, c), c),
        "No space left on device",
    )


def host_oom(job: Job) -> Truth:
    mn: Cluster = job.mn
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    node, pid = job.node_of(c), job.pid(c)
    where = mn.kern_file(node)
    if where is not None:
        memcg = (
            f"/system.slice/slurmstepd.scope/job_{mn.jobid}/step_0/user/task_0"
            if job.rng.random() < 0.5
            else None
        )
        workers = [job.pid(r) for r in ranks_of(job, node)]
        kern(job, node, 1.0, [L.MLX5_NOISE])
        kern(job, node, t, L.oom_kill_mn(pid, mn.apids[node], workers, memcg, 1000))
    die(job, c, t, -9, seq, oom=True)
    srun_end(job)
    if where is not None:
        return Truth(c, where, f"Killed process {pid} (python3)")
    return Truth(
        c, job.rank_file(c), f"failed (exitcode: -9) local_rank: {job.local(c)} (pid: {pid})"
    )


def device_fault(job: Job) -> Truth:
    mn: Cluster = job.mn
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    node = job.node_of(c)
    code, bus = job.rng.choice((79, 48)), BUSES[job.local(c) % len(BUSES)]
    pid = None if code == 79 and job.rng.random() < 0.5 else job.pid(c)
    uuid = f"{job.rng.getrandbits(32):08x}-{job.rng.getrandbits(16):04x}-4a1b-9c2d-{job.rng.getrandbits(48):012x}"
    where = mn.kern_file(node)
    if where is not None:
        kern(job, node, 1.0, [L.MLX5_NOISE])
        kern(job, node, t, L.xid_mn(code, bus, pid, uuid))
    job.say(c, t + 1, lambda dt: L.cuda_error_abort(dt, c))
    die(job, c, t + 1, -6, seq)
    srun_end(job)
    if where is not None:
        return Truth(c, where, f"Xid (PCI:0000:{bus}:00): {code},")
    return Truth(c, job.rank_file(c), "CUDA error: unspecified launch failure")


def stall_all(job: Job, c: int, t: float, seq: int) -> None:
    others = [r for r in range(job.ranks) if r != c]
    nodes_time_out(job, time_out(job, others, t + TIMEOUT_S, seq))
    srun_end(job)


def network_fault(job: Job) -> Truth:
    mn: Cluster = job.mn
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    node = job.node_of(c)
    other = (node + 1) % job.nodes
    peer = mn.ips[other]
    job.say(
        c,
        t,
        lambda _dt: L.ib_completion_error(mn.hosts[node], job.pid(c), job.local(c), peer),
    )
    stall_all(job, c, t, seq)
    return Truth(c, job.rank_file(c), "Got completion from peer", other, peer)


def hang(job: Job) -> Truth:
    c, step, t, seq = start(job)
    run_steps(job, {**everyone(job, step), c: step - 1})
    stall_all(job, c, t, seq)
    return Truth(c, job.rank_file(c), marker(job.style, step - 1))


def pure_hang(job: Job) -> Truth:
    mn: Cluster = job.mn
    _, step, t, _ = start(job)
    run_steps(job, everyone(job, step))
    minutes = job.rng.randint(40, 70)
    for n in sorted(mn.nodes_written):
        for m in range(10, minutes + 1, 10):
            stream(
                job,
                t + 60 * m + job.rng.random(),
                lambda dt, n=n: [L.monitor_heartbeat(dt, mn.hosts[n], mn.nproc)],
            )
    return Truth(None, job.rank_file(min(job.written)), marker(job.style, step))


def collective_timeout(job: Job) -> Truth:
    """A lone timeout: one node's console (or every node timing out together, in Slurm's
    one file), with nothing that says who stalled."""
    mn: Cluster = job.mn
    nodes = set(range(job.nodes)) if job.layout == "slurm" else {job.rng.randrange(job.nodes)}
    job.written = {r for r in range(job.ranks) if job.node_of(r) in nodes}
    mn.nodes_written = nodes
    preamble(job)
    ranks = sorted(job.written)
    nodes_time_out(job, time_out(job, ranks, job.rng.uniform(700, 3000), job.rng.randint(5, 90000)))
    srun_end(job)
    return Truth(None, job.rank_file(ranks[0]), "Watchdog caught collective operation timeout")


def checkpoint_corrupt(job: Job) -> Truth:
    c, _, _, _ = start(job)
    t = 8.0 + job.rng.random() * 10
    path = f"/ckpt/iter_{job.rng.randint(1, 90) * 1000:07d}/mp_rank_{c:02d}/model_optim_rng.pt"
    out = L.checkpoint_corrupt_mn(job.when(job.node_of(c), t), path, shown(job, c), c)
    job.say(c, t, lambda _dt: out)
    die(job, c, t, 1, 3, _unprefixed(c, out[1:]))
    srun_end(job)
    return Truth(c, job.rank_file(c), "failed finding central directory")


def environment_error(job: Job) -> Truth:
    """Every worker fails importing a module (before the process group: no [rankG]:
    prefix, and before @record's main: no error file)."""
    start(job)
    when = {r: 6.0 + job.rng.random() for r in range(job.ranks)}
    for r in sorted(job.written):
        job.say(r, when[r], lambda _dt: L.module_not_found("apex"))
    for n in range(job.nodes):
        mine = sorted(ranks_of(job, n), key=lambda r: when[r])
        node_fails(
            job, n, Exit(mine[0], when[mine[0]], 1), [Exit(r, when[r], 1) for r in mine[1:]], []
        )
    _srun_terminating(job)
    srun_end(job)
    return Truth(None, job.rank_file(min(job.written)), "No module named 'apex'")


def preempted(job: Job) -> Truth:
    """The scheduler takes the job's nodes back: every agent gets SIGTERM (and Slurm says
    why)."""
    mn: Cluster = job.mn
    _, step, t, _ = start(job)
    run_steps(job, everyone(job, step))
    if job.layout == "slurm":
        first = mn.hosts[mn.tasks.index(0)]
        why = " DUE TO PREEMPTION"
        stream(
            job,
            t,
            lambda dt: [
                L.slurm_job_cancelled(dt, mn.jobid, first, why),
                "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                L.slurm_step_cancelled(dt, mn.jobid, first, why),
            ],
        )
    for n in range(job.nodes):
        shut_down(job, n, t + 0.1 + job.rng.random() * 0.3)
    if job.layout == "slurm":
        return Truth(None, job.rank_file(0), "DUE TO PREEMPTION")
    return Truth(None, job.rank_file(min(job.written)), "death signal, shutting down workers")


def none(job: Job) -> Truth:
    mn: Cluster = job.mn
    start(job)
    run_steps(job, everyone(job, job.total))
    t = job.step_t(job.total) + 5
    for r in sorted(job.written):
        job.say(r, t, lambda dt, r=r: L.training_done_mn(job.style, dt, shown(job, r)))
    if mn.info:
        root = mn.python[3]
        for n in range(job.nodes):
            elapsed = job.rng.uniform(0.0003, 2.5)
            a = mn.apids[n]
            agent(
                job,
                n,
                t + 1 + job.rng.random(),
                lambda dt, a=a, e=elapsed: L.agent_succeeded(dt, a, root, e),
            )
    return Truth(None, job.rank_file(min(job.written)), DONE[job.style])


SCENARIOS: dict[str, Callable[[Job], Truth]] = {
    "device_oom": device_oom,
    "host_oom": host_oom,
    "network_fault": network_fault,
    "device_fault": device_fault,
    "hang": hang,
    "pure_hang": pure_hang,
    "collective_timeout": collective_timeout,
    "storage_fault": storage_fault,
    "checkpoint_corrupt": checkpoint_corrupt,
    "numerical_error": numerical_error,
    "user_code_error": user_code_error,
    "environment_error": environment_error,
    "preempted": preempted,
    "none": none,
}


# --- rendering ------------------------------------------------------------------------


def _stamped(job: Job, node: int, events: list[tuple[float, Lines]]) -> str:
    """`kubectl logs --timestamps`: the kubelet's RFC3339Nano UTC time of arrival (the
    node's clock, a little after the line was printed), nine fraction digits."""
    out: list[str] = []
    prev = 0
    for t, lines in sorted(events, key=lambda e: e[0]):
        for line in lines:
            ns = round((t + job.skew[node]) * 1e9) + int(job.rng.random() * 3e7) + 200_000
            ns = max(ns, prev + 1000 + int(job.rng.random() * 90_000))
            prev = ns
            dt = START + timedelta(seconds=ns // 10**9)
            out.append(f"{dt:%Y-%m-%dT%H:%M:%S}.{ns % 10**9:09d}Z {line}\n")
    return "".join(out)


def render(job: Job) -> dict[str, str]:
    mn: Cluster = job.mn
    per_node: dict[int, list[tuple[float, Lines]]] = {
        n: list(mn.agent_out.get(n, [])) for n in sorted(mn.nodes_written)
    }
    for r, events in sorted(job.rank_out.items()):
        tag = f"[default{job.local(r)}]:"
        per_node[job.node_of(r)] += [(t, [tag + x for x in out]) for t, out in events]
    files: dict[str, str] = {}
    if job.layout == "slurm":
        width = len(str(job.nodes - 1))
        merged = [
            (t, [f"{mn.tasks[n]:0{width}d}: {x}" for x in out])
            for n, events in per_node.items()
            for t, out in events
        ]
        files[mn.console(0)] = _join(merged + mn.job_out)
    else:
        for n, events in per_node.items():
            files[mn.console(n)] = (
                _stamped(job, n, events) if job.layout == "kubectl" else _join(events)
            )
        if mn.job_out:
            files["launcher.log"] = _join(mn.job_out)
    for n, events in job.kern_out.items():
        name = mn.kern_file(n)
        assert name is not None
        files[name] = _join(events)
    return dict(sorted(files.items()))
