"""One function per root-cause category: inject the fault and its cascade into a job.

Each scenario writes the healthy progress, the root-cause line(s) and the symptoms the
other ranks show, and returns where the root-cause evidence is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from corpora.generator import lines as L
from corpora.generator.bundles import (
    TIMEOUT_S,
    Job,
    die,
    marker,
    preamble,
    run_steps,
    teardown,
    timeouts,
)

BUSES = ("18", "3b", "5e", "86", "af", "d8", "19", "3c")
DONE = {
    "megatron": "[after training is done]",
    "plain": "training finished",
    "hf": "Training completed.",
}


@dataclass(frozen=True)
class Truth:
    rank: int | None
    file: str | None
    contains: str | None
    peer: int | None = None  # a network fault: the node at the other end of the link
    peer_ip: str | None = None  # ... and the address the error names


def start(job: Job, kern: bool = True) -> tuple[int, int, float, int]:
    """Pick the culprit rank, the failing step, its time and the collective's SeqNum;
    in a huge job only the interesting ranks get a file."""
    culprit = job.rng.randrange(job.ranks)
    if job.ranks > 64:
        job.written = {culprit, 0, *job.rng.sample(range(job.ranks), 2)}
    preamble(job, kern)
    step = job.rng.randint(max(10, job.total // 3), job.total - 1)
    t = job.step_t(step) + job.step_s * job.rng.uniform(0.3, 0.9)
    return culprit, step, t, 7 * step + 23


def everyone(job: Job, step: int) -> dict[int, int]:
    return dict.fromkeys(range(job.ranks), step)


def node_of(job: Job, rank: int) -> str:
    return f"node{job.node_of(rank)}"


def crash(job: Job, text: Callable[[int, int, float], L.Lines], contains: str) -> Truth:
    """A rank's own failure (traceback or message); the process exits with 1."""
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    job.say(c, t, lambda _dt: text(c, step, t))
    die(job, c, t, 1, seq)
    return Truth(c, job.rank_file(c), contains)


def device_oom(job: Job) -> Truth:
    gib = job.rng.choice((2.0, 4.5, 12.25))
    return crash(job, lambda c, _s, _t: L.cuda_oom(c, gib), "CUDA out of memory")


def numerical_error(job: Job) -> Truth:
    return crash(job, lambda c, _s, t: L.loss_nan(job.when(job.node_of(c), t)), "Loss is nan")


def user_code_error(job: Job) -> Truth:
    return crash(job, lambda _c, _s, _t: L.key_error("labels"), "KeyError: 'labels'")


def storage_fault(job: Job) -> Truth:
    return crash(
        job, lambda c, _s, t: L.no_space(job.when(job.node_of(c), t)), "No space left on device"
    )


def host_oom(job: Job) -> Truth:
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    pid = job.pid(c)
    job.kern(job.node_of(c), t, lambda dt, up: L.oom_killer(dt, node_of(job, c), up, pid))
    die(job, c, t, -9, seq)
    return Truth(c, f"{node_of(job, c)}/kern.log", f"Out of memory: Killed process {pid}")


def device_fault(job: Job) -> Truth:
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    code, bus = job.rng.choice((79, 48)), BUSES[job.local(c) % len(BUSES)]
    job.kern(
        job.node_of(c), t, lambda dt, up: L.xid(dt, node_of(job, c), up, code, job.pid(c), bus)
    )
    job.say(c, t + 1, lambda dt: L.cuda_error_after_xid(dt, job.pid(c), c))
    die(job, c, t + 1, -6, seq)
    return Truth(c, f"{node_of(job, c)}/kern.log", f"Xid (PCI:0000:{bus}:00): {code},")


def stall_all(job: Job, c: int, t: float, seq: int) -> None:
    """Every rank but the culprit times out in the collective; every agent tears down."""
    timeouts(job, [r for r in range(job.ranks) if r != c], t + TIMEOUT_S, seq)
    for n in range(job.nodes):
        teardown(job, n, t + TIMEOUT_S + 3, [r for r in range(job.ranks) if job.node_of(r) == n])


def network_fault(job: Job) -> Truth:
    c, step, t, seq = start(job)
    run_steps(job, everyone(job, step))
    other = (job.node_of(c) + 1) % max(job.nodes, 2)
    peer = f"10.0.0.{10 + other}"
    job.say(
        c, t, lambda _dt: L.ib_completion_error(node_of(job, c), job.pid(c), job.local(c), peer)
    )
    stall_all(job, c, t, seq)
    return Truth(c, job.rank_file(c), "Got completion from peer", other, peer)


def hang(job: Job) -> Truth:
    c, step, t, seq = start(job)
    run_steps(job, {**everyone(job, step), c: step - 1})
    stall_all(job, c, t, seq)
    return Truth(c, job.rank_file(c), marker(job.style, step - 1))


def pure_hang(job: Job) -> Truth:
    _, step, t, _ = start(job)
    run_steps(job, everyone(job, step))
    minutes = job.rng.randint(40, 70)
    for n in range(job.nodes):
        if job.rng.random() < 0.5:
            job.kern(n, t + 60 * minutes, lambda dt, up, n=n: [L.kernel_noise(dt, f"node{n}", up)])
        else:
            for m in range(10, minutes + 1, 10):
                alive = job.ranks // job.nodes
                job.launch(
                    n, t + 60 * m, lambda dt, n=n, a=alive: [L.monitor_heartbeat(dt, f"node{n}", a)]
                )
    return Truth(None, job.rank_file(min(job.written)), marker(job.style, step))


def collective_timeout(job: Job) -> Truth:
    job.layout = "per_rank"
    r = job.rng.randrange(job.ranks)
    job.written = {r}
    preamble(job, kern=False)
    timeouts(job, [r], job.rng.uniform(700, 3000), job.rng.randint(5, 90000))
    return Truth(None, job.rank_file(r), "Watchdog caught collective operation timeout")


def checkpoint_corrupt(job: Job) -> Truth:
    c, _, _, _ = start(job)
    t = 8.0 + job.rng.random() * 10
    path = f"/ckpt/iter_{job.rng.randint(1, 90) * 1000:07d}/mp_rank_{c:02d}/model_optim_rng.pt"
    job.say(c, t, lambda dt: L.checkpoint_corrupt(dt, path))
    die(job, c, t, 1, 3)
    return Truth(c, job.rank_file(c), "failed finding central directory")


def environment_error(job: Job) -> Truth:
    start(job)
    for r in range(job.ranks):
        job.say(r, 6.0 + job.rng.random(), lambda _dt: L.module_not_found("apex"))
        node = job.node_of(r)
        job.launch(
            node,
            8.0,
            lambda dt, r=r, n=node: [
                L.worker_failed(dt, job.agent_pid(n), 1, job.local(r), job.pid(r))
            ],
        )
    return Truth(None, job.rank_file(min(job.written)), "No module named 'apex'")


def preempted(job: Job) -> Truth:
    _, step, t, _ = start(job)
    run_steps(job, everyone(job, step))
    node = job.rng.randrange(job.nodes)
    job.launch(
        node, t, lambda dt: [L.slurm_preempted(dt, job.rng.randint(10**5, 10**7), f"node{node}")]
    )
    for n in range(job.nodes):
        teardown(job, n, t + 1, [r for r in range(job.ranks) if job.node_of(r) == n])
    return Truth(None, "launcher.log", "DUE TO PREEMPTION")


def none(job: Job) -> Truth:
    start(job)
    run_steps(job, everyone(job, job.total))
    t = job.step_t(job.total) + 5
    for r in sorted(job.written):
        job.say(r, t, lambda dt: L.training_done(job.style, dt))
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
