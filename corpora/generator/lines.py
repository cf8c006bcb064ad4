"""Line templates for generated bundles, copied from real logs and the signatures' examples.

Every function takes the wall-clock time the line is printed at (already skewed for the
node) and returns one or more lines without a trailing newline. Nothing here is random:
callers pass every varying value in.
"""

from __future__ import annotations

from datetime import datetime

PROGRESS_STYLES = ("megatron", "plain", "hf")


def iso_ms(dt: datetime) -> str:
    return f"{dt:%Y-%m-%d %H:%M:%S},{dt.microsecond // 1000:03d}"


def glog(level: str, dt: datetime, pid: int, src: str) -> str:
    return f"[{level}{dt:%m%d %H:%M:%S}.{dt.microsecond:06d} {pid} {src}]"


def syslog(dt: datetime, host: str, uptime: float, text: str) -> str:
    return f"{dt:%b %d %H:%M:%S} {host} kernel: [{uptime:14.6f}] {text}"


# --- progress -------------------------------------------------------------------------


def progress(
    style: str, dt: datetime, step: int, total: int, step_ms: float, loss: float
) -> list[str]:
    if style == "megatron":
        return [
            f" [{dt:%Y-%m-%d %H:%M:%S}] iteration {step:>8}/{total:>8} | consumed samples: "
            f"{step * 512:>12} | elapsed time per iteration (ms): {step_ms:.1f} | "
            f"learning rate: 2.999E-04 | global batch size:   512 | lm loss: {loss:.6E} | "
            "loss scale: 1.0 | grad norm: 0.812 | number of skipped iterations:   0 | "
            "number of nan iterations:   0 |"
        ]
    if style == "plain":
        return [f"{iso_ms(dt)} - INFO - step {step}/{total} loss {loss:.4f}"]
    epoch = step / total
    return [
        f"{iso_ms(dt)} - INFO - __main__ - global step {step}: {1000 / step_ms:.2f} it/s",
        f"{{'loss': {loss:.4f}, 'grad_norm': 0.8125, 'learning_rate': 4.5e-05, "
        f"'epoch': {epoch:.2f}}}",
    ]


def training_done(style: str, dt: datetime) -> list[str]:
    if style == "megatron":
        return [f"[after training is done] datetime: {dt:%Y-%m-%d %H:%M:%S} "]
    if style == "plain":
        return [f"{iso_ms(dt)} - INFO - training finished"]
    return [
        f"{iso_ms(dt)} - INFO - __main__ - Training completed.",
        "{'train_runtime': 3021.5, 'train_samples_per_second': 42.1, 'train_loss': 1.21, "
        "'epoch': 1.0}",
    ]


# --- noise ----------------------------------------------------------------------------


def nccl_init(host: str, pid: int, local_rank: int, ip: str) -> list[str]:
    tag = f"{host}:{pid}:{pid + 100} [{local_rank}]"
    return [
        f"{tag} NCCL INFO Bootstrap : Using eth0:{ip}<0>",
        f"{tag} NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:{ip}<0>",
        f"{tag} NCCL INFO Using network IB",
        f"{tag} NCCL INFO comm 0x5581c3a0 rank {local_rank} nRanks 8 nNodes 1 - Init COMPLETE",
    ]


def benign_warnings(dt: datetime, pid: int, rank: int) -> list[str]:
    return [
        f"[rank{rank}]:{glog('W', dt, pid, 'ProcessGroupNCCL.cpp:4561')} [PG ID 0 PG GUID 0 "
        f"Rank {rank}]  using GPU {rank % 8} to perform barrier as devices used by this process "
        "are currently unknown.",
        "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: "
        "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
    ]


def kernel_noise(dt: datetime, host: str, uptime: float) -> str:
    return syslog(
        dt,
        host,
        uptime,
        "mlx5_core 0000:5e:00.0: mlx5_cmd_out_err:803:(pid 1933): QUERY_VUID(0x8b8) op_mod(0x0) "
        "failed, status bad parameter(0x3), syndrome (0x2cb1f0)",
    )


def monitor_heartbeat(dt: datetime, host: str, alive: int) -> str:
    return f"{iso_ms(dt)} - INFO - job-monitor - {host}: {alive} worker processes alive"


# --- faults in a rank's own output ----------------------------------------------------


def _traceback(frames: list[tuple[str, int, str, str]], last: str) -> list[str]:
    out = ["Traceback (most recent call last):"]
    for path, line, func, code in frames:
        out += [f'  File "{path}", line {line}, in {func}', f"    {code}"]
    return [*out, last]


_TRAIN = ("/workspace/train.py", 212, "<module>", "main()")
_STEP = ("/workspace/train.py", 171, "train_step", "loss = model(**batch).loss")


def cuda_oom(rank: int, gib: float) -> list[str]:
    last = (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {gib:.2f} GiB. "
        "GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free. Including "
        "non-PyTorch memory, this process has 78.08 GiB memory in use. Of the allocated memory "
        "71.20 GiB is allocated by PyTorch, and 5.33 GiB is reserved by PyTorch but unallocated."
    )
    return [f"[rank{rank}]: {line}" for line in _traceback([_TRAIN, _STEP], last)]


def watchdog_timeout(dt: datetime, pid: int, rank: int, seq: int, numel: int) -> list[str]:
    head = f"[rank{rank}]:{glog('E', dt, pid, 'ProcessGroupNCCL.cpp:632')} [Rank {rank}]"
    return [
        f"{head} Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
        f"OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) ran for "
        "600013 milliseconds before timing out.",
        f"[rank{rank}]:{glog('E', dt, pid, 'ProcessGroupNCCL.cpp:2168')} [PG ID 0 PG GUID "
        f"0(default_pg) Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL work: "
        f"{seq}, last completed NCCL work: {seq - 1}.",
    ]


def ib_completion_error(host: str, pid: int, local_rank: int, peer_ip: str) -> list[str]:
    return [
        f"{host}:{pid}:{pid + 100} [{local_rank}] transport/net_ib.cc:881 NCCL WARN NET/IB : "
        f"Got completion from peer {peer_ip}<49577> with error 12, opcode 129, len 0, "
        "vendor err 129"
    ]


def cuda_error_after_xid(dt: datetime, pid: int, rank: int) -> list[str]:
    return [
        f"[rank{rank}]:{glog('E', dt, pid, 'ProcessGroupNCCL.cpp:1595')} [PG ID 0 PG GUID "
        f"0(default_pg) Rank {rank}] Process group watchdog thread terminated with exception: "
        "CUDA error: unspecified launch failure"
    ]


def no_space(dt: datetime) -> list[str]:
    frames = [
        _TRAIN,
        ("/workspace/train.py", 188, "save_checkpoint", "torch.save(state, path)"),
    ]
    last = "OSError: [Errno 28] No space left on device"
    return [f"{iso_ms(dt)} - INFO - saving checkpoint", *_traceback(frames, last)]


def checkpoint_corrupt(dt: datetime, path: str) -> list[str]:
    frames = [
        _TRAIN,
        ("/workspace/train.py", 96, "load_checkpoint", "state = torch.load(path)"),
    ]
    last = (
        "RuntimeError: PytorchStreamReader failed reading zip archive: "
        "failed finding central directory"
    )
    return [f"{iso_ms(dt)} - INFO - loading checkpoint from {path}", *_traceback(frames, last)]


def loss_nan(dt: datetime) -> list[str]:
    return [f"{iso_ms(dt)} - INFO - step skipped", "Loss is nan, stopping training"]


def key_error(key: str) -> list[str]:
    frames = [_TRAIN, _STEP, ("/workspace/data.py", 58, "collate", f"labels = batch['{key}']")]
    return _traceback(frames, f"KeyError: '{key}'")


def module_not_found(module: str) -> list[str]:
    frames = [("/workspace/train.py", 7, "<module>", f"import {module}")]
    return _traceback(frames, f"ModuleNotFoundError: No module named '{module}'")


# --- kernel and launcher --------------------------------------------------------------


def xid(dt: datetime, host: str, uptime: float, code: int, pid: int, bus: str) -> list[str]:
    what = {
        79: "GPU has fallen off the bus.",
        48: "An uncorrectable double bit error (DBE) has been detected on GPU in the "
        "framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1.",
    }[code]
    return [
        syslog(
            dt,
            host,
            uptime,
            f"NVRM: Xid (PCI:0000:{bus}:00): {code}, pid={pid}, name=python, {what}",
        )
    ]


def oom_killer(dt: datetime, host: str, uptime: float, pid: int) -> list[str]:
    return [
        syslog(
            dt,
            host,
            uptime,
            "python invoked oom-killer: gfp_mask=0x140cca, order=0, oom_score_adj=0",
        ),
        syslog(
            dt,
            host,
            uptime,
            f"Out of memory: Killed process {pid} (python) total-vm:49978204kB, "
            "anon-rss:12918388kB, file-rss:68668kB, shmem-rss:53352kB, UID:1000 "
            "pgtables:49772kB oom_score_adj:0",
        ),
    ]


def _agent(level: str, dt: datetime, pid: int, line: int) -> str:
    # torchelastic's own glog lines have no brackets around the header.
    return glog(level, dt, pid, f"torch/distributed/elastic/multiprocessing/api.py:{line}")[1:]


def sigterm(dt: datetime, agent_pid: int, worker_pid: int) -> str:
    return f"{_agent('W', dt, agent_pid, 897)} Sending process {worker_pid} closing signal SIGTERM"


def worker_failed(dt: datetime, agent_pid: int, code: int, local_rank: int, pid: int) -> str:
    return (
        f"{_agent('E', dt, agent_pid, 869)} failed (exitcode: {code}) local_rank: {local_rank} "
        f"(pid: {pid}) of binary: /usr/bin/python"
    )


def slurm_preempted(dt: datetime, job: int, host: str) -> str:
    return f"slurmstepd: error: *** JOB {job} ON {host} CANCELLED AT {dt:%Y-%m-%dT%H:%M:%S} DUE TO PREEMPTION ***"
