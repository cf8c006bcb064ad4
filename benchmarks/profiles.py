"""Benchmark profiles: logs whose shape, not only size, decides how fast a scan runs (issue 19).

One sparse log says little about speed on the logs people really feed ha-analyze: a
console where warnings and retried errors hit signatures every step costs the exact
checks far more, an Ascend job's plog chatter is a different mix of prefixes, and a
tqdm bar redrawn with \\r makes physical lines kilobytes long. Each profile is one
realistic training log ending in a planted real failure, recorded like genlogs does in
`OUT.expected.json` beside it (category, signature, message, rank, file, line, text):

  sparse   genlogs.single: a Megatron rank-0 log, CUDA OOM at the end (sparse hits).
  dense    a 2-node `srun --label torchrun --tee 3` console of Megatron-DeepSpeed ZeRO-3
           in fp16: DeepSpeed step, throughput and OVERFLOW lines, allocator-flush
           warnings every step, torch UserWarnings, NCCL IB completion errors recovered by
           NCCL's IB resiliency, connect retries, caught tracebacks on all eight local
           ranks; ends in an uncorrectable ECC error on rank 13, node 0 in NCCL timeouts.
  plog     a torch_npu rank's stdout with ASCEND_SLOG_PRINT_TO_STDOUT=1 at INFO level:
           HCCL/RUNTIME/GE/ASCENDCL/PROFILING plog lines around MindSpeed iteration
           lines; ends in an HCCL Notify-wait task failure and the EI0002 screen error.
  tqdm     a Hugging Face Trainer run (stdout and stderr in one file): a training bar
           redrawn with \\r fifty times per physical line, the loss dicts tqdm.write puts
           between, nested evaluation bars (\\x1b[A), checkpoint saves; ends when a save
           fails in torch.save (disk full: PytorchStreamWriter failed writing file).
  job256   genlogs.job with 256 ranks: one OOM, 255 NCCL watchdog timeouts.
  console  the merged console of an 8-rank torchtitan job as `torchrun --role rank --tee 3`
           (or `kubectl logs` of its pod) collects it: every rank prints its colored step
           line each step, `[rankN]:` in front; FutureWarnings from activation
           checkpointing, NCCL WARN socket retries, periodic GC lines, an evaluation bar
           per rank redrawn with \r; ends in a CUDA OOM on rank 5 and the others' NCCL
           watchdog timeouts. `console-bare` is the same job without the rank prefixes
           (torchrun without --tee: the children's output merged as it comes);
           `console64` has 64 ranks (8 nodes, Slurm's `srun --label` task prefix).

Line formats follow real instances (GitHub issues, vendor docs, the repository's
corpora): NCCL `host:pid:tid [dev] file:line NCCL WARN ...`, DeepSpeed `[time] [LEVEL]
[file:line:func]`, CANN plog `[LEVEL] MODULE(pid,python):YYYY-MM-DD-HH:MM:SS.mmm.uuu
[file:line]...`, tqdm's own bar layout (10-cell bar when not a tty, `%5.2f` rates).
Values (hosts, pids, addresses, losses) are made up.

Generation works as genlogs does, and shares its writer and clock: the lines of one step
are rendered into a pool of variants once, each step picks one and fills its rising
fields (time, step, samples, the bar's counters) through one %-format. Same arguments
and seed -> byte-identical output; memory stays bounded; gzip/zstd through genlogs' _Out.

    python benchmarks/profiles.py PROFILE OUT [--mib 64] [--compress none|gzip|zstd] [--seed N]
    python benchmarks/profiles.py all OUTDIR [--mib 64] ...     (OUTDIR/<profile>-<mib>MiB.log)
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

import genlogs  # benchmarks/genlogs.py: this folder is sys.path[0] when run as a script

Compress = genlogs.Compress
COMPRESS = genlogs.COMPRESS
PROFILES = ("sparse", "dense", "plog", "tqdm", "job256", "console", "console-bare", "console64")
FORMAT = 1  # bump whenever the bytes a profile writes change
SEED = genlogs.SEED
_VARIANTS = 4096  # pre-rendered steps per profile (a power of two: picks are masked)
_BLOCK = 1024  # steps rendered per write
_PY = "/usr/local/lib/python3.10/dist-packages"

# Sentinels in raw text, turned into %-format fields once per template (genlogs' first
# four, so its Megatron iteration line can be reused as it is).
TIME, STEP, TOTAL, SAMPLES = genlogs._TIME, genlogs._STEP, genlogs._TOTAL, genlogs._SAMPLES
NUM = "\x06"  # the step, unpadded (DeepSpeed's step=123)
SKIPPED = "\x07"  # DeepSpeed's skipped-steps counter
STAMP = "\x0e"  # a second form of the time (plog profile: the iteration line's)
BARS = "\x0f"  # tqdm: a window's bar redraws
BAR = "\x10"  # tqdm: the last bar, as tqdm.write redraws it
PAD = "\x11"  # tqdm: the blanks that clear it
EPOCH = "\x12"
LR = "\x13"
GSTEP = "\x14"  # tqdm: the global step at the end of the window
_FIELDS = {
    TIME: "%(t)s",
    STEP: "%(i)8d",
    TOTAL: "%(n)8d",
    SAMPLES: "%(c)12d",
    NUM: "%(i)d",
    SKIPPED: "%(k)d",
    STAMP: "%(u)s",
    BARS: "%(bars)s",
    BAR: "%(bar)s",
    PAD: "%(pad)s",
    EPOCH: "%(e)s",
    LR: "%(lr)s",
    GSTEP: "%(g)d",
}

Fields = Callable[[int], dict[str, Any]]


def template(raw: str) -> str:
    """Raw text with sentinels -> a %-format template (a literal % doubled)."""
    out = raw.replace("%", "%%")
    for sentinel, field in _FIELDS.items():
        out = out.replace(sentinel, field)
    return out


def _ms(rng: random.Random, n: int) -> list[int]:
    """`n` millisecond offsets within one second, in order (lines of a step)."""
    return sorted(rng.randrange(1000) for _ in range(n))


def _hex(rng: random.Random, bits: int = 44) -> str:
    return f"0x{rng.getrandbits(bits):x}"


@cache
def _clock() -> genlogs._Clock:
    """genlogs' clock (its table of the 86,400 times of day is built once)."""
    return genlogs._Clock()


def _planned(steps: int) -> int:
    """The iterations a run planned: a round number past where it died (as genlogs)."""
    return max(500_000, -(-steps * 5 // 4 // 100_000) * 100_000)


@dataclass(frozen=True)
class Script:
    """Everything one single-file profile writes, in the order it writes it.

    A step is one training step (tqdm: one logging window of steps). `steps` are
    %-templates of the lines of one step; step s (1-based) takes variant `pick & (len -
    1)` filled with `fields(s)`, then every event whose period divides s. `header(n)`
    and `make_fields(n)` know the number of steps n (a bar shows its total);
    `tail(n, fields)` gives the closing lines and the index of the planted one.
    """

    header: Callable[[int], str]
    steps: list[str]
    make_fields: Callable[[int], Fields]  # total steps -> the rising fields of step s
    events: tuple[tuple[int, str], ...]
    tail: Callable[[int, Fields], tuple[list[str], int]]
    category: str
    signature: str
    message: str
    rank: int | None


# --- dense: a 2-node Megatron-DeepSpeed console with hits every step --------------------

_DS_NODES = ("gpu-node001", "gpu-node002")
_DS_WORLD = 16
_DS_CULPRIT = 13  # node 1, local rank 5
_DS_AGENT_PID = (41730, 39112)
_ECC = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
_DS = f"{_PY}/deepspeed"


def _ds_pid(rank: int) -> int:
    return _DS_AGENT_PID[rank // 8] + 9 + rank % 8


def _ds_prefix(rank: int) -> str:
    """srun's task label, then torchrun's --tee prefix: `1: [default5]:`."""
    return f"{rank // 8}: [default{rank % 8}]:"


def _ds_nccl(rank: int, tid: int) -> str:
    node = rank // 8
    return f"{_ds_prefix(rank)}{_DS_NODES[node]}:{_ds_pid(rank)}:{tid} [{rank % 8}]"


def _ds_log(ms: int, level: str, where: str, text: str) -> str:
    """DeepSpeed's logger: `[2026-11-29 10:00:01,320] [INFO] [file.py:line:func] text`."""
    return f"[{TIME},{ms:03d}] [{level}] [{where}] {text}"


def _ds_header(seed: int) -> str:
    rng = random.Random(seed * 7 + 1)
    clock = _clock()
    out: list[str] = []
    for node in (1, 0):
        w = (
            f"{node}: {genlogs._glog(-41.8 + (1 - node) * 0.05, 'W')} {_DS_AGENT_PID[node]} "
            "site-packages/torch/distributed/run.py:874]"
        )
        out += genlogs.omp_banner(w)
    t = -30.0

    def ds(rank: int, level: str, where: str, text: str) -> None:
        nonlocal t
        t += rng.uniform(0.001, 0.05)
        stamp = f"[{clock.at(int(t // 1))},{int(t % 1 * 1000):03d}]"
        out.append(f"{_ds_prefix(rank)}{stamp} [{level}] [{where}] {text}")

    for rank in range(_DS_WORLD):
        ds(
            rank,
            "INFO",
            "real_accelerator.py:222:get_accelerator",
            "Setting ds_accelerator to cuda (auto detect)",
        )
    for rank in range(_DS_WORLD):
        ds(rank, "INFO", "comm.py:652:init_distributed", "cdb=None")
    ds(
        0,
        "INFO",
        "comm.py:683:init_distributed",
        "Initializing TorchBackend in DeepSpeed with backend nccl",
    )
    out.append(f"{_ds_prefix(0)}NCCL version 2.29.3+cuda12.9")
    hca = " ".join(f"[{i}]mlx5_{i}:1/IB" for i in range(4))
    for rank in range(_DS_WORLD):
        node, dev = rank // 8, rank % 8
        p = _ds_nccl(rank, _ds_pid(rank) + 212)
        comm = _hex(rng)
        out += [
            f"{p} NCCL INFO Bootstrap: Using ib0:10.0.{node + 1}.{11 + dev}<0>",
            f"{p} NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
            f"{p} NCCL INFO NET/IB : Using {hca} ; OOB ib0:10.0.{node + 1}.{11 + dev}<0>",
            f"{p} NCCL INFO Using network IB",
        ]
        if node == 1:  # node 1 came up first: its connects are refused until node 0 listens
            out += [f"{p} NCCL INFO Call to connect returned Connection refused, retrying"] * 3
        out += [
            f"{p} NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {_DS_WORLD} "
            f"cudaDev {dev} nvmlDev {dev} busId {dev + 1}b000 commId 0x5ae77eb5ea4ec1ee - Init START",
            f"{p} NCCL INFO comm {comm} rank {rank} nRanks {_DS_WORLD} nNodes 2 localRanks 8 "
            f"localRank {dev} MNNVL 0",
            f"{p} NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
            f"{p} NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {_DS_WORLD} "
            f"cudaDev {dev} nvmlDev {dev} busId {dev + 1}b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE",
        ]
    ds(0, "INFO", "config.py:1001:print", "DeepSpeedEngine configuration:")
    ds(0, "INFO", "config.py:1005:print", "  fp16_enabled ................. True")
    ds(0, "INFO", "config.py:1005:print", "  zero_optimization_stage ...... 3")
    ds(0, "INFO", "config.py:1005:print", "  steps_per_print .............. 1")
    out.append(f"{_ds_prefix(15)}[after dataloaders are built] datetime: {clock.at(-1)} ")
    out.append(f"{_ds_prefix(15)}training ...")
    return "".join(line + "\n" for line in out)


def _ds_step(rng: random.Random, iters: list[str]) -> str:
    """The lines of one step: rank 0's DeepSpeed lines, the last rank's Megatron line,
    warnings on some ranks, and now and then a burst of NCCL or Python trouble."""
    lines: list[tuple[int, str]] = []  # (ms, line)
    ms = _ms(rng, 4)
    scale = rng.choice((16384, 32768, 65536, 131072))
    if rng.random() < 0.3:
        lines.append(
            (
                ms[0],
                _ds_prefix(0)
                + _ds_log(
                    ms[0],
                    "INFO",
                    "loss_scaler.py:183:update_scale",
                    f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale}, "
                    f"reducing to {scale // 2}",
                ),
            )
        )
    lines.append(
        (
            ms[1],
            _ds_prefix(0)
            + _ds_log(
                ms[1],
                "INFO",
                "logging.py:128:log_dist",
                f"[Rank 0] step={NUM}, skipped={SKIPPED}, lr=[{rng.uniform(1e-4, 3e-4)!r}], "
                "mom=[(0.9, 0.95)]",
            ),
        )
    )
    lines.append(
        (
            ms[2],
            _ds_prefix(0)
            + _ds_log(
                ms[2],
                "INFO",
                "timer.py:264:stop",
                f"epoch=0/micro_step={NUM}/global_step={NUM}, RunningAvgSamplesPerSec="
                f"{rng.uniform(480, 520)!r}, CurrSamplesPerSec={rng.uniform(430, 560)!r}, "
                f"MemAllocated={rng.uniform(38, 41):.2f}GB, MaxMemAllocated={rng.uniform(70, 76):.2f}GB",
            ),
        )
    )
    iteration = rng.choice(iters).replace("loss scale: 1.0 |", f"loss scale: {scale}.0 |")
    lines.append((ms[3], _ds_prefix(15) + iteration))
    for rank in rng.sample(range(_DS_WORLD), rng.choice((0, 0, 1, 1, 1, 2, 2))):
        t = rng.randrange(1000)
        lines.append(
            (
                t,
                _ds_prefix(rank)
                + _ds_log(
                    t,
                    "WARNING",
                    "stage3.py:2069:step",
                    f"{rng.randrange(1, 4)} pytorch allocator cache flushes since last step. this "
                    "happens when there is high memory pressure and is detrimental to performance. if "
                    "this is happening frequently consider adjusting settings to reduce memory "
                    "consumption. If you are unable to make the cache flushes go away consider adding "
                    "get_accelerator().empty_cache() calls in your training loop to ensure that all "
                    "ranks flush their caches at the same time",
                ),
            )
        )
    if rng.random() < 0.35:
        rank, t = rng.randrange(_DS_WORLD), rng.randrange(1000)
        what = rng.choice(("_all_gather_base", "_reduce_scatter_base"))
        new = {
            "_all_gather_base": "all_gather_into_tensor",
            "_reduce_scatter_base": "reduce_scatter_tensor",
        }[what]
        lines.append(
            (
                t,
                f"{_ds_prefix(rank)}{_PY}/torch/distributed/c10d_logger.py:83: "
                f"UserWarning: torch.distributed.{what} is a private function and will "
                f"be deprecated. Please use torch.distributed.{new} instead.",
            )
        )
        lines.append((t, f"{_ds_prefix(rank)}  return func(*args, **kwargs)"))
    r = rng.random()
    if r < 0.004:  # a flapping IB link, failed over by NCCL's IB resiliency
        a, b = rng.sample(range(_DS_WORLD), 2)
        t = rng.randrange(1000)
        sender, recv = _ds_nccl(a, _ds_pid(a) + 390), _ds_nccl(b, _ds_pid(b) + 390)
        qa, qb = f"::ffff:10.0.{a // 8 + 1}.{11 + a % 8}", f"::ffff:10.0.{b // 8 + 1}.{11 + b % 8}"
        lines += [
            (
                t,
                f"{sender} transport/net_ib/p2p.cc:1125 NCCL WARN NET/IB : Got completion from "
                f"peer 10.0.{b // 8 + 1}.{11 + b % 8}<{rng.randrange(40000, 60000)}> with "
                f"status=12 opcode=1 len=0 vendor err 129 (Send) localGid {qa} remoteGids{qb} "
                f"hca mlx5_{a % 4}",
            ),
            (
                t,
                f"{sender} transport/net_ib/p2p_resiliency.cc:325 NCCL WARN NET/IB: "
                f"ncclIbResiliencyHandleDeviceFailure: Device 0 marked as failed. Initiating "
                f"recovery? Yes (send comm={_hex(rng)}, outstandingRecovery=0)",
            ),
            (
                t,
                f"{recv} transport/net_ib/p2p.cc:1125 NCCL WARN NET/IB : Got completion from "
                f"peer 10.0.{a // 8 + 1}.{11 + a % 8}<{rng.randrange(40000, 60000)}> with "
                f"status=5 opcode=129 len=65536 vendor err 249 (Recv) localGid {qb} "
                f"remoteGids{qa} hca mlx5_{b % 4}",
            ),
        ]
    elif r < 0.009:  # a new sub-communicator: node 1 connects before node 0 listens
        rank = rng.randrange(8, _DS_WORLD)
        lines += [
            (
                rng.randrange(1000),
                f"{_ds_nccl(rank, _ds_pid(rank) + 212)} NCCL INFO Call "
                "to connect returned Connection refused, retrying",
            )
        ] * 2
    elif r < 0.017:  # the checkpoint uploader of every rank on one node hits a reset
        node = rng.randrange(2)
        for dev in range(8):
            t = rng.randrange(1000)
            p = f"{node}: [default{dev}]:"
            attempt = rng.randrange(1, 4)
            lines += [
                (
                    t,
                    f"{p}{TIME},{t:03d} - WARNING - ckpt_upload - upload of /mnt/ckpt/latest/"
                    f"zero_pp_rank_{node * 8 + dev}_mp_rank_00_optim_states.pt failed, retrying "
                    f"(attempt {attempt}/5)",
                ),
                (t, f"{p}Traceback (most recent call last):"),
                (t, f'{p}  File "{_PY}/urllib3/connectionpool.py", line 787, in urlopen'),
                (t, f"{p}    response = self._make_request("),
                (t, f'{p}  File "{_PY}/urllib3/connectionpool.py", line 534, in _make_request'),
                (t, f"{p}    response = conn.getresponse()"),
                (t, f'{p}  File "{_PY}/urllib3/connection.py", line 516, in getresponse'),
                (t, f"{p}    httplib_response = super().getresponse()"),
                (t, f"{p}ConnectionResetError: [Errno 104] Connection reset by peer"),
            ]
    lines.sort(key=lambda x: x[0])
    return "".join(line + "\n" for _, line in lines)


def _ds_tail(steps: int, fields: Fields) -> tuple[list[str], int]:
    """Rank 13's ECC error, node 1's teardown, node 0's ranks timing out ten minutes later."""
    end = genlogs._step_second(steps) + 0.4
    p = f"{_ds_prefix(_DS_CULPRIT)}[rank{_DS_CULPRIT}]: "
    frames = [
        "Traceback (most recent call last):",
        '  File "/workspace/Megatron-DeepSpeed/pretrain_gpt.py", line 356, in <module>',
        "    pretrain(train_valid_test_datasets_provider,",
        '  File "/workspace/Megatron-DeepSpeed/megatron/training.py", line 222, in pretrain',
        "    iteration = train(forward_step_func,",
        '  File "/workspace/Megatron-DeepSpeed/megatron/training.py", line 1211, in train',
        "    train_step(forward_step_func,",
        '  File "/workspace/Megatron-DeepSpeed/megatron/training.py", line 670, in train_step',
        "    model[0].backward(loss)",
        f'  File "{_DS}/runtime/engine.py", line 2126, in backward',
        "    self.optimizer.backward(loss, retain_graph=retain_graph)",
        f'  File "{_DS}/runtime/zero/stage3.py", line 2213, in backward',
        "    self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)",
        f'  File "{_DS}/runtime/fp16/loss_scaler.py", line 63, in backward',
        "    scaled_loss.backward(retain_graph=retain_graph)",
        f'  File "{_PY}/torch/_tensor.py", line 626, in backward',
        "    torch.autograd.backward(",
        f'  File "{_PY}/torch/autograd/__init__.py", line 347, in backward',
        "    _engine_run_backward(",
        f'  File "{_PY}/torch/autograd/graph.py", line 823, in _engine_run_backward',
        "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to "
        "run the backward pass",
        _ECC,
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.",
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    ]
    lines = [p + f for f in frames]
    at = frames.index(_ECC)
    lines.append(f"{_ds_prefix(_DS_CULPRIT)}")
    agent = _DS_AGENT_PID[1]
    api = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
    for dev in range(8):
        if 8 + dev != _DS_CULPRIT:
            lines.append(
                f"1: {genlogs._glog(end + 1.2 + dev * 0.001, 'W')} {agent} {api}:900] "
                f"Sending process {_ds_pid(8 + dev)} closing signal SIGTERM"
            )
    stamp = genlogs.START + timedelta(seconds=end)
    lines += [
        f"1: {genlogs._glog(end + 3.6)} {agent} {api}:874] failed (exitcode: 1) local_rank: 5 "
        f"(pid: {_ds_pid(_DS_CULPRIT)}) of binary: /usr/bin/python3",
        "1: Traceback (most recent call last):",
        '1:   File "/usr/local/bin/torchrun", line 8, in <module>',
        "1:     sys.exit(main())",
        f'1:   File "{_PY}/torch/distributed/run.py", line 905, in run',
        "1:     elastic_launch(",
        f'1:   File "{_PY}/torch/distributed/launcher/api.py", line 263, in launch_agent',
        "1:     raise ChildFailedError(",
        "1: torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "1: ============================================================",
        "1: pretrain_gpt.py FAILED",
        "1: ------------------------------------------------------------",
        "1: Failures:",
        "1:   <NO_OTHER_FAILURES>",
        "1: ------------------------------------------------------------",
        "1: Root Cause (first observed failure):",
        "1: [0]:",
        f"1:   time      : {stamp:%Y-%m-%d_%H:%M:%S}",
        f"1:   host      : {_DS_NODES[1]}",
        f"1:   rank      : {_DS_CULPRIT} (local_rank: 5)",
        f"1:   exitcode  : 1 (pid: {_ds_pid(_DS_CULPRIT)})",
        "1:   error_file: <N/A>",
        "1:   traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "1: ============================================================",
    ]
    for rank in range(8):
        tail = genlogs._watchdog_tail(
            rank, steps, _ds_pid(rank), end + genlogs.WATCHDOG_MS / 1000 + rank * 0.002
        )
        lines += [_ds_prefix(rank) + line for line in tail[:-1]]
        agent_line = tail[-1].replace(f" {_ds_pid(rank) - 3} ", f" {_DS_AGENT_PID[0]} ")
        lines.append("0: " + agent_line.replace(" torch/", " site-packages/torch/"))
    return lines, at


def _dense(seed: int) -> Script:
    rng = random.Random(seed)
    iters = [
        genlogs._iteration(rng) + " number of skipped iterations:   0 | number of nan "
        "iterations:   0 |"
        for _ in range(1024)
    ]
    steps = [template(_ds_step(rng, iters)) for _ in range(_VARIANTS)]
    clock = _clock()

    def make_fields(total: int) -> Fields:
        at, planned = clock.at, _planned(total)

        def fields(s: int) -> dict[str, Any]:
            return {
                "t": at(s),
                "i": s,
                "n": planned,
                "c": s * genlogs.GLOBAL_BATCH,
                "k": s * 3 // 10,
            }

        return fields

    return Script(
        header=lambda steps: _ds_header(seed),
        steps=steps,
        make_fields=make_fields,
        events=(),
        tail=_ds_tail,
        category="device_fault",
        signature="cuda-uncorrectable-ecc",
        message=_ECC,
        rank=_DS_CULPRIT,
    )


# --- plog: a torch_npu rank with CANN's plog on stdout -----------------------------------

_NPU_PID = 77120
_NPU_RANK = 3
_NPU_WORLD = 16
_NPU_HOST_IP = "10.0.3.11"
_NPU_TAG = f"AllReduce_{_NPU_HOST_IP}%enp189s0f0_60000_0_1773972931204001"
_EI0002 = "The wait execution of the Notify register times out."


def _plog(level: str, module: str, us: int, src: str, text: str, tid: int | None = None) -> str:
    """A plog line as CANN writes it: `[INFO] HCCL(pid,python):YYYY-MM-DD-HH:MM:SS.mmm.uuu
    [file.cc:line]...`; RUNTIME puts a space and the thread id after the source, GE and
    ASCENDCL the thread id with no space, HCCL `[tid]` (each as in real plogs)."""
    stamp = f"{TIME}.{us // 1000:03d}.{us % 1000:03d}"
    head = f"[{level}] {module}({_NPU_PID},python):{stamp} [{src}]"
    tid = _NPU_PID if tid is None else tid
    if module == "RUNTIME":
        return f"{head} {tid} {text}"
    if module in ("GE", "ASCENDCL"):
        return f"{head}{tid} {text}"
    if module == "HCCL":
        return f"{head}[{tid}]{text}"
    return f"{head} {text}"


def _npu_header(seed: int) -> str:
    rng = random.Random(seed * 7 + 2)
    clock = _clock()
    out: list[str] = []
    at = -40.0

    def plog(level: str, module: str, src: str, text: str, tid: int | None = None) -> None:
        nonlocal at
        at += rng.uniform(0.0005, 0.05)
        us = int(at % 1 * 1_000_000)
        line = _plog(level, module, us, src, text, tid)
        out.append(line.replace(TIME, clock.at(int(at // 1)).replace(" ", "-")))

    plog(
        "INFO",
        "ASCENDCL",
        "device.cpp:148",
        f"aclrtSetDevice: start to execute aclrtSetDevice, deviceId = {_NPU_RANK}",
    )
    plog("INFO", "RUNTIME", "api_c.cc:1798", "rtSetDevice: There is no devId, do nothing.")
    plog(
        "WARNING",
        "ASCENDCL",
        "device.cpp:157",
        f"aclrtSetDevice: update platform info with device failed, deviceId = {_NPU_RANK}",
    )
    plog(
        "INFO",
        "ASCENDCL",
        "device.cpp:160",
        f"aclrtSetDevice: successfully execute aclrtSetDevice, deviceId = {_NPU_RANK}",
    )
    plog("INFO", "RUNTIME", "raw_device.cc:550", "Init: isAddrFlat:0")
    for env in ("ASCEND_WORK_PATH", "ASCEND_CACHE_PATH"):
        plog("WARNING", "GE", "ge_api.cc:330", f"GEInitializeV2:[Check][Env]Get env[{env}] failed.")
    plog(
        "EVENT",
        "PROFILING",
        "msprof_callback_impl.cpp:199",
        f">>> (tid:{_NPU_PID}) Started to register profiling ctrl callback.",
    )
    plog(
        "INFO",
        "HCCL",
        "op_base.cc:858",
        f"Entry-HcclGetRootInfo:rootInfo[{_hex(rng, 48)}], deviceLogicId[{_NPU_RANK}]",
    )
    plog(
        "INFO",
        "HCCL",
        "op_base.cc:1293",
        f"Entry-HcclCommInitRootInfoInner:ranks[{_NPU_WORLD}], "
        f"rank[{_NPU_RANK}], rootinfo: host ip[{_NPU_HOST_IP}] port[60000] nicDeploy[1] "
        f"identifier[{_NPU_HOST_IP}%enp189s0f0_60000_0_1773972931204001], deviceLogicId[{_NPU_RANK}]",
    )
    plog(
        "INFO",
        "HCCL",
        "topoinfo_detect.cc:208",
        f"[HCCL_TRACE]SetupAgent rankNum[{_NPU_WORLD}], "
        f"rank[{_NPU_RANK}], rootInfo identifier[{_NPU_HOST_IP}%enp189s0f0_60000_0_"
        f"1773972931204001], server[{_NPU_HOST_IP}%enp189s0f0], logicDevId[{_NPU_RANK}], "
        f"phydevId[{_NPU_RANK}], deviceIp[192.168.100.{101 + _NPU_RANK}]",
    )
    plog(
        "INFO",
        "HCCL",
        "hccl_communicator.cc:1045",
        f"[Init]HcclCommunicator init success, "
        f"rankSize[{_NPU_WORLD}], userRank[{_NPU_RANK}], group[hccl_world_group]",
    )
    for sid in range(4):
        plog(
            "INFO",
            "RUNTIME",
            "stream.cc:312",
            f"Setup: stream_id={8 + sid}, sq_id={8 + sid}, priority=0",
        )
    out.append("training ...")
    out.append(f"[before the start of training step] datetime: {clock.at(0)} ")
    return "".join(line + "\n" for line in out)


def _npu_step(rng: random.Random, iters: list[str]) -> str:
    """One iteration: the gradient all-reduces of HCCL, RUNTIME stream chatter, now and
    then a GE graph build or an ACL/GE warning, then the MindSpeed iteration line."""
    lines: list[str] = []
    events = 8 + rng.randrange(10)
    for us in sorted(rng.randrange(990_000) for _ in range(events)):
        r = rng.random()
        tid = _NPU_PID + rng.choice((0, 0, 31, 32))
        if r < 0.45:
            count = rng.choice((1048576, 4194304, 16777216, 65536000))
            took = rng.randrange(60, 9000)
            lines.append(
                _plog(
                    "INFO",
                    "HCCL",
                    us,
                    "op_base.cc:1189",
                    f"Entry-HcclAllReduce:tag[{_NPU_TAG}], sendBuf[{_hex(rng, 48)}], "
                    f"recvBuf[{_hex(rng, 48)}], count[{count}], dataType[bf16], "
                    f"op[sum], localRank[{_NPU_RANK}], streamId[8], "
                    f"deviceLogicId[{_NPU_RANK}]",
                    tid,
                )
            )
            done = min(us + took, 999_999)
            lines.append(
                _plog(
                    "INFO",
                    "HCCL",
                    done,
                    "op_base.cc:1233",
                    f"HcclAllReduce:success,take time: [{took}]us, tag[{_NPU_TAG}]",
                    tid,
                )
            )
        elif r < 0.7:
            sid = rng.randrange(10, 40)
            lines.append(
                _plog(
                    "INFO",
                    "RUNTIME",
                    us,
                    "stream.cc:436",
                    f"FreeLogicCq: Return(0), threadIdentifier({rng.getrandbits(48)}), "
                    f"devId({_NPU_RANK}), tsId(0), cqId(65535), isFastCq(0).",
                    tid,
                )
            )
            lines.append(
                _plog(
                    "INFO",
                    "RUNTIME",
                    us,
                    "stream.cc:682",
                    f"FreeStreamId: Free stream_id={sid}.",
                    tid,
                )
            )
        elif r < 0.85:
            lines.append(
                _plog(
                    "INFO",
                    "RUNTIME",
                    us,
                    "api_c.cc:1798",
                    "rtSetDevice: There is no devId, do nothing.",
                    tid,
                )
            )
        elif r < 0.93:
            sid = rng.randrange(10, 40)
            lines.append(
                _plog(
                    "INFO",
                    "RUNTIME",
                    us,
                    "stream.cc:312",
                    f"Setup: stream_id={sid}, sq_id={sid}, priority=0",
                    tid,
                )
            )
        elif r < 0.97:
            gid = rng.randrange(1, 40)
            lines.append(
                _plog(
                    "INFO",
                    "GE",
                    us,
                    "graph_manager.cc:1201",
                    f"PreRun:[GraphManager] start to build graph, graph_id:{gid}",
                    tid,
                )
            )
            lines.append(
                _plog(
                    "WARNING",
                    "GE",
                    us,
                    "tensor_data.cc:236",
                    "MallocAlignedPtr:[Check][Param] Input data size is 0",
                    tid,
                )
            )
        elif r < 0.99:
            lines.append(
                _plog(
                    "WARNING",
                    "ASCENDCL",
                    us,
                    "device.cpp:157",
                    "aclrtSetDevice: update platform info with device failed, "
                    f"deviceId = {_NPU_RANK}",
                    tid,
                )
            )
        else:
            lines.append(
                _plog(
                    "EVENT",
                    "PROFILING",
                    us,
                    "msprof_callback_impl.cpp:199",
                    f">>> (tid:{tid}) Started to register profiling ctrl callback.",
                )
            )
    lines.append(rng.choice(iters))
    return "".join(line + "\n" for line in lines)


def _npu_tail(steps: int, fields: Fields) -> tuple[list[str], int]:
    """The task that waits for rank 11's notify times out: HCCL's task exception report,
    RUNTIME's GetError, then torch_npu's screen error with EI0002 and the watchdog."""
    d = fields(steps + 1800)  # HCCL_EXEC_TIMEOUT: the task was issued 1800 s earlier
    t = d["t"]
    issued = fields(steps)["t"]
    tid = _NPU_PID + 32

    def err(module: str, src: str, text: str, us: int) -> str:
        return _plog("ERROR", module, us, src, text, tid).replace(TIME, t)

    base = (
        f"streamID:[8], taskID[211], taskType[Notify Wait], tag[{_NPU_TAG}], "
        "AlgType(level 0-1-2):[fullmesh-ring-ring]"
    )
    handler = "[TaskExceptionHandler][Callback]Task run failed, "
    lines = [
        err("HCCL", "task_exception_handler.cc:822", f"{handler}base information is {base}.", 2117),
        err(
            "HCCL",
            "task_exception_handler.cc:741",
            f"{handler}opData information is timeStamp:"
            f"[{issued}.411.090], deviceId:[{_NPU_RANK}], index:[11], count:[1048576], "
            "reduceType:[sum], src:[0x12c0c1400000], dst:[0x12c0c1800000], dataType:[bf16].",
            2164,
        ),
        err(
            "HCCL",
            "task_exception_handler.cc:760",
            f"{handler}groupRank information is group:"
            f"[hccl_world_group], user define information[], rankSize[{_NPU_WORLD}], "
            f"rankId[{_NPU_RANK}], remoteRank[11].",
            2188,
        ),
        err(
            "HCCL",
            "task_exception_handler.cc:771",
            f"{handler}there is no ranks in the cluster "
            "that reported other error, HCCL_EXEC_TIMEOUT[1800]s.",
            2201,
        ),
        err(
            "RUNTIME",
            "stream.cc:1482",
            f"GetError: Task execute failed, device_id={_NPU_RANK}, "
            "stream_id=8, task_id=211, flip_num=0, task_type=7(NOTIFY_WAIT).",
            3552,
        ),
        "[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]:",
        "[Error]: The execution of the internal task times out.",
        "        Rectify the fault based on the error information in the ascend log.",
        f"EI0002: [PID: {_NPU_PID}] {t}.713.335 {_EI0002} Reason: The Notify register has not "
        f"received the Notify record from remote rank: [11]. base information: [{base}.]. task "
        "information: [notify id:[0x0000000000000213], stage:[0], remote rank:[11]]. group "
        "information: [group:[hccl_world_group], user define information[Unspecified], "
        f"rankSize[{_NPU_WORLD}], rankId[{_NPU_RANK} 11]]",
        "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the "
        "cluster. As a result, collective communication operation failed.2. The execution speed "
        "on some NPU in the cluster is too slow to complete a communication operation within the "
        "timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)"
        "3. The number of training samples of each NPU is inconsistent.4. Packet loss or other "
        "connectivity problems occur on the communication link.",
        "        Solution: 1. If this error is reported on part of these ranks, check other ranks "
        "to see whether other errors have been reported earlier.2. If this error is reported for "
        "all ranks, check whether the error reporting time is consistent (the maximum difference "
        "must not exceed 1800s). If not, locate the cause or adjust the locate the cause or set "
        "the HCCL_EXEC_TIMEOUT environment variable to a larger value.3. Check whether the "
        "completion queue element (CQE) of the error exists in the plog(grep -rn 'error cqe'). If "
        "so, check the network connection status.4. Ensure that the number of training samples of "
        "each NPU is consistent.",
        "        TraceBack (most recent call last):",
        f"        Task execute failed, device_id={_NPU_RANK}, stream_id=8, task_id=211, "
        "flip_num=0, task_type=7(NOTIFY_WAIT).[FUNC:GetError][FILE:stream.cc][LINE:1482]",
        f"[ERROR] {t} (PID:{_NPU_PID}, Device:{_NPU_RANK}, RankID:{_NPU_RANK}) ERR00100 PTA call "
        "acl api failed",
        f"[rank{_NPU_RANK}]:[{genlogs._glog(genlogs._step_second(steps) + 1801)} "
        f"compiler_depend.ts:1785] [Rank {_NPU_RANK}] Some HCCL operations have failed or timed "
        "out. Due to the asynchronous nature of ASCEND kernels, subsequent NPU operations might "
        "run on corrupted/incomplete data.",
    ]
    return lines, next(i for i, line in enumerate(lines) if line.startswith("EI0002"))


def _plog_profile(seed: int) -> Script:
    rng = random.Random(seed)
    iters = [genlogs._iteration(rng).replace(TIME, STAMP) for _ in range(1024)]
    steps = [template(_npu_step(rng, iters)) for _ in range(_VARIANTS)]
    clock = _clock()

    def make_fields(total: int) -> Fields:
        at, planned = clock.at, _planned(total)

        def fields(s: int) -> dict[str, Any]:
            u = at(genlogs._step_second(s))
            return {
                "t": u.replace(" ", "-"),
                "u": u,
                "i": s,
                "n": planned,
                "c": s * genlogs.GLOBAL_BATCH,
            }

        return fields

    return Script(
        header=lambda steps: _npu_header(seed),
        steps=steps,
        make_fields=make_fields,
        events=(),
        tail=_npu_tail,
        category="collective_timeout",
        signature="hccl-notify-wait-timeout",
        message=_EI0002,
        rank=_NPU_RANK,
    )


# --- tqdm: a Hugging Face Trainer console ---------------------------------------------

_HF_LOGGING = 50  # logging_steps: bar redraws per physical line
_HF_EVAL = 40  # eval every 40 windows (2000 steps)
_HF_SAVE = 100  # save every 100 windows (5000 steps)
_HF_EVAL_BATCHES = 125
_HF_STEPS_PER_EPOCH = 120_000
_HF_OUT = "/output/llama-sft"
_HF_SPI = 1.03  # seconds per iteration
_WRITER = "RuntimeError: [enforce fail at inline_container.cc:783] . PytorchStreamWriter failed writing file data/118: file write failed"
_BLOCKS = " ▏▎▍▌▋▊▉█"  # tqdm's unicode bar charset


_MMSS = [f"{s // 60:02d}:{s % 60:02d}" for s in range(3600)]


def _interval(seconds: float) -> str:
    """tqdm.format_interval: `mm:ss`, or `h:mm:ss` past an hour (hours unbounded)."""
    h, rest = divmod(int(seconds), 3600)
    return f"{h:d}:{_MMSS[rest]}" if h else _MMSS[rest]


def _bar(frac: float) -> str:
    """tqdm's 10-cell bar (ncols unknown when stdout is a file)."""
    full, part = divmod(int(frac * 10 * 8), 8)
    if full >= 10:
        return _BLOCKS[-1] * 10
    return _BLOCKS[-1] * full + _BLOCKS[part] + " " * (9 - full)


def _meter(n: int, total: int, elapsed: float, rate: float | None) -> str:
    """tqdm.format_meter without a description, as HF's bars print (leading \\r added)."""
    if not rate:
        return f"\r{100 * n / total:3.0f}%|{_bar(n / total)}| {n}/{total} [{_interval(elapsed)}<?, ?it/s]"
    remaining = (total - n) / rate
    speed = f"{1 / rate:5.2f}s/it" if rate < 1 else f"{rate:5.2f}it/s"
    return (
        f"\r{100 * n / total:3.0f}%|{_bar(n / total)}| {n}/{total} "
        f"[{_interval(elapsed)}<{_interval(remaining)}, {speed}]"
    )


def _hf_log(ms: int, src: str, text: str) -> str:
    """transformers' logger with log_level=info: `[INFO|trainer.py:2128] time,ms >> text`."""
    return f"[INFO|{src}] {TIME},{ms:03d} >> {text}"


def _hf_total(windows: int) -> int:
    """The optimisation steps a run planned: a round number past where it died."""
    return -(-windows * _HF_LOGGING * 5 // 4 // 10_000) * 10_000


def _hf_header(windows: int) -> str:
    """The run's start as transformers logs it, then the empty bar tqdm draws at once."""
    clock = _clock()
    total = _hf_total(windows)
    t0 = clock.at(-12)
    lines = [
        f"{_PY}/transformers/training_args.py:1575: FutureWarning: `evaluation_strategy` is "
        "deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` "
        "instead",
        "  warnings.warn(",
        "11/29/2026 09:59:48 - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, "
        "distributed training: False, 16-bits training: False",
        f"[INFO|configuration_utils.py:733] {t0},118 >> loading configuration file config.json "
        "from cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-3.2-1B/snapshots/"
        "4e20de362430cd3b72f300e6b0f18e50e7166e08/config.json",
        f"[INFO|modeling_utils.py:3678] {t0},220 >> loading weights file model.safetensors from "
        "cache at /root/.cache/huggingface/hub/models--meta-llama--Llama-3.2-1B/snapshots/"
        "4e20de362430cd3b72f300e6b0f18e50e7166e08/model.safetensors",
        f"[INFO|trainer.py:2128] {clock.at(-1)},510 >> ***** Running training *****",
        f"[INFO|trainer.py:2129] {clock.at(-1)},510 >>   Num examples = 1,920,000",
        f"[INFO|trainer.py:2130] {clock.at(-1)},510 >>   Num Epochs = "
        f"{-(-total // _HF_STEPS_PER_EPOCH)}",
        f"[INFO|trainer.py:2131] {clock.at(-1)},510 >>   Instantaneous batch size per device = 16",
        f"[INFO|trainer.py:2135] {clock.at(-1)},510 >>   Total optimization steps = {total:,}",
        f"[INFO|trainer.py:2136] {clock.at(-1)},510 >>   Number of trainable parameters = "
        "1,235,814,400",
    ]
    return "".join(line + "\n" for line in lines) + _meter(0, total, 0, None)


def _hf_window(rng: random.Random) -> str:
    """One logging window: its bar redraws, then tqdm.write's clear, the loss dict and
    the bar drawn again (no newline: the next window's redraws continue the line)."""
    loss = rng.uniform(0.9, 2.1)
    return (
        f"{BARS}\r{PAD}\r{{'loss': {round(loss, 4)!r}, 'grad_norm': "
        f"{rng.uniform(0.2, 3.0)!r}, 'learning_rate': {LR}, 'epoch': {EPOCH}}}\n{BAR}"
    )


def _hf_eval(rng: random.Random) -> str:
    """An evaluation: a nested bar (position 1: `\\n` before each redraw, `\\x1b[A` after),
    closed, then its metrics dict through tqdm.write."""
    parts = ["\n" + _meter(0, _HF_EVAL_BATCHES, 0, None) + "\x1b[A"]
    rate = rng.uniform(9, 13)
    for k in range(1, _HF_EVAL_BATCHES + 1):
        parts.append("\n" + _meter(k, _HF_EVAL_BATCHES, k / rate, rate) + "\x1b[A")
    width = len(parts[-1]) - 5
    parts.append("\n\r" + " " * width + "\x1b[A")
    runtime = _HF_EVAL_BATCHES / rate
    parts.append(
        f"\r{PAD}\r{{'eval_loss': {round(rng.uniform(1.0, 2.0), 4)!r}, 'eval_runtime': "
        f"{round(runtime, 4)!r}, 'eval_samples_per_second': {round(2000 / runtime, 3)!r}, "
        f"'eval_steps_per_second': {round(_HF_EVAL_BATCHES / runtime, 3)!r}, 'epoch': {EPOCH}}}"
        f"\n{BAR}"
    )
    return "".join(parts)


def _hf_save(ms: int) -> str:
    """A checkpoint save: logging writes to stderr right after the bar, no \\r first."""
    ck = f"{_HF_OUT}/checkpoint-{GSTEP}"
    return "".join(
        line + "\n"
        for line in [
            _hf_log(ms, "trainer.py:3705", f"Saving model checkpoint to {ck}"),
            _hf_log(
                ms + 1, "configuration_utils.py:420", f"Configuration saved in {ck}/config.json"
            ),
            _hf_log(
                ms + 1,
                "configuration_utils.py:909",
                f"Configuration saved in {ck}/generation_config.json",
            ),
            _hf_log(
                ms + 9, "modeling_utils.py:3042", f"Model weights saved in {ck}/model.safetensors"
            ),
            _hf_log(
                ms + 9,
                "tokenization_utils_base.py:2646",
                f"tokenizer config file saved in {ck}/tokenizer_config.json",
            ),
            _hf_log(
                ms + 9,
                "tokenization_utils_base.py:2655",
                f"Special tokens file saved in {ck}/special_tokens_map.json",
            ),
        ]
    )


def _hf_tail(windows: int, fields: Fields) -> tuple[list[str], int]:
    """The last save runs out of disk in torch.save of the optimizer state."""
    save = template(_hf_save(77)) % fields(windows)
    hf = f"{_PY}/transformers/trainer.py"
    ser = f"{_PY}/torch/serialization.py"
    trace = [
        "Traceback (most recent call last):",
        f'  File "{ser}", line 850, in save',
        "    _save(",
        f'  File "{ser}", line 1114, in _save',
        "    zip_file.write_record(name, storage, num_bytes)",
        _WRITER,
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        '  File "/workspace/transformers/examples/pytorch/language-modeling/run_clm.py", line '
        "666, in <module>",
        "    main()",
        '  File "/workspace/transformers/examples/pytorch/language-modeling/run_clm.py", line '
        "614, in main",
        "    train_result = trainer.train(resume_from_checkpoint=checkpoint)",
        f'  File "{hf}", line 2164, in train',
        "    return inner_training_loop(",
        f'  File "{hf}", line 2589, in _inner_training_loop',
        "    self._maybe_log_save_evaluate(tr_loss, grad_norm, model, trial, epoch, "
        "ignore_keys_for_eval, start_time)",
        f'  File "{hf}", line 3053, in _maybe_log_save_evaluate',
        "    self._save_checkpoint(model, trial)",
        f'  File "{hf}", line 3146, in _save_checkpoint',
        "    self._save_optimizer_and_scheduler(output_dir)",
        f'  File "{hf}", line 3266, in _save_optimizer_and_scheduler',
        "    torch.save(self.optimizer.state_dict(), os.path.join(output_dir, OPTIMIZER_NAME))",
        f'  File "{ser}", line 849, in save',
        "    with _open_zipfile_writer(f) as opened_zipfile:",
        f'  File "{ser}", line 690, in __exit__',
        "    self.file_like.write_end_of_file()",
        "RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 1769341504 vs "
        "1769341392",
    ]
    lines = [*save.rstrip("\n").split("\n"), *trace]
    return lines, lines.index(_WRITER)


def _tqdm(seed: int) -> Script:
    rng = random.Random(seed)
    steps = [template(_hf_window(rng)) for _ in range(_VARIANTS)]
    evals = template(_hf_eval(rng))
    saves = template(_hf_save(rng.randrange(900)))
    clock = _clock()

    def make_fields(windows: int) -> Fields:
        total, at = _hf_total(windows), clock.at

        def fields(w: int) -> dict[str, Any]:
            first = (w - 1) * _HF_LOGGING + 1
            redraws = []
            for n in range(first, first + _HF_LOGGING):
                rate = 1 / (_HF_SPI + (n * 7919 % 17) / 1000)
                redraws.append(_meter(n, total, n * _HF_SPI, rate))
            last = redraws[-1]
            g = first + _HF_LOGGING - 1
            lr = 2e-05 * (1 - g / total)
            return {
                "bars": "".join(redraws),
                "bar": last,
                "pad": " " * (len(last) - 1),
                "e": repr(round(g / _HF_STEPS_PER_EPOCH, 2)),
                "lr": repr(lr),
                "g": g,
                "t": at(int(g * _HF_SPI)),
                "n": total,
            }

        return fields

    return Script(
        header=_hf_header,
        steps=steps,
        make_fields=make_fields,
        events=((_HF_EVAL, evals), (_HF_SAVE, saves)),
        tail=_hf_tail,
        category="storage_fault",
        signature="storage-checkpoint-write-failed",
        message=_WRITER,
        rank=None,
    )


# --- console: every rank of a torchtitan job in one merged console ----------------------

_TT_CULPRIT = 5
_TT_PID = 52310
_TT_COLORS = ("\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[34m", "\x1b[36m", "\x1b[35m", "\x1b[39m")
_TT_EVAL = 250  # an evaluation (a tqdm bar on every rank) every 250 steps
_TT_GC = 50  # torchtitan's periodic GC line on every rank
_TT_EVAL_BATCHES = 40


def _tt_label(rank: int, world: int, prefixed: bool) -> str:
    """What the collector puts in front of a rank's line: torchrun's `[rankN]:` (--role
    rank), with Slurm's task label `N: ` before it for a multi-node console, or nothing."""
    if not prefixed:
        return ""
    label = f"[rank{rank}]:"
    return f"{rank // 8}: {label}" if world > 8 else label


def _tt_log(ms: int, text: str) -> str:
    """torchtitan's logger: `[titan] 2026-11-29 10:00:01,234 - root - INFO - text`."""
    return f"[titan] {TIME},{ms:03d} - root - INFO - {text}"


def _tt_step(rng: random.Random, world: int, prefixed: bool) -> str:
    """One step: each rank's step line (in the order their prints reach the console),
    now and then a FutureWarning pair from a rank, rarely an NCCL socket retry."""
    red, green, yellow, blue, cyan, magenta, reset = _TT_COLORS
    lines: list[tuple[int, str]] = []
    loss = rng.uniform(2.0, 4.0)
    for rank in range(world):
        t = rng.randrange(1000)
        text = (
            f"{red}step: {NUM:>5}  {green}loss: {loss + rng.uniform(-0.02, 0.02):7.4f}  "
            f"{yellow}memory: {rng.uniform(61, 63):5.2f}GiB({rng.uniform(77, 80):.2f}%)  "
            f"{blue}tps: {rng.randrange(3000, 3400):,}  {cyan}tflops: {rng.uniform(180, 200):,.2f}  "
            f"{magenta}mfu: {rng.uniform(18, 21):.2f}%{reset}"
        )
        lines.append((t, _tt_label(rank, world, prefixed) + _tt_log(t, text)))
    for rank in rng.sample(range(world), rng.choice((0, 0, 0, 1, 1, 2))):
        t = rng.randrange(1000)
        p = _tt_label(rank, world, prefixed)
        lines += [
            (
                t,
                f"{p}{_PY}/torch/utils/checkpoint.py:1399: FutureWarning: "
                "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                "`torch.amp.autocast('cpu', args...)` instead.",
            ),
            (
                t,
                f"{p}  with device_autocast_ctx, torch.cpu.amp.autocast(**cpu_autocast_kwargs), "
                "recompute_context:  # type: ignore[attr-defined]",
            ),
        ]
    if rng.random() < 0.01:
        rank, t = rng.randrange(world), rng.randrange(1000)
        pid = _TT_PID + rank
        lines.append(
            (
                t,
                f"{_tt_label(rank, world, prefixed)}gpu-node{rank // 8:03d}:{pid}:{pid + 411} "
                f"[{rank % 8}] misc/socket.cc:{rng.choice((484, 538))} NCCL WARN socketPollConnect: "
                f"connect returned Connection refused, retrying ({rng.randrange(1, 5)}/34) "
                "after sleep for 100 msec",
            )
        )
    lines.sort(key=lambda x: x[0])
    return "".join(line + "\n" for _, line in lines)


def _tt_gc(world: int, prefixed: bool) -> str:
    return "".join(
        _tt_label(r, world, prefixed)
        + _tt_log(7 + r, "[GC] Peforming periodical GC collection. 0.05 seconds.")
        + "\n"
        for r in range(world)
    )


def _tt_eval(rng: random.Random, world: int, prefixed: bool) -> str:
    """An evaluation: each rank's tqdm bar, its redraws joined by \r on one line (torchrun
    splits a child's output at newlines only), then rank 0's metrics."""
    out = []
    for r in range(world):
        rate = rng.uniform(9, 13)
        bar = "".join(
            _meter(k, _TT_EVAL_BATCHES, k / rate, rate if k else None)
            for k in range(_TT_EVAL_BATCHES + 1)
        )
        out.append(f"{_tt_label(r, world, prefixed)}Evaluating: {bar[1:]}\n")
    out.append(
        _tt_label(0, world, prefixed)
        + _tt_log(911, f"validate step: {NUM:>5}  loss: {rng.uniform(2.0, 3.0):7.4f}")
        + "\n"
    )
    return "".join(out)


def _tt_header(world: int, prefixed: bool) -> str:
    clock = _clock()
    out = genlogs.omp_banner(
        f"{genlogs._glog(-40.2, 'W')} {_TT_PID - 9} torch/distributed/run.py:793]"
    )
    for r in range(world):
        p = _tt_label(r, world, prefixed)
        out += [
            p
            + f"[titan] {clock.at(-30)},{100 + r:03d} - root - INFO - Starting job: Llama 3 8B training",
            p + f"[titan] {clock.at(-29)},{200 + r:03d} - root - INFO - Building 1-D device mesh "
            f"with ['dp_shard'], [{world}]",
            p + f"[titan] {clock.at(-2)},{300 + r:03d} - root - INFO - Training starts at step 1, "
            "with local batch size 1, global batch size "
            f"{world}, sequence length 8192, total steps 1000000 (warmup 200)",
        ]
    return "".join(line + "\n" for line in out)


def _tt_tail(world: int, prefixed: bool) -> Callable[[int, Fields], tuple[list[str], int]]:
    def tail(steps: int, fields: Fields) -> tuple[list[str], int]:
        """Rank 5's OOM traceback, then every other rank's watchdog ten minutes later."""
        end = genlogs._step_second(steps) + 0.6
        oom, at = genlogs._oom_tail(_TT_CULPRIT)
        p = _tt_label(_TT_CULPRIT, world, prefixed)
        lines = [p + line.split("]: ", 1)[1] for line in oom]
        for rank in range(world):
            if rank == _TT_CULPRIT:
                continue
            watchdog = genlogs._watchdog_tail(
                rank, steps, _TT_PID + rank, end + genlogs.WATCHDOG_MS / 1000 + rank * 0.002
            )
            p = _tt_label(rank, world, prefixed)
            lines += [p + line.split("]:", 1)[1] for line in watchdog[:-1]]
        return lines, at

    return tail


def _console_script(seed: int, world: int, prefixed: bool) -> Script:
    rng = random.Random(seed)
    steps = [template(_tt_step(rng, world, prefixed)) for _ in range(_VARIANTS)]
    evals = template(_tt_eval(rng, world, prefixed))
    gc = template(_tt_gc(world, prefixed))
    clock = _clock()

    def make_fields(total: int) -> Fields:
        def fields(s: int) -> dict[str, Any]:
            return {"t": clock.at(s), "i": s}

        return fields

    return Script(
        header=lambda steps: _tt_header(world, prefixed),
        steps=steps,
        make_fields=make_fields,
        events=((_TT_GC, gc), (_TT_EVAL, evals)),
        tail=_tt_tail(world, prefixed),
        category="device_oom",
        signature=genlogs.OOM_SIGNATURE,
        message=genlogs.OOM,
        rank=_TT_CULPRIT if prefixed else None,
    )


_SCRIPTS: dict[str, Callable[[int], Script]] = {
    "dense": _dense,
    "plog": _plog_profile,
    "tqdm": _tqdm,
    "console": lambda seed: _console_script(seed, 8, True),
    "console-bare": lambda seed: _console_script(seed, 8, False),
    "console64": lambda seed: _console_script(seed, 64, True),
}


# --- writing ----------------------------------------------------------------------------


def _plan(script: Script, mib: int, extra: int) -> int:
    """Steps that fill `mib` MiB: the mean variant rendered at a middle step (fields such
    as tqdm's counters widen a little with time), events by their period."""
    steps = 1000
    for _ in range(3):  # the mean depends (slightly) on where the middle is
        target = (mib << 20) - len(script.header(steps).encode()) - extra
        fields = script.make_fields(steps)
        d = fields(max(1, steps // 2))
        mean = sum(len((t % d).encode()) for t in script.steps) / len(script.steps)
        mean += sum(len((t % d).encode()) / every for every, t in script.events)
        steps = max(10, int(target / mean))
    return steps


def _write(path: Path, script: Script, mib: int, compress: Compress, seed: int) -> dict[str, Any]:
    """Header, steps in blocks of _BLOCK (one %-format each), tail; where the planted
    line landed. The picks come from their own seeded stream: same seed, same bytes."""
    steps = _plan(script, mib, 8000)  # ~8 KB left for the tail
    fields = script.make_fields(steps)
    out = genlogs._Out(path, compress)
    rng = random.Random(seed * 1_000_003 + 17)
    mask = len(script.steps) - 1
    variants, events = script.steps, script.events
    try:
        out.write(script.header(steps))
        for first in range(1, steps + 1, _BLOCK):
            last = min(first + _BLOCK, steps + 1)
            picks = genlogs.draw(rng, last - first)
            parts: list[str] = []
            add = parts.append
            for k, s in enumerate(range(first, last)):
                d = fields(s)
                add(variants[picks[k] & mask] % d)
                for every, tpl in events:
                    if s % every == 0:
                        add(tpl % d)
            out.write("".join(parts))
        tail, at = script.tail(steps, fields)
        info = {"line": out.lines + at + 1, "text": tail[at]}
        out.write("".join(line + "\n" for line in tail))
    finally:
        out.close()
    return {"bytes": out.bytes, "lines": out.lines, "steps": steps, **info}


def make(
    kind: str,
    out: Path | str,
    mib: int = 64,
    compress: Compress = "none",
    seed: int = SEED,
    force: bool = False,
) -> Path:
    """The `kind` profile of about `mib` MiB at `out` (a file; a folder for job256);
    returns its path (.gz/.zst appended to a file when compressed). The planted cause is
    in `genlogs.record_of(path)`; a complete earlier output with the same parameters is
    reused unless `force`. job256 has 256 ranks of max(1, mib // 256) MiB each: genlogs
    sizes ranks in whole MiB, so it is 256 MiB of log below that."""
    out = Path(out)
    if kind == "sparse":
        return genlogs.single(out, mib, compress, seed, force)
    if kind == "job256":
        return genlogs.job(out, 256, max(1, mib // 256), compress, seed=seed, force=force)
    if kind not in _SCRIPTS:
        raise ValueError(f"unknown profile {kind!r}; known: {', '.join(PROFILES)}")
    path = genlogs._single_path(out, compress)
    record = genlogs.record_of(path)
    params = {"format": FORMAT, "kind": kind, "mib": mib, "compress": compress, "seed": seed}
    if not force and genlogs._done(record, params, path.parent):
        return path
    record.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    script = _SCRIPTS[kind](seed)
    info = _write(path, script, mib, compress, seed)
    genlogs._record(
        record,
        {
            "params": params,
            "category": script.category,
            "signature": script.signature,
            "message": script.message,
            "rank": script.rank,
            "file": path.name,
            "line": info["line"],
            "text": info["text"],
            "steps": info["steps"],
            "sizes": {path.name: path.stat().st_size},
            "bytes_written": info["bytes"],
            "lines": info["lines"],
        },
    )
    return path


def default_path(outdir: Path, kind: str, mib: int) -> Path:
    """Where the benchmarks keep a profile: `<kind>-<mib>MiB.log` (a folder for job256)."""
    return outdir / (f"{kind}-{mib}MiB" if kind == "job256" else f"{kind}-{mib}MiB.log")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("profile", choices=[*PROFILES, "all"])
    ap.add_argument("out", type=Path, help="the log (a folder for job256 and for all)")
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--compress", choices=COMPRESS, default="none")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--force", action="store_true", help="regenerate even if up to date")
    a = ap.parse_args(argv)
    kinds = PROFILES if a.profile == "all" else (a.profile,)
    for kind in kinds:
        dest = default_path(a.out, kind, a.mib) if a.profile == "all" else a.out
        t = time.perf_counter()
        path = make(kind, dest, a.mib, a.compress, a.seed, a.force)
        took = time.perf_counter() - t
        rec = json.loads(genlogs.record_of(path).read_text())
        print(
            f"{kind}: {path} ({rec.get('bytes_written', 0) / 1e6:,.1f} MB, {took:.1f} s); "
            f"planted {rec['category']} ({rec['signature']}) at {rec['file']} line {rec['line']}"
        )


if __name__ == "__main__":
    main()
