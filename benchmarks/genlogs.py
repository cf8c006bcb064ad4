"""Deterministic, realistic training logs for every benchmark (one generator for all).

Each file is what one rank of a Megatron-LM/PyTorch job on NCCL writes: an init phase
heavy with NCCL INFO lines, then Megatron iteration lines (about a third of all lines,
iteration numbers and timestamps rising about one step per second of log time), Python
logging, tqdm redraws with \\r, dataloader warnings, checkpoint saves and now and then a
harmless caught traceback; real errors are as rare as in a healthy run. A failure is
planted at the end:

  single  one rank-0 log ending in a CUDA out-of-memory traceback;
  job     a folder of rank_NNNN.log files: one rank (137, or (ranks//2 + 9) % ranks in a
          smaller job) ends in that OOM, every other rank ten minutes of log time later
          in the PyTorch NCCL watchdog timeout and a torchelastic SIGTERM teardown.

`OUT.expected.json` beside the output (file or folder; outside the folder, so it is not
read as evidence) records the planted root cause (category, signature, message, rank,
file, line) and the parameters; an output whose record matches the request is reused,
so benchmarks do not regenerate it on every run.

Same arguments and seed -> byte-identical files (gzip level 1 without name or mtime,
zstd level 3 streamed; a compressed file holds exactly the plain bytes). Memory stays
bounded (~30-45 MB RSS) whatever the size, and generation is fast (plain ~240 MB/s, zstd
~180, gzip ~130 on the 2-core development machine, 1 GiB): line variants are
rendered once into a pool and each step only fills its rising fields (time, iteration,
consumed samples) through one %-format of a pre-built template.

    python benchmarks/genlogs.py single OUT.log [--mib 1024] [--compress none|gzip|zstd] [--seed N]
    python benchmarks/genlogs.py job OUTDIR [--ranks 256] [--mib 100] [--compress ...] [--distinct K]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import queue
import random
import sys
import threading
import time
from array import array
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, BinaryIO, Literal

Compress = Literal["none", "gzip", "zstd"]
COMPRESS: tuple[Compress, ...] = ("none", "gzip", "zstd")
EXT: dict[str, str] = {"none": "", "gzip": ".gz", "zstd": ".zst"}

# Bump whenever the bytes produced change, so outputs recorded by another version are rebuilt.
FORMAT = 1
SEED = 20261129
START = datetime(2026, 11, 29, 10, 0, 0, tzinfo=timezone.utc)  # the first training step
GLOBAL_BATCH = 1024
CKPT_EVERY = 2000  # iterations between checkpoint saves
CKPT_SECONDS = 24  # log time a save takes
WATCHDOG_MS = 600_000  # NCCL timeout: the other ranks give up ten minutes later
CULPRIT = 137
# zlib at the default level 6 manages ~75 MB/s here and would be the bottleneck; level 1
# keeps gzip output above 100 MB/s (files ~30% larger; reading them costs the same).
GZIP_LEVEL = 1
ZSTD_LEVEL = 3
OOM_SIGNATURE = "cuda-out-of-memory"
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 1 has a total "
    "capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process "
    "has 77.94 GiB memory in use. Of the allocated memory 72.61 GiB is allocated by PyTorch, and "
    "3.87 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
    "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)

_GROUPS = 4096  # pre-rendered "lines between two iteration lines" variants (a power of two)
_ITERS = 2048  # pre-rendered iteration line variants (a power of two)
_BLOCK = 2048  # steps rendered per write
# Sentinels in raw line text, turned into %-format fields once per template.
_HOST, _TIME = "\x01", "\x02"
_STEP, _TOTAL, _SAMPLES = "\x03", "\x04", "\x05"
_PY = "/usr/local/lib/python3.10/dist-packages"
_MEGATRON = "/workspace/Megatron-LM"


def culprit_rank(ranks: int) -> int:
    """The rank that runs out of memory: 137, or a middle rank of a smaller job."""
    return CULPRIT if ranks > CULPRIT else (ranks // 2 + 9) % ranks


def rank_name(rank: int, compress: Compress = "none") -> str:
    """A rank's file name; ha-analyze reads the rank from it (rank_0137.log -> 137)."""
    return f"rank_{rank:04d}.log{EXT[compress]}"


# --- one rank's identity and clock ------------------------------------------------------


def _ident(rank: int, seed: int) -> tuple[str, int]:
    """The NCCL line prefix `host:pid:tid [dev]` of a rank, and its pid."""
    pid = 10000 + (rank * 7919 + seed) % 80000
    return f"gpu-node{rank // 8:03d}:{pid}:{pid + 731} [{rank % 8}]", pid


def _step_second(step: int) -> int:
    """Seconds from START to the iteration line of `step` (1 s a step, pauses to save)."""
    return step + CKPT_SECONDS * ((step - 1) // CKPT_EVERY)


class _Clock:
    """Timestamps as text, cheaply: one table of the 86,400 times of day, dates cached."""

    def __init__(self) -> None:
        self.hms = [f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in range(86400)]
        self.base = int(START.timestamp())
        self.dates: dict[int, str] = {}

    def date(self, day: int) -> str:
        d = self.dates.get(day)
        if d is None:
            d = self.dates[day] = datetime.fromtimestamp(
                self.base + day * 86400, tz=timezone.utc
            ).strftime("%Y-%m-%d ")
        return d

    def at(self, seconds: int) -> str:
        """`YYYY-MM-DD HH:MM:SS` at `seconds` after START (may be negative)."""
        s = seconds + self.base % 86400
        return self.date(s // 86400) + self.hms[s % 86400]


def _glog(seconds: float, tag: str = "E") -> str:
    """A glog header time `E1129 10:40:01.123456` at `seconds` after START."""
    dt = START + timedelta(seconds=seconds)
    return f"{tag}{dt:%m%d %H:%M:%S}.{dt.microsecond:06d}"


def omp_banner(w: str) -> list[str]:
    """torchrun's OMP_NUM_THREADS warning banner, each line behind the glog prefix `w`."""
    return [
        f"{w} ",
        f"{w} *****************************************",
        f"{w} Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
        "to avoid your system being overloaded, please further tune the variable for optimal "
        "performance in your application as needed. ",
        f"{w} *****************************************",
    ]


# --- the pool of line variants ----------------------------------------------------------


def _template(raw: str) -> str:
    """Raw text with sentinels -> a %-format template (literal % doubled)."""
    return (
        raw.replace("%", "%%")
        .replace(_TIME, "%(t)s")
        .replace(_STEP, "%(i)8d")
        .replace(_TOTAL, "%(n)8d")
        .replace(_SAMPLES, "%(c)12d")
    )


def _iteration(rng: random.Random) -> str:
    return (
        f" [{_TIME}] iteration {_STEP}/{_TOTAL} | consumed samples: {_SAMPLES} | "
        f"elapsed time per iteration (ms): {rng.gauss(1012, 25):.1f} | learning rate: "
        f"{rng.uniform(1.2e-4, 3e-4):.6E} | global batch size: {GLOBAL_BATCH:5d} | lm loss: "
        f"{rng.uniform(1.8, 2.9):.6E} | loss scale: 1.0 | grad norm: {rng.uniform(0.2, 1.4):.3f} |"
    )


def _nccl(rng: random.Random, world: int) -> str:
    a, b = rng.randrange(world), rng.randrange(world)
    ch = rng.randrange(32)
    r = rng.random()
    if r < 0.45:
        way = rng.choice(("send", "receive"))
        return (
            f"{_HOST} NCCL INFO Channel {ch:02d}/1 : {a}[{a % 8}] -> {b}[{b % 8}] [{way}] "
            f"via NET/IB/{rng.randrange(8)}/GDRDMA/Shared"
        )
    if r < 0.75:
        return f"{_HOST} NCCL INFO Channel {ch:02d}/0 : {a}[{a % 8}] -> {b}[{b % 8}] via P2P/IPC"
    if r < 0.85:
        return f"{_HOST} NCCL INFO Connected all {rng.choice(('rings', 'trees'))}"
    if r < 0.93:
        return (
            f"{_HOST} NCCL INFO comm 0x{rng.getrandbits(44):x} rank {a % 8} nRanks 8 nNodes 1 "
            f"localRanks 8 localRank {a % 8} MNNVL 0"
        )
    return (
        f"{_HOST} NCCL INFO ncclCommInitRank comm 0x{rng.getrandbits(44):x} rank {a % 8} "
        f"nranks 8 cudaDev {a % 8} nvmlDev {a % 8} busId {rng.choice('1234abcd')}b000 "
        f"commId 0x{rng.getrandbits(64):x} - Init COMPLETE"
    )


def _info(rng: random.Random, ms: int) -> str:
    head = f"{_TIME},{ms:03d} - INFO - "
    r = rng.random()
    if r < 0.25:
        shard = rng.randrange(1000)
        return (
            f"{head}megatron.core.dist_checkpointing - async write of shard {shard} "
            f"flushed to /mnt/ckpt/iter_{rng.randrange(10**6):07d}/__{shard}_0.distcp "
            f"({rng.uniform(50, 900):.1f} MB)"
        )
    if r < 0.45:
        return (
            f"{head}megatron.core.timers - (min, max) time across ranks (ms): forward-backward: "
            f"({rng.uniform(850, 950):.2f}, {rng.uniform(950, 1050):.2f})"
        )
    if r < 0.6:
        return (
            f"{head}megatron.training - throughput {rng.uniform(380, 420):.1f} TFLOP/s/GPU, "
            f"{rng.uniform(3100, 3400):.0f} tokens/s/GPU"
        )
    if r < 0.8:
        return (
            f"{head}megatron.core.datasets.gpt_dataset - prefetch queue {rng.randrange(1, 9)}/8, "
            f"shard /mnt/data/pile_{rng.randrange(30):02d}_text_document.bin "
            f"offset {rng.randrange(10**10)}"
        )
    return (
        f"{head}megatron.training.utils - memory (MB) | allocated: {rng.uniform(40e3, 45e3):.1f} "
        f"| max allocated: {rng.uniform(60e3, 66e3):.1f} | reserved: 70120.0 | "
        "max reserved: 70120.0"
    )


def _warning(rng: random.Random, ms: int) -> str:
    head = f"{_TIME},{ms:03d} - WARNING - "
    r = rng.random()
    if r < 0.55:
        return (
            f"{head}torch.utils.data - worker {rng.randrange(16)} took "
            f"{rng.uniform(0.1, 5):.2f}s to fetch a batch; consider increasing num_workers"
        )
    if r < 0.8:
        return (
            f"{head}torch.distributed - TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, "
            "this environment variable is thus deprecated."
        )
    return (
        f"{head}megatron.core.rerun_state_machine - straggler detector: rank "
        f"{rng.randrange(8)} of this node {rng.uniform(3, 9):.1f}% slower than the median "
        "over the last 100 iterations"
    )


def _tqdm(rng: random.Random) -> str:
    """A transfer bar redrawn with \\r on one physical line (byte units: not a step count)."""
    size = rng.uniform(0.4, 2.0)
    rate = rng.uniform(80, 400)
    what = rng.choice(("Uploading checkpoint shard", "Prefetching data shard"))
    return "".join(
        f"\r{what}: {p:3d}%|{'#' * (p // 10):<10}| {size * p / 100:.2f}G/{size:.2f}G "
        f"[00:{p // 10:02d}<00:{(100 - p) // 10:02d}, {rate + p / 5:.1f}MB/s]"
        for p in range(0, 101, 25)
    )


def _caught(rng: random.Random, ms: int) -> list[str]:
    """A harmless caught traceback (the run goes on), as real jobs print now and then."""
    return [
        f"{_TIME},{ms:03d} - WARNING - megatron.training.utils - tensorboard writer failed, "
        "dropping this summary:",
        "Traceback (most recent call last):",
        f'  File "{_PY}/torch/utils/tensorboard/writer.py", line 1156, in add_scalar',
        "    self._get_file_writer().add_summary(summary, global_step, walltime)",
        f'  File "{_PY}/torch/utils/tensorboard/writer.py", line 105, in add_summary',
        "    self.add_event(event, global_step, walltime)",
        f"UserWarning: tensorboard event queue is full; dropped {rng.randrange(1, 40)} summaries",
    ]


def _group(rng: random.Random, world: int) -> str:
    """The lines one rank prints between two iteration lines, times rising within the second."""
    n = rng.choices((0, 1, 2, 3, 4, 5), (10, 25, 30, 20, 10, 5))[0]
    stamps = sorted(rng.randrange(1000) for _ in range(n))
    out: list[str] = []
    for ms in stamps:
        r = rng.random()
        if r < 0.25:
            out.append(_nccl(rng, world))
        elif r < 0.62:
            out.append(_info(rng, ms))
        elif r < 0.78:
            out.append(_tqdm(rng))
        elif r < 0.9995:
            out.append(_warning(rng, ms))
        else:
            out.extend(_caught(rng, ms))
    return "".join(line + "\n" for line in out)


class _Pool:
    """The line variants every rank of one job (seed) draws its steps from."""

    def __init__(self, seed: int, world: int) -> None:
        rng = random.Random(seed)
        self.iters = [_template(_iteration(rng) + "\n") for _ in range(_ITERS)]
        self.groups = [_template(_group(rng, world)) for _ in range(_GROUPS)]
        self.ckpt = _template(
            f"saving checkpoint at iteration {_STEP} to /mnt/ckpt in torch_dist format\n"
            f"  successfully saved checkpoint at iteration {_STEP} to /mnt/ckpt\n"
            "(min, max) time across ranks (ms):\n"
            "    save-checkpoint ................................: (23411.52, 23498.07)\n"
        )

    def for_rank(self, prefix: str) -> list[str]:
        return [g.replace(_HOST, prefix) for g in self.groups]

    def step_bytes(self) -> float:
        """Mean bytes of one step (fields have fixed widths, so this is exact)."""
        d = {"t": "2026-11-29 10:00:00", "i": 1, "n": 1, "c": 1}
        prefix = _ident(0, 0)[0]
        iters = sum(len(t % d) for t in self.iters) / len(self.iters)
        groups = sum(len(g.replace(_HOST, prefix) % d) for g in self.groups) / len(self.groups)
        return iters + groups + len(self.ckpt % d) / CKPT_EVERY


# --- the parts of a file ----------------------------------------------------------------


def _header(rank: int, world: int, seed: int, clock: _Clock) -> str:
    """Launcher banner, Megatron's argument dump (rank 0) and the heavy NCCL init chatter."""
    rng = random.Random(seed * 31 + rank)
    prefix, pid = _ident(rank, seed)
    node, dev = rank // 8, rank % 8
    t = -95.0
    out: list[str] = []

    def log(level: str, name: str, text: str) -> None:
        nonlocal t
        t += rng.uniform(0.001, 0.4)
        out.append(f"{clock.at(int(t // 1))},{int(t % 1 * 1000):03d} - {level} - {name} - {text}")

    out += omp_banner(_glog(t, "W") + f" {pid - 3} torch/distributed/run.py:793]")
    if rank == 0:
        out.append(
            f"using world size: {world}, data-parallel size: {max(world // 8, 1)}, "
            "context-parallel size: 1, tensor-model-parallel size: 8, "
            "pipeline-model-parallel size: 1"
        )
        out.append("------------------------ arguments ------------------------")
        args = {
            "accumulate_allreduce_grads_in_fp32": "False",
            "bf16": "True",
            "ckpt_format": "torch_dist",
            "data_path": "['/mnt/data/pile_00_text_document']",
            "distributed_backend": "nccl",
            "distributed_timeout_minutes": "10",
            "ffn_hidden_size": "28672",
            "global_batch_size": str(GLOBAL_BATCH),
            "hidden_size": "8192",
            "log_interval": "1",
            "lr": "0.0003",
            "micro_batch_size": "1",
            "num_attention_heads": "64",
            "num_layers": "80",
            "save": "/mnt/ckpt",
            "save_interval": str(CKPT_EVERY),
            "seq_length": "4096",
            "tensor_model_parallel_size": "8",
            "use_distributed_optimizer": "True",
            "world_size": str(world),
        }
        out += [f"  {k} {'.' * (48 - len(k))} {v}" for k, v in args.items()]
        out.append("-------------------- end of arguments ---------------------")
        out.append("> initializing torch distributed ...")
        out.append("NCCL version 2.21.5+cuda12.4")
    log("INFO", "megatron.training.initialize", "setting random seeds to 1234 ...")
    out += [
        f"{prefix} NCCL INFO Bootstrap : Using ib0:10.0.{node % 256}.{5 + dev}<0>",
        f"{prefix} NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)",
        f"{prefix} NCCL INFO cudaDriverVersion 12040",
    ]
    hca = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(8))
    for comm in range(3):  # world, tensor-parallel and data-parallel communicators
        tid = pid + 800 + comm
        p = f"gpu-node{node:03d}:{pid}:{tid} [{dev}]"
        n = (world, 8, max(world // 8, 1))[comm]
        me = (rank, dev, node)[comm] % n
        cid = rng.getrandbits(64)
        addr = rng.getrandbits(44)
        out += [
            f"{p} NCCL INFO NET/IB : Using {hca} ; OOB ib0:10.0.{node % 256}.{5 + dev}<0>",
            f"{p} NCCL INFO Using network IB",
            f"{p} NCCL INFO ncclCommInitRank comm 0x{addr:x} rank {me} nranks {n} cudaDev {dev} "
            f"nvmlDev {dev} busId {dev + 1}b000 commId 0x{cid:x} - Init START",
            f"{p} NCCL INFO Setting affinity for GPU {dev} to ffff,ffffffff",
            f"{p} NCCL INFO comm 0x{addr:x} rank {me} nRanks {n} nNodes {max(n // 8, 1)} "
            f"localRanks {min(n, 8)} localRank {dev % n} MNNVL 0",
            f"{p} NCCL INFO Trees [0] {(me + 1) % n}/-1/-1->{me}->{(me - 1) % n} "
            f"[1] {(me + 1) % n}/-1/-1->{me}->{(me - 1) % n}",
            f"{p} NCCL INFO P2P Chunksize set to 131072",
        ]
        for ch in range(32):
            nxt, prv = (me + 1) % n, (me - 1) % n
            if n > 8 and me % 8 == 7:
                out.append(
                    f"{p} NCCL INFO Channel {ch:02d}/0 : {me}[{dev}] -> {nxt}[{nxt % 8}] "
                    f"[send] via NET/IB/{ch % 8}/GDRDMA"
                )
            else:
                out.append(
                    f"{p} NCCL INFO Channel {ch:02d}/0 : {me}[{dev}] -> {nxt}[{nxt % 8}] via P2P/IPC"
                )
            out.append(
                f"{p} NCCL INFO Channel {ch:02d}/0 : {prv}[{prv % 8}] -> {me}[{dev}] via P2P/IPC"
            )
        out += [
            f"{p} NCCL INFO Connected all rings",
            f"{p} NCCL INFO Connected all trees",
            f"{p} NCCL INFO threadThresholds 8/8/64 | 2048/8/64 | 512 | 512",
            f"{p} NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, "
            "32 p2p channels, 32 p2p channels per peer",
            f"{p} NCCL INFO ncclCommInitRank comm 0x{addr:x} rank {me} nranks {n} cudaDev {dev} "
            f"nvmlDev {dev} busId {dev + 1}b000 commId 0x{cid:x} - Init COMPLETE",
        ]
        log("INFO", "megatron.core.parallel_state", f"communicator {comm} initialized")
    log("INFO", "megatron.training", "building GPT model ...")
    out.append(
        f" > number of parameters on (tensor, pipeline) model parallel rank ({dev}, 0): 8832614400"
    )
    log(
        "INFO", "megatron.core.datasets.blended_megatron_dataset_builder", "Building dataset splits"
    )
    out.append(
        "".join(
            f"\rLoading dataset index: {p:3d}%|{'#' * (p // 10):<10}| {p // 10}/10 "
            f"[00:0{p // 20}<00:0{(100 - p) // 20}, 2.1files/s]"
            for p in range(0, 101, 20)
        )
    )
    log(
        "WARNING",
        "torch.utils.checkpoint",
        "the use_reentrant parameter should be passed explicitly; defaulting to use_reentrant=True",
    )
    out.append(f"[after dataloaders are built] datetime: {clock.at(-1)} ")
    out.append("training ...")
    out.append(f"[before the start of training step] datetime: {clock.at(0)} ")
    return "".join(line + "\n" for line in out)


def _oom_tail(rank: int) -> tuple[list[str], int]:
    """The CUDA OOM traceback that ends the culprit's log, and the index of the OOM line."""
    p = f"[rank{rank}]: "
    lines = [
        "Traceback (most recent call last):",
        f'  File "{_MEGATRON}/pretrain_gpt.py", line 310, in <module>',
        "    pretrain(",
        f'  File "{_MEGATRON}/megatron/training/training.py", line 386, in pretrain',
        "    iteration, num_floating_point_operations_so_far = train(",
        f'  File "{_MEGATRON}/megatron/training/training.py", line 1427, in train',
        "    train_step(forward_step_func,",
        f'  File "{_MEGATRON}/megatron/training/training.py", line 754, in train_step',
        "    losses_reduced = forward_backward_func(",
        f'  File "{_MEGATRON}/megatron/core/pipeline_parallel/schedules.py", line 452, '
        "in forward_backward_no_pipelining",
        "    backward_step(input_tensor, output_tensor, output_tensor_grad, model_type, config)",
        f'  File "{_MEGATRON}/megatron/core/pipeline_parallel/schedules.py", line 363, '
        "in backward_step",
        "    torch.autograd.backward(output_tensor[0], grad_tensors=output_tensor_grad[0])",
        f'  File "{_PY}/torch/autograd/__init__.py", line 289, in backward',
        "    _engine_run_backward(",
        f'  File "{_PY}/torch/autograd/graph.py", line 768, in _engine_run_backward',
        "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine "
        "to run the backward pass",
        OOM,
    ]
    return [p + line for line in lines], len(lines) - 1


def _watchdog_tail(rank: int, step: int, pid: int, at: float) -> list[str]:
    """What a rank left waiting prints when NCCL's watchdog fires, then the teardown."""
    seq = step * 4 + 3
    work = (
        f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        f"Timeout(ms)={WATCHDOG_MS}) ran for {WATCHDOG_MS + 13} milliseconds before timing out."
    )
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
    tid = pid + 902

    def e(dt: float, src: str) -> str:
        return f"[rank{rank}]:[{_glog(at + dt)} {tid} {src}]"

    return [
        f"{e(0.0, 'ProcessGroupNCCL.cpp:632')} [Rank {rank}] Watchdog caught collective "
        f"operation timeout: {work}",
        f"{e(0.0004, 'ProcessGroupNCCL.cpp:2168')} {pg} failure detected by watchdog at work "
        f"sequence id: {seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}",
        f"{e(0.0005, 'ProcessGroupNCCL.cpp:667')} Stack trace of the failed collective not found, "
        "potentially because FlightRecorder is disabled. You can enable it by setting "
        "TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
        f"{e(0.0006, 'ProcessGroupNCCL.cpp:681')} [Rank {rank}] Some NCCL operations have failed "
        "or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations "
        "might run on corrupted/incomplete data.",
        f"{e(0.0007, 'ProcessGroupNCCL.cpp:695')} [Rank {rank}] To avoid data inconsistency, we "
        "are taking the entire process down.",
        f"{e(0.0012, 'ProcessGroupNCCL.cpp:1895')} {pg} Process group watchdog thread terminated "
        f"with exception: [Rank {rank}] Watchdog caught collective operation timeout: {work}",
        f"{_glog(at + 3.41, 'W')} {pid - 3} torch/distributed/elastic/multiprocessing/api.py:897] "
        f"Sending process {pid} closing signal SIGTERM",
    ]


# --- writing ----------------------------------------------------------------------------


class _Out:
    """Plain bytes -> a file, through gzip or zstd if asked; counts bytes and lines.

    Compression runs in a thread (zlib and zstd release the GIL) so that it overlaps
    the rendering; the queue between them is short, so memory stays bounded.
    """

    def __init__(self, path: Path, compress: Compress) -> None:
        self.raw: BinaryIO = path.open("wb")
        self.f: Any = self.raw
        if compress == "gzip":
            self.f = gzip.GzipFile(
                filename="", mode="wb", fileobj=self.raw, compresslevel=GZIP_LEVEL, mtime=0
            )
        elif compress == "zstd":
            import zstandard

            self.f = zstandard.ZstdCompressor(level=ZSTD_LEVEL).stream_writer(
                self.raw, closefd=False
            )
        self.bytes = 0
        self.lines = 0
        self.queue: queue.Queue[bytes | None] = queue.Queue(maxsize=4)
        self.failed: BaseException | None = None
        self.thread: threading.Thread | None = None
        if self.f is not self.raw:
            self.thread = threading.Thread(target=self._drain, daemon=True)
            self.thread.start()

    def _drain(self) -> None:
        while (data := self.queue.get()) is not None:
            if self.failed is None:
                try:
                    self.f.write(data)
                except BaseException as e:  # re-raised in the writing thread
                    self.failed = e

    def write(self, text: str) -> None:
        if self.failed is not None:
            raise self.failed
        data = text.encode()
        if self.thread is None:
            self.f.write(data)
        else:
            self.queue.put(data)
        self.bytes += len(data)
        self.lines += data.count(b"\n")

    def close(self) -> None:
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join()
        try:
            if self.f is not self.raw:
                self.f.close()
        finally:
            self.raw.close()
        if self.failed is not None:
            raise self.failed


def draw(rng: random.Random, n: int) -> array[int]:
    """`n` 16-bit picks from `rng` in one call, the same on every byte order: a block of
    steps picks its line variants from it instead of calling the generator per line."""
    picks = array("H")
    picks.frombytes(rng.randbytes(2 * n))
    if sys.byteorder == "big":
        picks.byteswap()
    return picks


def _steps(out: _Out, groups: list[str], pool: _Pool, steps: int, total: int, seed: int) -> None:
    """Steps 1..`steps`: an iteration line, then the lines of one pre-rendered group."""
    rng = random.Random(seed)
    clock = _Clock()
    iters, ckpt = pool.iters, pool.ckpt
    im, gm = _ITERS - 1, _GROUPS - 1
    d: dict[str, Any] = {"n": total}
    at = clock.at
    for first in range(1, steps + 1, _BLOCK):
        last = min(first + _BLOCK, steps + 1)
        picks = draw(rng, 2 * (last - first))
        parts: list[str] = []
        add = parts.append
        k = 0
        for s in range(first, last):
            d["t"] = at(s + CKPT_SECONDS * ((s - 1) // CKPT_EVERY))
            d["i"] = s
            d["c"] = s * GLOBAL_BATCH
            add(iters[picks[k] & im] % d)
            add(groups[picks[k + 1] & gm] % d)
            k += 2
            if s % CKPT_EVERY == 0:
                add(ckpt % d)
        out.write("".join(parts))


def _plan(mib: int, world: int, seed: int) -> tuple[_Pool, int, int]:
    """The pool, the number of steps that fills `mib` MiB and the iterations planned."""
    pool = _Pool(seed, world)
    clock = _Clock()
    fixed = len(_header(0, world, seed, clock)) + 6000  # header and a tail
    steps = max(10, int(((mib << 20) - fixed) / pool.step_bytes()))
    total = max(500_000, -(-steps * 5 // 4 // 100_000) * 100_000)
    return pool, steps, total


def _write_rank(
    path: Path,
    rank: int,
    world: int,
    culprit: bool,
    pool: _Pool,
    steps: int,
    total: int,
    compress: Compress,
    seed: int,
) -> dict[str, Any]:
    """One rank's whole log; returns its size, and where the OOM line is if it has one."""
    prefix, pid = _ident(rank, seed)
    out = _Out(path, compress)
    try:
        out.write(_header(rank, world, seed, _Clock()))
        _steps(out, pool.for_rank(prefix), pool, steps, total, seed * 1_000_003 + rank)
        end = _step_second(steps)
        info: dict[str, Any] = {}
        if culprit:
            tail, at = _oom_tail(rank)
            info = {"line": out.lines + at + 1, "text": tail[at]}
        else:
            tail = _watchdog_tail(rank, steps, pid, end + 0.6 + WATCHDOG_MS / 1000 + 0.013)
        out.write("".join(line + "\n" for line in tail))
    finally:
        out.close()
    return {"bytes": out.bytes, "lines": out.lines, **info}


def record_of(out: Path) -> Path:
    """Where the planted cause of a generated file or folder is recorded: beside it."""
    return out.with_name(out.name + ".expected.json")


def _done(record: Path, params: dict[str, Any], base: Path) -> bool:
    """Whether `record` describes a complete output made with these parameters."""
    try:
        rec = json.loads(record.read_text())
    except (OSError, ValueError):
        return False
    if rec.get("params") != params:
        return False
    files = rec.get("sizes", {})
    return bool(files) and all(
        (base / name).is_file() and (base / name).stat().st_size == size
        for name, size in files.items()
    )


def _planted(
    params: dict[str, Any],
    rank: int,
    file: str,
    info: dict[str, Any],
    steps: int,
    sizes: dict[str, int],
) -> dict[str, Any]:
    """The record of a generated output: its parameters and the root cause planted."""
    return {
        "params": params,
        "category": "device_oom",
        "signature": OOM_SIGNATURE,
        "message": OOM,
        "rank": rank,
        "file": file,
        "line": info["line"],
        "text": info["text"],
        "steps": steps,
        "sizes": sizes,
    }


def _record(record: Path, data: dict[str, Any]) -> None:
    tmp = record.with_name(record.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, record)


def _single_path(path: Path, compress: Compress) -> Path:
    if compress != "none" and not path.name.endswith(EXT[compress]):
        return path.with_name(path.name + EXT[compress])
    return path


def single(
    path: Path | str,
    mib: int = 1024,
    compress: Compress = "none",
    seed: int = SEED,
    force: bool = False,
) -> Path:
    """One rank-0 log of about `mib` MiB ending in a CUDA OOM traceback; returns its path.

    The scan benchmark reads one large file: this is that file, with the mix of lines a
    real rank writes. `path` gets .gz/.zst appended when compressed (unless it has it);
    the planted cause goes to `<file>.expected.json`. A complete earlier output made with
    the same parameters is reused unless `force`.
    """
    path = _single_path(Path(path), compress)
    record = record_of(path)
    params = {"format": FORMAT, "kind": "single", "mib": mib, "compress": compress, "seed": seed}
    if not force and _done(record, params, path.parent):
        return path
    record.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    world = 256
    pool, steps, total = _plan(mib, world, seed)
    info = _write_rank(path, 0, world, True, pool, steps, total, compress, seed)
    _record(
        record,
        _planted(params, 0, path.name, info, steps, {path.name: path.stat().st_size})
        | {"bytes_written": info["bytes"], "lines": info["lines"]},
    )
    return path


def job(
    outdir: Path | str,
    ranks: int = 256,
    mib: int = 100,
    compress: Compress = "none",
    distinct: int | None = None,
    seed: int = SEED,
    force: bool = False,
) -> Path:
    """A job folder of `ranks` rank_NNNN.log files of about `mib` MiB each; returns it.

    The multi-rank benchmarks need a whole failed job: one rank (`culprit_rank`) runs out
    of memory, the others time out in NCCL ten minutes later, as a real job fails. Every
    rank runs the same steps on the same clock. `distinct` < ranks writes that many
    healthy ranks and hard-links the other healthy ranks to them (256 x 100 MiB would be
    25 GiB of disk and page cache): a linked file is byte-identical to its twin, so the
    rank its watchdog lines name is the twin's (its path still names its own). The
    culprit is always a file of its own. The planted cause goes to `record_of(outdir)`;
    a complete earlier output with the same parameters is reused unless `force`.
    """
    outdir = Path(outdir)
    healthy = [r for r in range(ranks) if r != culprit_rank(ranks)]
    k = len(healthy) if distinct is None else max(1, min(distinct, len(healthy)))
    record = record_of(outdir)
    params = {
        "format": FORMAT,
        "kind": "job",
        "ranks": ranks,
        "mib": mib,
        "compress": compress,
        "distinct": k,
        "seed": seed,
    }
    if not force and _done(record, params, outdir):
        return outdir
    outdir.mkdir(parents=True, exist_ok=True)
    record.unlink(missing_ok=True)
    for old in outdir.glob("rank_*.log*"):
        old.unlink()
    pool, steps, total = _plan(mib, ranks, seed)
    bad = culprit_rank(ranks)
    info = _write_rank(
        outdir / rank_name(bad, compress), bad, ranks, True, pool, steps, total, compress, seed
    )
    total_bytes = info["bytes"]
    for j, r in enumerate(healthy):
        dest = outdir / rank_name(r, compress)
        if j < k:
            total_bytes += _write_rank(dest, r, ranks, False, pool, steps, total, compress, seed)[
                "bytes"
            ]
        else:
            os.link(outdir / rank_name(healthy[j % k], compress), dest)
    sizes = {
        rank_name(r, compress): (outdir / rank_name(r, compress)).stat().st_size
        for r in range(ranks)
    }
    _record(
        record,
        _planted(params, bad, rank_name(bad, compress), info, steps, sizes)
        | {"bytes_written": total_bytes},
    )
    return outdir


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="kind", required=True)
    one = sub.add_parser("single", help="one rank-0 log ending in a CUDA OOM")
    one.add_argument("out", type=Path)
    one.add_argument("--mib", type=int, default=1024)
    many = sub.add_parser("job", help="a folder of rank logs; one rank OOMs, the rest time out")
    many.add_argument("out", type=Path)
    many.add_argument("--ranks", type=int, default=256)
    many.add_argument("--mib", type=int, default=100)
    many.add_argument(
        "--distinct", type=int, default=None, help="healthy ranks written (rest linked)"
    )
    for p in (one, many):
        p.add_argument("--compress", choices=COMPRESS, default="none")
        p.add_argument("--seed", type=int, default=SEED)
        p.add_argument("--force", action="store_true", help="regenerate even if up to date")
    a = ap.parse_args(argv)
    out = _single_path(a.out, a.compress) if a.kind == "single" else a.out
    record = record_of(out)
    before = record.stat().st_mtime_ns if record.exists() else None
    t = time.perf_counter()
    if a.kind == "single":
        single(a.out, a.mib, a.compress, a.seed, a.force)
    else:
        job(a.out, a.ranks, a.mib, a.compress, a.distinct, a.seed, a.force)
    took = time.perf_counter() - t
    rec = json.loads(record.read_text())
    made = 0 if record.stat().st_mtime_ns == before else rec["bytes_written"]
    speed = (
        f"written in {took:.1f} s, {made / 1e6 / max(took, 1e-9):,.0f} MB/s" if made else "reused"
    )
    print(
        f"{out}: {made / 1e6:,.1f} MB of log {speed}; planted {rec['category']} on rank "
        f"{rec['rank']}, {rec['file']} line {rec['line']}"
    )


if __name__ == "__main__":
    main()
