"""A small real DDP training job (gloo, CPU) with fault injection, for the torchrun corpus.

Run it under torchrun, e.g.::

    torchrun --nproc-per-node 4 --tee 3 --log-dir logs train.py

Environment:

- ``FAULT``: ``none`` (default, a clean run), ``raise`` (a ``KeyError`` from a missing batch
  key), ``shape`` (a real shape-mismatch ``RuntimeError`` from torch), ``hang`` (the rank
  sleeps forever before its next collective, the others block until the gloo timeout),
  ``kill`` (the rank SIGKILLs itself, as the kernel OOM killer would), ``oom`` (the rank
  grows a host buffer of torch tensors under an ``RLIMIT_AS`` cap until torch's CPU
  allocator fails), ``memerror`` (the same with Python objects, until ``MemoryError``),
  ``nan`` (the rank's batch holds a NaN, its loss is NaN and it stops training),
  ``exit`` (the rank calls ``os._exit(1)``: it is gone without a word, no traceback, no
  error file), ``oomkill`` (the rank grows host memory until the kernel's OOM killer kills
  it; only inside a memory cgroup with a limit under 8 GiB, which the caller sets up, e.g.
  ``run_multinode.py``; anywhere else it refuses with a ``RuntimeError``).
- ``FAULT_RANK`` (default 1) and ``FAULT_STEP`` (default 120) select where;
  ``FAULT_ATTEMPTS`` (e.g. ``0``; default: every attempt) in which attempts of a
  supervised run (``HA_ATTEMPT``, set by ``ha-run``, else torchrun's
  ``TORCHELASTIC_RESTART_COUNT`` under ``--max-restarts``) the fault happens.
- ``RESUME=1`` (or ``HA_RESUME=1``, set by ``ha-run`` on a restart): continue from the
  newest checkpoint in ``CKPT_DIR``.
- ``STEPS`` (300), ``LOG_EVERY`` (10), ``CKPT_EVERY`` (100), ``CKPT_DIR`` (``checkpoints``),
  ``PG_TIMEOUT`` (20 seconds, the process-group / gloo collective timeout),
  ``RECORD_ERRORS`` (1: ``main`` is wrapped in torchelastic's ``@record``; 0: it is not).
- ``STEP_SLEEP`` (0): seconds each step sleeps after its optimizer step, so a run takes
  as long as a real one would (a live watch times untimed step lines as they arrive).
- ``LOG_STYLE`` (``logging``: the step lines above; ``timm``, ``mmengine``, ``fairseq``,
  ``detectron2``, ``keras``, ``epoch``: printed as that trainer prints its step lines,
  with no rank and, for four of them, no year or no time at all).
- ``LOG_RANK`` (1: every log line carries ``[rank N]``; 0: it does not, so only the
  launcher's lines tell which rank is which).
- Every rank registers ``faulthandler`` for ``SIGUSR1`` (``kill -USR1 PID`` prints its
  threads' stacks to stderr), as many trainers do; ``ha-run`` uses it to take stacks of
  a hung job when ``py-spy`` is not installed.
- ``RANK_INFO_DIR``: if set, every rank writes ``rank-<RANK>.json`` there at start (global
  rank, local rank, group/node rank, hostname, pid): the ground truth of where each rank
  ran, kept outside the logs.
"""

from __future__ import annotations

import faulthandler
import logging
import math
import os
import resource
import signal
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP

logger = logging.getLogger("train")

IN_DIM, HIDDEN, OUT_DIM, BATCH = 32, 64, 4, 16


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(IN_DIM, HIDDEN),
            nn.ReLU(),
            nn.Linear(HIDDEN, HIDDEN),
            nn.ReLU(),
            nn.Linear(HIDDEN, OUT_DIM),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def make_batch(gen: torch.Generator) -> dict[str, torch.Tensor]:
    x = torch.randn(BATCH, IN_DIM, generator=gen)
    y = torch.randint(0, OUT_DIM, (BATCH,), generator=gen)
    return {"input": x, "target": y}


def exhaust_host_memory(kind: str) -> None:
    """Grow a host-side buffer until the allocator fails, under an address-space cap.

    The cap (current VM size + 2 GiB) keeps this safe on a small machine: the failure is a
    real allocation failure of this process, not of the machine.
    """
    with open("/proc/self/status") as f:
        vm_kib = next(int(line.split()[1]) for line in f if line.startswith("VmSize:"))
    cap = vm_kib * 1024 + (2 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    held: list[object] = []
    chunk = 256 << 20
    while True:
        if kind == "oom":
            # e.g. a rank that caches every decoded sample of its shard in host memory
            held.append(torch.empty(chunk // 4, dtype=torch.float32).fill_(1.0))
        else:
            held.append(bytearray(chunk))


MEMCG_MAX = 8 << 30  # FAULT=oomkill only runs under a memory cgroup limit below this


def memcg_limit() -> int | None:
    """The memory limit of this process's cgroup (v1 or v2), if it has one."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            limit = f"/sys/fs/cgroup/memory{path}/memory.limit_in_bytes"
        elif controllers == "":
            limit = f"/sys/fs/cgroup{path}/memory.max"
        else:
            continue
        try:
            with open(limit) as f:
                value = f.read().strip()
        except OSError:
            continue
        if value.isdigit() and int(value) < MEMCG_MAX:
            return int(value)
    return None


def grow_until_oom_killed() -> None:
    """Touch ever more host memory until the kernel's OOM killer ends this process.

    E.g. a rank that caches every decoded sample of its shard. Safe only inside a memory
    cgroup with a small limit: without one it refuses, and it never goes past the limit.
    """
    limit = memcg_limit()
    if limit is None:
        raise RuntimeError("FAULT=oomkill needs a memory cgroup with a limit under 8 GiB")
    held: list[torch.Tensor] = []
    chunk = 64 << 20
    while len(held) * chunk < limit + chunk:  # the kernel kills us long before this
        held.append(torch.ones(chunk // 4, dtype=torch.float32))
    raise RuntimeError(f"FAULT=oomkill: {len(held) * chunk} bytes allocated, no OOM kill")


def write_rank_info(rank: int, world: int) -> None:
    """Record where this rank runs (ground truth for the corpus labels)."""
    import json
    import socket

    folder = os.environ.get("RANK_INFO_DIR")
    if not folder:
        return
    info = {
        "rank": rank,
        "local_rank": int(os.environ.get("LOCAL_RANK", "0")),
        "node_rank": int(os.environ.get("GROUP_RANK", "0")),
        "role_rank": int(os.environ.get("ROLE_RANK", str(rank))),
        "local_world_size": int(os.environ.get("LOCAL_WORLD_SIZE", "1")),
        "world_size": world,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "master_addr": os.environ.get("MASTER_ADDR"),
        "run_id": os.environ.get("TORCHELASTIC_RUN_ID"),
        "restart_count": int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")),
    }
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".rank-{rank}.json.tmp")
    with open(tmp, "w") as f:
        json.dump(info, f)
    os.replace(tmp, os.path.join(folder, f"rank-{rank}.json"))


def step_line(style: str, step: int, steps: int, loss: float, dt: float) -> str:
    """A step line in the format of a trainer ha-analyze has no signature of its own for
    (``LOG_STYLE``): timm, MMEngine, fairseq, detectron2, Keras, a plain epoch print."""
    if style == "timm":
        return (
            f"Train: 0 [{step:>4}/{steps} ({100 * step // steps:>3}%)]  Loss: {loss:.3f} "
            f"({loss:.2f})  Time: {dt:.3f}s, {16 / dt:.2f}/s  LR: 5.000e-02  Data: 0.001 (0.001)"
        )
    if style == "mmengine":
        return (
            f"{time.strftime('%Y/%m/%d %H:%M:%S')} - mmengine - INFO - Epoch(train)  "
            f"[1][{step:>4}/{steps}]  lr: 5.0000e-02  eta: 0:00:10  time: {dt:.4f}  "
            f"data_time: 0.0010  memory: 10  loss: {loss:.4f}"
        )
    if style == "fairseq":
        return (
            f"{time.strftime('%Y-%m-%d %H:%M:%S')} | INFO | train_inner | epoch 001: "
            f"{step:>6} / {steps} loss={loss:.3f}, ppl={2**loss:.2f}, wps=1000, ups={1 / dt:.2f}, "
            f"num_updates={step}, lr=0.05, gnorm=1.0, train_wall=1, wall=1"
        )
    if style == "detectron2":
        return (
            f"[{time.strftime('%m/%d %H:%M:%S')} d2.utils.events]:  eta: 0:00:10  iter: {step}  "
            f"total_loss: {loss:.3f}  time: {dt:.4f}  data_time: 0.0010  lr: 0.05  max_mem: 10M"
        )
    if style == "keras":
        done = 30 * step // steps
        return f"{step}/{steps} [{'=' * done}>{'.' * (30 - done)}] - ETA: 0:10 - loss: {loss:.4f}"
    if style == "epoch":
        return f"Epoch 1 [{step}/{steps}] loss {loss:.4f}"
    raise ValueError(f"LOG_STYLE={style!r}: not a known style")


def main() -> int:
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    write_rank_info(rank, world)
    # as many trainers do: `kill -USR1 <pid>` prints every thread's stack to stderr
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    tag = f"[rank {rank}] " if os.environ.get("LOG_RANK", "1") == "1" else ""
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s - %(name)s - %(levelname)s - {tag}%(message)s",
        stream=sys.stdout,
    )
    fault = os.environ.get("FAULT", "none")
    fault_rank = int(os.environ.get("FAULT_RANK", "1"))
    fault_step = int(os.environ.get("FAULT_STEP", "120"))
    steps = int(os.environ.get("STEPS", "300"))
    log_every = int(os.environ.get("LOG_EVERY", "10"))
    step_sleep = float(os.environ.get("STEP_SLEEP", "0"))
    ckpt_every = int(os.environ.get("CKPT_EVERY", "100"))
    ckpt_dir = os.environ.get("CKPT_DIR", "checkpoints")
    pg_timeout = int(os.environ.get("PG_TIMEOUT", "20"))
    attempts = os.environ.get("FAULT_ATTEMPTS")
    # the attempt: ha-run's, else torchrun's own restart count (--max-restarts)
    this_attempt = os.environ.get("HA_ATTEMPT") or os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    faulty = (
        fault != "none"
        and rank == fault_rank
        and (attempts is None or this_attempt in attempts.split(","))
    )

    dist.init_process_group("gloo", timeout=timedelta(seconds=pg_timeout))
    logger.info(
        "initialized process group: backend=%s world_size=%d torch=%s",
        dist.get_backend(),
        world,
        torch.__version__,
    )
    torch.manual_seed(0)
    model = DDP(MLP())
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(1234 + rank)
    logger.info(
        "model has %d parameters; training for %d steps, batch %d per rank",
        sum(p.numel() for p in model.parameters()),
        steps,
        BATCH,
    )
    if rank == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
    first = 1
    if "1" in (os.environ.get("RESUME"), os.environ.get("HA_RESUME")):
        saved = sorted(
            (int(f.split("-")[1].split(".")[0]), f)
            for f in (os.listdir(ckpt_dir) if os.path.isdir(ckpt_dir) else [])
            if f.startswith("checkpoint-") and f.endswith(".pt")
        )
        if saved:
            step0, name = saved[-1]
            state = torch.load(os.path.join(ckpt_dir, name), weights_only=True)
            model.module.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            first = step0 + 1
            for _ in range(step0):  # the same batches as an uninterrupted run
                make_batch(gen)
            logger.info("resumed from checkpoint %s at step %d", name, step0)

    t0 = time.time()
    for step in range(first, steps + 1):
        batch = make_batch(gen)
        if faulty and step == fault_step:
            if fault == "raise":
                # a collate function renamed the key; the loop still asks for the old one
                batch = {"inputs": batch["input"], "target": batch["target"]}
            elif fault == "shape":
                batch["input"] = torch.randn(BATCH, IN_DIM + 1, generator=gen)
            elif fault == "nan":
                batch["input"][3, 7] = float("nan")
            elif fault == "hang":
                # e.g. a deadlocked data-loader worker: no error, no output, no progress
                while True:
                    time.sleep(3600)
            elif fault == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            elif fault in ("oom", "memerror"):
                exhaust_host_memory(fault)
            elif fault == "exit":
                # e.g. a library calling exit() deep inside a C extension: no message at all
                os._exit(1)
            elif fault == "oomkill":
                grow_until_oom_killed()

        out = model(batch["input"])
        loss = loss_fn(out, batch["target"])
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            logger.error("Loss is %s, stopping training", loss_value)
            sys.exit(1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        time.sleep(step_sleep)  # a real step's length, where a test needs one

        if step % log_every == 0 or step == first:
            dt = (time.time() - t0) / (step - first + 1)
            style = os.environ.get("LOG_STYLE", "logging")
            if style == "logging":
                logger.info(
                    "step %d/%d loss %.4f (%.1f ms/step)", step, steps, loss_value, dt * 1e3
                )
            else:  # another trainer's step line, printed as that trainer prints it
                print(step_line(style, step, steps, loss_value, dt), flush=True)
        if step % ckpt_every == 0:
            if rank == 0:
                path = os.path.join(ckpt_dir, f"checkpoint-{step}.pt")
                torch.save(
                    {
                        "step": step,
                        "model": model.module.state_dict(),
                        "optimizer": opt.state_dict(),
                    },
                    path,
                )
                logger.info("saved checkpoint to %s", path)
            dist.barrier()

    logger.info("training finished: %d steps in %.1f s", steps, time.time() - t0)
    # every rank idle before gloo's threads go: tearing them down mid-operation aborts
    # a rank now and then ("terminate called without an active exception")
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    # @record writes the exception to torchelastic's error file, so the launcher's
    # ChildFailedError summary shows it; RECORD_ERRORS=0 runs without it.
    entry = record(main) if os.environ.get("RECORD_ERRORS", "1") == "1" else main
    code = entry()
    # gloo's C++ threads can still abort the process in the interpreter's own teardown
    # ("terminate called without an active exception", about one run in fifteen here)
    # after a clean destroy_process_group: a finished run leaves without running it.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
