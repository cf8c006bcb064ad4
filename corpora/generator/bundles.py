"""Seeded generator of multi-rank training-failure log bundles with their labels.

    python -m corpora.generator.bundles OUT --seeds 0:200
    python -m corpora.generator.bundles OUT --seeds 2000:2100 [--layout slurm]

writes OUT/seed_<N>/logs/... and OUT/seed_<N>/label.json for every seed. One seed always
gives byte-identical files (random.Random(seed), a fixed start time, no wall clock).
Seeds below MULTI_SEEDS (2000) use the classic layouts (LAYOUTS), seeds from 2000 on the
multi-node ones (multinode.NODE_LAYOUTS); `layout` forces one layout of the seed's family.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from corpora.generator import lines as L

START = datetime(2026, 11, 29, 10, 0, 0)
TIMEOUT_S = 600.0
LAYOUTS = ("per_rank", "logdir", "console")
# Seeds from here on are multi-node bundles (corpora/generator/multinode.py): the classic
# seeds 0-1999 keep their layouts and bytes.
MULTI_SEEDS = 2000
# category -> (recovery, retryable): the taxonomy defaults.
DEFAULTS: dict[str, tuple[str, bool | None]] = {
    "device_oom": ("fix_and_resubmit", False),
    "host_oom": ("fix_and_resubmit", False),
    "collective_timeout": ("auto_restart", True),
    "network_fault": ("auto_restart", True),
    "device_fault": ("isolate_and_reschedule", True),
    "hang": ("hang_restart", True),
    "storage_fault": ("checkpoint_resume", None),
    "checkpoint_corrupt": ("checkpoint_resume", True),
    "numerical_error": ("checkpoint_resume", None),
    "user_code_error": ("fix_and_resubmit", False),
    "environment_error": ("fix_and_resubmit", False),
    "preempted": ("unconditional_restart", True),
    "none": ("none", None),
}
Lines = list[str]


@dataclass
class Job:
    rng: random.Random
    ranks: int
    nodes: int
    style: str
    layout: str
    step_s: float
    total: int
    skew: list[float]
    uptime: list[float]
    written: set[int]
    rank_out: dict[int, list[tuple[float, Lines]]] = field(default_factory=dict)
    kern_out: dict[int, list[tuple[float, Lines]]] = field(default_factory=dict)
    launcher_out: list[tuple[float, Lines]] = field(default_factory=list)
    mn: Any = None  # multinode.Cluster: hosts, pids, launcher options of a multi-node job

    def node_of(self, rank: int) -> int:
        return rank * self.nodes // self.ranks

    def local(self, rank: int) -> int:
        return rank - self.node_of(rank) * (self.ranks // self.nodes)

    def pid(self, rank: int) -> int:
        return self.mn.pids[rank] if self.mn else 40000 + 7 * rank

    def agent_pid(self, node: int) -> int:
        return self.mn.apids[node] if self.mn else 31000 + node

    def host(self, node: int) -> str:
        return self.mn.hosts[node] if self.mn else f"node{node}"

    def when(self, node: int, t: float) -> datetime:
        return START + timedelta(seconds=t + self.skew[node])

    def step_t(self, step: int) -> float:
        return 30.0 + step * self.step_s

    def say(self, rank: int, t: float, out: Callable[[datetime], Lines]) -> None:
        if rank in self.written:
            self.rank_out.setdefault(rank, []).append((t, out(self.when(self.node_of(rank), t))))

    def kern(self, node: int, t: float, out: Callable[[datetime, float], Lines]) -> None:
        self.kern_out.setdefault(node, []).append(
            (t, out(self.when(node, t), self.uptime[node] + t))
        )

    def launch(self, node: int, t: float, out: Callable[[datetime], Lines]) -> None:
        self.launcher_out.append((t, out(self.when(node, t))))

    def rank_file(self, rank: int) -> str:
        node = self.node_of(rank)
        if self.mn:
            return self.mn.console(node)
        if self.layout == "console":
            return "console.log"
        if self.layout == "logdir":
            return f"node{node}/attempt_0/{self.local(rank)}/stdout.log"
        return f"node{node}/rank_{rank}.log"


def new_job(rng: random.Random) -> Job:
    nodes = rng.randint(1, 8)
    ranks = nodes * rng.choice((4, 8))
    if rng.random() < 0.05:
        nodes, ranks = 8, rng.choice((256, 512, 1024))
    layout = "per_rank" if ranks > 64 else rng.choice(LAYOUTS)
    return make_job(rng, nodes, ranks, layout)


def make_job(rng: random.Random, nodes: int, ranks: int, layout: str) -> Job:
    """A job of this shape: its trainer style, step time, length, clocks (one draw order
    for every family, so a seed always gives the same job)."""
    return Job(
        rng=rng,
        ranks=ranks,
        nodes=nodes,
        style=rng.choice(L.PROGRESS_STYLES),
        layout=layout,
        step_s=round(rng.uniform(0.5, 5.0), 3),
        total=rng.randint(50, 300),
        skew=[round(rng.uniform(-20, 20), 3) for _ in range(nodes)],
        uptime=[rng.uniform(1e5, 2e6) for _ in range(nodes)],
        written=set(range(ranks)),
    )


def marker(style: str, step: int) -> str:
    """Text that only the progress line of `step` contains."""
    return {
        "megatron": f"iteration {step:>8}/",
        "plain": f"step {step}/",
        "hf": f"global step {step}:",
    }[style]


def preamble(job: Job, kern: bool = True) -> None:
    for rank in sorted(job.written):
        node, t = job.node_of(rank), 2.0 + job.rng.random() * 3
        ip = f"10.0.0.{10 + node}"
        job.say(
            rank,
            t,
            lambda _dt, r=rank, n=node, i=ip: L.nccl_init(f"node{n}", job.pid(r), job.local(r), i),
        )
        job.say(rank, t + 1, lambda dt, r=rank: L.benign_warnings(dt, job.pid(r), r))
    for node in range(job.nodes if kern else 0):
        job.kern(node, 1.0, lambda dt, up, n=node: [L.kernel_noise(dt, f"node{n}", up)])


StepSayer = Callable[[Job, int, float, int, float, float], None]


def say_step(job: Job, rank: int, t: float, step: int, step_ms: float, loss: float) -> None:
    """One progress line of a rank at time `t`."""
    job.say(rank, t, lambda dt: L.progress(job.style, dt, step, job.total, step_ms, loss))


def run_steps(job: Job, until: dict[int, int], say: StepSayer = say_step) -> None:
    """Progress lines of each written rank up to and including its step in `until`;
    `say` writes one (the multi-node family's prints the trainer's rank)."""
    interval = 1 if job.step_s > 2 else job.rng.choice((1, 5, 10))
    for rank in sorted(job.written):
        for step in range(1, until.get(rank, 0) + 1):
            if step % interval and step != until[rank]:
                continue
            ms = job.step_s * 1000 * (1 + job.rng.uniform(-0.02, 0.02))
            loss = 3.2 - 1.5 * step / job.total + job.rng.uniform(-0.03, 0.03)
            t = job.step_t(step) + job.rng.random() * 0.05
            say(job, rank, t, step, ms, loss)


def timeouts(job: Job, ranks: list[int], t: float, seq: int) -> None:
    numel = job.rng.choice((16777216, 8388608, 33554432))
    for rank in ranks:
        dt = t + job.rng.random() * 2
        job.say(rank, dt, lambda d, r=rank: L.watchdog_timeout(d, job.pid(r), r, seq, numel))


def teardown(job: Job, node: int, t: float, ranks: list[int]) -> None:
    for rank in ranks:
        job.launch(node, t, lambda dt, r=rank: [L.sigterm(dt, job.agent_pid(node), job.pid(r))])


def die(job: Job, culprit: int, t: float, exitcode: int, seq: int) -> None:
    """The culprit's process ends: its agent tears its node down, other nodes time out."""
    node = job.node_of(culprit)
    siblings = [r for r in range(job.ranks) if job.node_of(r) == node and r != culprit]
    a = job.agent_pid(node)
    job.launch(
        node,
        t + 3,
        lambda dt: [L.worker_failed(dt, a, exitcode, job.local(culprit), job.pid(culprit))],
    )
    teardown(job, node, t + 3, siblings)
    others = [r for r in range(job.ranks) if job.node_of(r) != node]
    timeouts(job, others, t + TIMEOUT_S, seq)
    for n in sorted({job.node_of(r) for r in others}):
        teardown(job, n, t + TIMEOUT_S + 3, [r for r in others if job.node_of(r) == n])


def generate(seed: int, out_dir: Path, layout: str | None = None) -> dict[str, object]:
    """Write one bundle under out_dir/logs and its label to out_dir/label.json.

    `layout` forces one layout of the seed's family (classic below MULTI_SEEDS,
    multi-node from it); otherwise the seed chooses."""
    from corpora.generator import multinode
    from corpora.generator.scenarios import SCENARIOS

    multi = seed >= MULTI_SEEDS
    family = multinode.NODE_LAYOUTS if multi else LAYOUTS
    if layout is not None and layout not in family:
        raise ValueError(f"seed {seed} makes {'multi-node' if multi else 'classic'} bundles: "
                         f"layout must be one of {', '.join(family)}")  # fmt: skip
    rng = random.Random(seed)
    name = rng.choice(sorted(SCENARIOS))
    category = name.removeprefix("pure_")
    job = multinode.new_job(rng, layout) if multi else new_job(rng)
    if layout is not None and not multi and job.layout != layout:
        job.layout = layout if job.ranks <= 64 else job.layout
    scenario = (multinode.SCENARIOS if multi else SCENARIOS)[name](job)
    files = multinode.render(job) if multi else render(job)
    recovery, retryable = DEFAULTS[category]
    rank = scenario.rank
    host = job.host(job.node_of(rank)) if rank is not None else None
    # the hosts a verdict may act on: the root cause's, and for a network fault the other
    # end of the link, by its name (when it is one of the job's) and by the address the
    # error names
    act_on = [host] if host is not None else []
    peer = scenario.peer
    if act_on and peer is not None and peer < job.nodes and job.host(peer) != host:
        act_on.append(job.host(peer))
    if act_on and scenario.peer_ip is not None:
        act_on.append(scenario.peer_ip)
    label: dict[str, object] = {
        "category": category,
        "recovery": recovery,
        "retryable": retryable,
        "root_cause_rank": rank,
        "root_cause_host": host,
        "act_on_hosts": act_on,
        "root_cause_file": scenario.file,
        "root_cause_line_contains": scenario.contains,
        "layout": job.layout,
        "ranks": job.ranks,
        "seed": seed,
    }
    if multi:
        label.update(multinode.label_extra(job))
    if scenario.file is not None:
        assert str(scenario.contains) in files[scenario.file], (seed, scenario)
    for name, text in files.items():
        path = out_dir / "logs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (out_dir / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    return label


def _join(events: list[tuple[float, Lines]]) -> str:
    return "".join(line + "\n" for _, out in sorted(events, key=lambda e: e[0]) for line in out)


def render(job: Job) -> dict[str, str]:
    files: dict[str, str] = {}
    if job.layout == "console":
        merged = [
            (t, [ln if ln.startswith(f"[rank{r}]:") else f"[rank{r}]:{ln}" for ln in out])
            for r, events in job.rank_out.items()
            for t, out in events
        ]
        files["console.log"] = _join(merged)
    else:
        for rank, events in job.rank_out.items():
            files[job.rank_file(rank)] = _join(events)
    for node, events in job.kern_out.items():
        files[f"node{node}/kern.log"] = _join(events)
    if job.launcher_out:
        files["launcher.log"] = _join(job.launcher_out)
    return dict(sorted(files.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", default="0:200", help="START:STOP (STOP excluded)")
    parser.add_argument(
        "--layout",
        help="force one layout of the seeds' family: per_rank, logdir, console (seeds "
        "< 2000) or node_dir, node_file, kubectl, slurm (seeds >= 2000)",
    )
    args = parser.parse_args()
    start, stop = (int(x) for x in args.seeds.split(":"))
    for seed in range(start, stop):
        label = generate(seed, args.out / f"seed_{seed}", args.layout)
        print(seed, label["category"], label["layout"], label["ranks"])


if __name__ == "__main__":
    main()
