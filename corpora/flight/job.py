"""A small gloo training loop whose ranks record Flight Recorder data and dump it, with a
fault injected by the scenario (corpora/flight/run_all.py sets SCENARIO, FAULT_RANK).

Gloo has no dump-on-timeout: a rank dumps its buffer with torch's own
`_dump_fr_trace()` (JSON: `_dump_fr_trace_json()`) where NCCL's watchdog would, after
its collective failed, and a rank stuck outside any collective dumps from a timer
thread, as NCCL ranks do on the TCPStore's dump signal.
"""

from __future__ import annotations

import datetime
import faulthandler
import os
import signal
import sys
import threading
import time

import torch
import torch._C._distributed_c10d as c10d
import torch.distributed as dist

SCENARIO = os.environ["SCENARIO"]
FAULT_RANK = int(os.environ.get("FAULT_RANK", "1"))
FAULT_STEP = int(os.environ.get("FAULT_STEP", "5"))
STEPS = int(os.environ.get("STEPS", "8"))
DUMPS = os.environ["DUMPS"]
# frames of the model's own code under each collective (a real model's stacks are deep)
DEPTH = int(os.environ.get("DEPTH", "0"))
JSON = os.environ.get("DUMP_JSON") == "1"
TIMEOUT = 6  # seconds: the collective timeout
WAIT_DUMPS = 5  # seconds a failed rank waits before it exits, for the stuck rank to dump


def dump_path(rank: int) -> str:
    return os.path.join(
        DUMPS, os.environ.get("DUMP_NAME", "nccl_trace_rank_{rank}").format(rank=rank)
    )


def dump(rank: int) -> None:
    data = c10d._dump_fr_trace_json() if JSON else c10d._dump_fr_trace()
    os.makedirs(os.path.dirname(dump_path(rank)), exist_ok=True)
    with open(dump_path(rank), "wb") as f:
        f.write(data)
    print(f"[rank{rank}] Flight Recorder trace dumped to {dump_path(rank)}", flush=True)


def stuck(rank: int, where: str) -> None:
    """Hang outside any collective until the others have timed out; then dump (and print
    the stack, as a py-spy or faulthandler watchdog would) and exit."""

    def later() -> None:
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        dump(rank)
        os._exit(1)

    threading.Timer(TIMEOUT + 2, later).start()
    print(f"[rank{rank}] {where}", flush=True)
    time.sleep(600)


def load_batch(rank: int, step: int) -> torch.Tensor:
    if SCENARIO == "hang-dataloader" and rank == FAULT_RANK and step == FAULT_STEP:
        stuck(rank, "reading the next shard")
    return torch.full((16,), float(rank + step))


def train_step(rank: int, step: int, model: torch.Tensor, sub: object) -> None:
    batch = load_batch(rank, step)
    grad = batch * model
    faulty = rank == FAULT_RANK and step == FAULT_STEP
    if SCENARIO in ("hang-compute", "wrapped-buffer", "incomplete") and faulty:
        stuck(rank, "computing a long evaluation")
    if SCENARIO == "mismatch-size" and faulty:
        grad = torch.cat([grad, grad])
    if SCENARIO == "mismatch-dtype" and faulty:
        grad = grad.double()
    if SCENARIO == "mismatch-op" and faulty:
        out = [torch.zeros_like(grad) for _ in range(dist.get_world_size())]
        dist.all_gather(out, grad)
    elif SCENARIO == "uneven-inputs" and rank == FAULT_RANK and step >= FAULT_STEP:
        dist.barrier()  # this rank's data ran out: it goes to the final barrier
        return
    else:
        dist.all_reduce(grad)
    if SCENARIO == "two-groups":
        if step == FAULT_STEP and rank == FAULT_RANK:
            stuck(rank, "saving its shard")
        if rank in (2, 3):
            dist.broadcast(grad, 2, group=sub)
    model.copy_(1 + grad.sum().remainder(1000) * 1e-6)  # bounded over thousands of steps
    print(f"[rank{rank}] step {step}/{STEPS} loss {float(model.sum()):.4f}", flush=True)


def nested(depth: int, rank: int, step: int, model: torch.Tensor, sub: object) -> None:
    """The layers of a deep model's forward and backward above each step's collective."""
    if depth <= 0:
        train_step(rank, step, model, sub)
    else:
        nested(depth - 1, rank, step, model, sub)


def on_sigterm(rank: int) -> None:
    """The launcher tears the job down: dump first (a rank gloo aborted takes the others
    down before their collectives time out)."""

    def handler(signum: int, frame: object) -> None:
        if not os.path.exists(dump_path(rank)):
            dump(rank)
        os._exit(143)

    signal.signal(signal.SIGTERM, handler)


def main() -> None:
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=TIMEOUT))
    rank = dist.get_rank()
    on_sigterm(rank)
    sub = dist.new_group([2, 3]) if SCENARIO == "two-groups" else None
    model = torch.ones(16)
    try:
        for step in range(1, STEPS + 1):
            nested(DEPTH, rank, step, model, sub)
        dist.barrier()
    except Exception as e:
        print(f"[rank{rank}] collective failed: {type(e).__name__}", flush=True)
        dump(rank)
        time.sleep(
            WAIT_DUMPS
        )  # NCCL waits for its peers' dumps too (TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC)
        raise
    if SCENARIO == "healthy":
        dump(rank)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
