"""Line templates for generated bundles, copied from real logs and the signatures' examples.

Every function takes the wall-clock time the line is printed at (already skewed for the
node) and returns one or more lines without a trailing newline. Nothing here is random:
callers pass every varying value in.
"""

from __future__ import annotations

from dataclasses import dataclass
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


MLX5_NOISE = (
    "mlx5_core 0000:5e:00.0: mlx5_cmd_out_err:803:(pid 1933): QUERY_VUID(0x8b8) op_mod(0x0) "
    "failed, status bad parameter(0x3), syndrome (0x2cb1f0)"
)


def kernel_noise(dt: datetime, host: str, uptime: float) -> str:
    return syslog(dt, host, uptime, MLX5_NOISE)


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


def cuda_oom(rank: int, gib: float, gpu: int = 0) -> list[str]:
    last = (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {gib:.2f} GiB. "
        f"GPU {gpu} has a total capacity of 79.15 GiB of which 1.06 GiB is free. Including "
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


# --- multi-node: torchrun consoles, as corpora/torchrun/multinode/ recorded them --------
# (torch >= 2.4: the agent's Python logging in glog form without brackets and with
# milliseconds padded to six digits; c10's C++ glog header bracketed, in nanoseconds,
# without a pid; the ChildFailedError table; NCCL's HOST:PID:TID [DEV] header.)

RULE = "=" * 60
DASH = "-" * 60
ERRORS_URL = "https://pytorch.org/docs/stable/elastic/errors.html"


def tlog(level: str, dt: datetime, pid: int, where: str) -> str:
    """torchrun's own log header: `W1201 20:44:42.738000 12088 torch/distributed/run.py:874]`."""
    return f"{level}{dt:%m%d %H:%M:%S}.{dt.microsecond // 1000:03d}000 {pid} {where}]"


def clog(level: str, dt: datetime, where: str) -> str:
    """c10's glog header: `[E1201 20:48:28.338059223 ProcessGroupNCCL.cpp:632]`."""
    return (
        f"[{level}{dt:%m%d %H:%M:%S}.{dt.microsecond:06d}{dt.microsecond * 7 % 1000:03d} {where}]"
    )


def agent_banner(dt: datetime, pid: int, root: str) -> list[str]:
    h = tlog("W", dt, pid, f"{root}torch/distributed/run.py:874")
    stars = "*" * 41
    return [
        f"{h} ",
        f"{h} {stars}",
        f"{h} Setting OMP_NUM_THREADS environment variable for each process to be 1 in "
        "default, to avoid your system being overloaded, please further tune the variable "
        "for optimal performance in your application as needed. ",
        f"{h} {stars}",
    ]


def agent_config(
    dt: datetime, pid: int, root: str, nnodes: int, nproc: int, run_id: str, endpoint: str
) -> list[str]:
    h = tlog("I", dt, pid, f"{root}torch/distributed/launcher/api.py:254")
    rows = [
        ("entrypoint", "train.py"),
        ("min_nodes", str(nnodes)),
        ("max_nodes", str(nnodes)),
        ("nproc_per_node", str(nproc)),
        ("run_id", run_id),
        ("rdzv_backend", "c10d"),
        ("rdzv_endpoint", endpoint),
        ("rdzv_configs", "{'timeout': 900}"),
        ("max_restarts", "0"),
        ("monitor_interval", "0.1"),
        ("log_dir", "None"),
        ("metrics_cfg", "{}"),
        ("event_log_handler", "null"),
        ("numa_options", "None"),
        ("signals_to_handle", "SIGTERM,SIGINT,SIGHUP,SIGQUIT"),
        ("duplicate_stdout_filters", "[]"),
        ("duplicate_stderr_filters", "[]"),
    ]
    return [
        f"{tlog('I', dt, pid, f'{root}torch/distributed/run.py:747')} Using nproc_per_node={nproc}.",
        f"{h} Starting elastic_operator with launch configs:",
        *(f"{h}   {k:<24} : {v}" for k, v in rows),
        f"{h} ",
    ]


def agent_rendezvous(
    dt: datetime,
    pid: int,
    root: str,
    master: str,
    port: int,
    group_rank: int,
    nnodes: int,
    global_ranks: list[int],
    world: int,
) -> list[str]:
    api = f"{root}torch/distributed/elastic/agent/server/api.py"
    local = f"{root}torch/distributed/elastic/agent/server/local_elastic_agent.py"
    h = tlog("I", dt, pid, f"{api}:553")
    n = len(global_ranks)
    listed = ", ".join(map(str, global_ranks))
    sizes = ", ".join([str(world)] * n)
    return [
        f"{tlog('I', dt, pid, f'{api}:912')} [default] starting workers for entrypoint: python3",
        f"{tlog('I', dt, pid, f'{api}:707')} [default] Rendezvous'ing worker group",
        f"{h} [default] Rendezvous complete for workers. Result:",
        f"{h}   restart_count=0",
        f"{h}   master_addr={master}",
        f"{h}   master_port={port}",
        f"{h}   group_rank={group_rank}",
        f"{h}   group_world_size={nnodes}",
        f"{h}   local_ranks=[{', '.join(map(str, range(n)))}]",
        f"{h}   role_ranks=[{listed}]",
        f"{h}   global_ranks=[{listed}]",
        f"{h}   role_world_sizes=[{sizes}]",
        f"{h}   global_world_sizes=[{sizes}]",
        f"{h}   event_log_handler=null",
        f"{h} ",
        f"{tlog('I', dt, pid, f'{api}:715')} [default] Starting worker group",
        f"{tlog('I', dt, pid, f'{local}:406')} use_agent_store: True",
        f"{tlog('I', dt, pid, f'{local}:265')} Environment variable "
        "'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start FileTimerServer.",
        f"{tlog('I', dt, pid, f'{local}:345')} Environment variable "
        "'TORCHELASTIC_HEALTH_CHECK_PORT' not found. Do not start health check.",
    ]


def agent_succeeded(dt: datetime, pid: int, root: str, elapsed: float) -> list[str]:
    api = f"{root}torch/distributed/elastic/agent/server/api.py"
    return [
        f"{tlog('I', dt, pid, f'{api}:926')} [default] worker group successfully finished. "
        "Waiting 300 seconds for other agents to finish.",
        f"{tlog('I', dt, pid, f'{api}:932')} Local worker group finished "
        "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish",
        f"{tlog('I', dt, pid, f'{api}:946')} Done waiting for other agents. "
        f"Elapsed: {elapsed} seconds",
    ]


def agent_sigterm(dt: datetime, pid: int, root: str, worker: int) -> str:
    where = f"{root}torch/distributed/elastic/multiprocessing/api.py:1028"
    return f"{tlog('W', dt, pid, where)} Sending process {worker} closing signal SIGTERM"


def agent_failed(
    dt: datetime, pid: int, root: str, code: int, local_rank: int, worker: int, binary: str
) -> str:
    where = f"{root}torch/distributed/elastic/multiprocessing/api.py:1002"
    return (
        f"{tlog('E', dt, pid, where)} failed (exitcode: {code}) local_rank: {local_rank} "
        f"(pid: {worker}) of binary: {binary}"
    )


def agent_error_file(dt: datetime, pid: int, root: str, path: str) -> str:
    where = f"{root}torch/distributed/elastic/multiprocessing/errors/error_handler.py:145"
    return (
        f"{tlog('E', dt, pid, where)} no error file defined for parent, to copy child error "
        f"file ({path})"
    )


def agent_death_signal(dt: datetime, pid: int, root: str) -> str:
    where = f"{root}torch/distributed/elastic/agent/server/api.py:733"
    return (
        f"{tlog('W', dt, pid, where)} Received Signals.SIGTERM death signal, shutting down workers"
    )


def _torchrun_frames(pyroot: str, torchrun: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        f'  File "{torchrun}", line 8, in <module>',
        "    sys.exit(main())",
        f'  File "{pyroot}/torch/distributed/elastic/multiprocessing/errors/__init__.py", '
        "line 367, in wrapper",
        "    return f(*args, **kwargs)",
        f'  File "{pyroot}/torch/distributed/run.py", line 1028, in main',
        "    run(args)",
        f'  File "{pyroot}/torch/distributed/run.py", line 1019, in run',
        "    elastic_launch(",
        f'  File "{pyroot}/torch/distributed/launcher/api.py", line 194, in __call__',
        "    return launch_agent(",
    ]


def signal_exception(pyroot: str, torchrun: str, pid: int) -> list[str]:
    """The agent's traceback after a death signal."""
    return [
        *_torchrun_frames(pyroot, torchrun),
        f'  File "{pyroot}/torch/distributed/launcher/api.py", line 339, in launch_agent',
        "    result = agent.run()",
        f'  File "{pyroot}/torch/distributed/elastic/metrics/api.py", line 138, in wrapper',
        "    result = f(*args, **kwargs)",
        f'  File "{pyroot}/torch/distributed/elastic/agent/server/api.py", line 715, in run',
        "    result = self._invoke_run(role)",
        f'  File "{pyroot}/torch/distributed/elastic/agent/server/api.py", line 879, in '
        "_invoke_run",
        "    time.sleep(monitor_interval)",
        f'  File "{pyroot}/torch/distributed/elastic/multiprocessing/api.py", line 84, in '
        "_terminate_process_handler",
        '    raise SignalException(f"Process {os.getpid()} got signal: {sigval}", sigval=sigval)',
        f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {pid} got "
        "signal: 15",
    ]


SIGNALS = {-15: "SIGTERM", -9: "SIGKILL", -6: "SIGABRT"}


@dataclass(frozen=True)
class Failure:
    """One failed worker in torchelastic's ChildFailedError table."""

    time: datetime
    host: str
    rank: int
    local_rank: int
    code: int
    pid: int
    error_file: str | None = None
    traceback: tuple[str, ...] = ()  # the worker's traceback (unprefixed), from error.json


def _failure(f: Failure) -> list[str]:
    out = [
        f"  time      : {f.time:%Y-%m-%d_%H:%M:%S}",
        f"  host      : {f.host}",
        f"  rank      : {f.rank} (local_rank: {f.local_rank})",
    ]
    if f.code < 0:
        sig = SIGNALS[f.code]
        return [
            *out,
            f"  exitcode  : {f.code} (pid: {f.pid})  ({sig})",
            "  error_file: <N/A>",
            f"  traceback : Signal {-f.code} ({sig}) received by PID {f.pid}",
        ]
    out.append(f"  exitcode  : {f.code} (pid: {f.pid}) ")
    if f.error_file is None or not f.traceback:
        return [*out, "  error_file: <N/A>", f"  traceback : To enable traceback see: {ERRORS_URL}"]
    head, *frames, last = f.traceback
    return [
        *out,
        f"  error_file: {f.error_file}",
        f"  traceback : {head}",
        *(f"  {line}" for line in frames),
        f"  {last}",
        "  ",
    ]


def child_failed(
    pyroot: str, torchrun: str, root_cause: Failure, others: list[Failure]
) -> list[str]:
    """torchrun's traceback and ChildFailedError table (each node's table knows only its
    own workers; its "Root Cause" is the earliest of them)."""
    out = [
        *_torchrun_frames(pyroot, torchrun),
        f'  File "{pyroot}/torch/distributed/launcher/api.py", line 383, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        RULE,
        "train.py FAILED",
        DASH,
        "Failures:",
    ]
    if not others:
        out.append("  <NO_OTHER_FAILURES>")
    for k, f in enumerate(others, 1):
        out += [f"[{k}]:", *_failure(f)]
    return [*out, DASH, "Root Cause (first observed failure):", "[0]:", *_failure(root_cause), RULE]


def record_frames(pyroot: str) -> list[str]:
    """The frame torchelastic's @record adds on top of a worker's traceback."""
    return [
        f'  File "{pyroot}/torch/distributed/elastic/multiprocessing/errors/__init__.py", '
        "line 367, in wrapper",
        "    return f(*args, **kwargs)",
    ]


def nccl_init_mn(
    host: str,
    pid: int,
    local_rank: int,
    ip: str,
    rank: int,
    world: int,
    nnodes: int,
    nproc: int,
    busid: str,
    comm: str,
    form: str,
) -> list[str]:
    """NCCL_DEBUG=INFO at communicator init: NCCL 2.18-style (`rank G nranks W cudaDev L
    busId B`) or 2.2x-style (`rank G nRanks W nNodes N localRanks P localRank L`)."""
    main = f"{host}:{pid}:{pid} [{local_rank}]"
    init = f"{host}:{pid}:{pid + 61} [{local_rank}]"
    out = [
        f"{main} NCCL INFO Bootstrap : Using eth0:{ip}<0>",
        f"{main} NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB "
        f"[3]mlx5_3:1/IB [RO]; OOB eth0:{ip}<0>",
        f"{init} NCCL INFO Using network IB",
    ]
    commid = f"0x{int(comm[2:], 16) * 2654435761 % (1 << 64):x}"
    if form == "comm":
        return [
            *out,
            f"{init} NCCL INFO comm {comm} rank {rank} nranks {world} cudaDev {local_rank} "
            f"busId {busid} commId {commid} - Init COMPLETE",
        ]
    return [
        *out,
        f"{init} NCCL INFO comm {comm} rank {rank} nRanks {world} nNodes {nnodes} "
        f"localRanks {nproc} localRank {local_rank} MNNVL 0",
        f"{init} NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {world} cudaDev "
        f"{local_rank} nvmlDev {local_rank} busId {busid} commId {commid} - Init COMPLETE",
    ]


def barrier_warning(dt: datetime, rank: int, local_rank: int) -> str:
    return (
        f"[rank{rank}]:{clog('W', dt, 'ProcessGroupNCCL.cpp:4561')} [PG ID 0 PG GUID 0 Rank "
        f"{rank}]  using GPU {local_rank} to perform barrier as devices used by this process "
        "are currently unknown. This can potentially cause a hang if this rank to GPU mapping "
        "is incorrect. You can pecify device_id in init_process_group() to force use of a "
        "particular device."
    )


def user_warning(pyroot: str) -> str:
    return (
        f"{pyroot}/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the "
        "use_reentrant parameter should be passed explicitly."
    )


def said(rank: int | None) -> str:
    """How a trainer that prints its rank names it (`[rank 3] `), or nothing."""
    return "" if rank is None else f"[rank {rank}] "


def trainer_init(dt: datetime, rank: int | None, world: int) -> str:
    return (
        f"{iso_ms(dt)} - INFO - {said(rank)}initialized process group: backend=nccl "
        f"world_size={world}"
    )


def progress_mn(
    style: str,
    dt: datetime,
    step: int,
    total: int,
    step_ms: float,
    loss: float,
    rank: int | None,
) -> list[str]:
    """`progress`, with a trainer's own `[rank N]` when it prints one (plain and HF logging;
    Megatron's iteration line has none)."""
    out = progress(style, dt, step, total, step_ms, loss)
    if rank is None or style == "megatron":
        return out
    anchor = " - INFO - __main__ - " if style == "hf" else " - INFO - "
    return [out[0].replace(anchor, anchor + said(rank), 1), *out[1:]]


def megatron_memory(rank: int, step: int) -> str:
    return (
        f"[Rank {rank}] (after {step} iterations) memory (MB) | allocated: 13472.51 | "
        "max allocated: 25220.23 | reserved: 27982.00 | max reserved: 27982.00"
    )


def training_done_mn(style: str, dt: datetime, rank: int | None) -> list[str]:
    if style == "plain":
        return [f"{iso_ms(dt)} - INFO - {said(rank)}training finished"]
    out = training_done(style, dt)
    if style == "hf":
        out[0] = out[0].replace(" - __main__ - ", f" - __main__ - {said(rank)}", 1)
    return out


def torch_prefixed(rank: int, lines: list[str]) -> list[str]:
    """torch's excepthook prefix on an uncaught exception's lines."""
    return [f"[rank{rank}]: {line}" for line in lines]


def watchdog_abort(dt: datetime, rank: int, seq: int, numel: int) -> list[str]:
    """A ProcessGroupNCCL collective timeout, and the process taken down (SIGABRT)."""
    work = (
        f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, "
        "Timeout(ms)=600000) ran for 600013 milliseconds before timing out."
    )
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
    p = f"[rank{rank}]:"
    return [
        f"{p}{clog('E', dt, 'ProcessGroupNCCL.cpp:632')} [Rank {rank}] Watchdog caught "
        f"collective operation timeout: {work}",
        f"{p}{clog('E', dt, 'ProcessGroupNCCL.cpp:2168')} {pg} Timeout at NCCL work: {seq}, "
        f"last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.",
        f"{p}{clog('E', dt, 'ProcessGroupNCCL.cpp:667')} [Rank {rank}] Some NCCL operations "
        "have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent "
        "GPU operations might run on corrupted/incomplete data.",
        f"{p}{clog('E', dt, 'ProcessGroupNCCL.cpp:673')} [Rank {rank}] To avoid data "
        "inconsistency, we are taking the entire process down.",
        f"{p}{clog('E', dt, 'ProcessGroupNCCL.cpp:1595')} {pg} Process group watchdog thread "
        f"terminated with exception: [Rank {rank}] Watchdog caught collective operation "
        f"timeout: {work}",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {pg} Process group watchdog thread terminated with exception: [Rank "
        f"{rank}] Watchdog caught collective operation timeout: {work}",
    ]


def cuda_error_abort(dt: datetime, rank: int) -> list[str]:
    """The worker of a GPU that failed (Xid): its watchdog thread dies and aborts it."""
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
    return [
        f"[rank{rank}]:{clog('E', dt, 'ProcessGroupNCCL.cpp:1595')} {pg} Process group "
        "watchdog thread terminated with exception: CUDA error: unspecified launch failure",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {pg} Process group watchdog thread terminated with exception: CUDA "
        "error: unspecified launch failure",
    ]


def loss_nan_mn(dt: datetime, rank: int | None) -> list[str]:
    return [f"{iso_ms(dt)} - ERROR - {said(rank)}Loss is nan, stopping training"]


def no_space_mn(dt: datetime, rank: int | None, grank: int) -> list[str]:
    head, *tb = no_space(dt)
    return [head.replace(" - INFO - ", f" - INFO - {said(rank)}", 1), *torch_prefixed(grank, tb)]


def checkpoint_corrupt_mn(dt: datetime, path: str, rank: int | None, grank: int) -> list[str]:
    head, *tb = checkpoint_corrupt(dt, path)
    return [head.replace(" - INFO - ", f" - INFO - {said(rank)}", 1), *torch_prefixed(grank, tb)]


def dmesg(uptime: float, text: str) -> str:
    return f"[{uptime:12.6f}] {text}"


def xid_mn(code: int, bus: str, pid: int | None, uuid: str) -> list[str]:
    what = {
        79: "GPU has fallen off the bus.",
        48: "An uncorrectable double bit error (DBE) has been detected on GPU in the "
        "framebuffer at physAddr 0x7fffa8860 partition 7, subpartition 1.",
    }[code]
    who = "pid='<unknown>', name=<unknown>" if pid is None else f"pid={pid}, name=python3"
    return [
        f"NVRM: GPU at PCI:0000:{bus}:00: GPU-{uuid}",
        f"NVRM: Xid (PCI:0000:{bus}:00): {code}, {who}, {what}",
    ]


def oom_kill_mn(
    pid: int, agent_pid: int, workers: list[int], memcg: str | None, uid: int
) -> list[str]:
    """The kernel's OOM report (a memory cgroup's, or the whole machine's) that kills
    `pid`, with the task list (the agent shows as pt_elastic)."""
    rows = [
        f"[{p:>7}] {uid:>5} {p:>5} {vm:>8} {rss:>8} {rss - 19000:>8}    19483         0 "
        f"{rss * 9:>8}        0             0 {name}"
        for p, vm, rss, name in [
            (agent_pid, 271021, 56639, "pt_elastic"),
            *((w, 9233542 + 4111 * k, 1777530 + 977 * k, "python3") for k, w in enumerate(workers)),
        ]
    ]
    where = (
        f"constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,"
        f"oom_memcg={memcg},task_memcg={memcg}"
        if memcg
        else "constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,"
        "task_memcg=/"
    )
    killed = "Memory cgroup out of memory" if memcg else "Out of memory"
    return [
        "python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
        "Tasks state (memory values in pages):",
        "[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes "
        "swapents oom_score_adj name",
        *rows,
        f"oom-kill:{where},task=python3,pid={pid},uid={uid}",
        f"{killed}: Killed process {pid} (python3) total-vm:49978204kB, anon-rss:12918388kB, "
        f"file-rss:68668kB, shmem-rss:53352kB, UID:{uid} pgtables:49772kB oom_score_adj:0",
    ]


def srun_task(host: str, task: int, what: str) -> str:
    return f"srun: error: {host}: task {task}: {what}"


def slurm_oom(job: int, modern: bool) -> str:
    if modern:
        return (
            f"slurmstepd: error: Detected 1 oom_kill event in StepId={job}.0. Some of the step "
            "tasks have been OOM Killed."
        )
    return (
        f"slurmstepd: error: Detected 1 oom-kill event(s) in StepId={job}.0 cgroup. Some of "
        "your processes may have been killed by the cgroup out-of-memory handler."
    )


def slurm_step_cancelled(dt: datetime, job: int, host: str, why: str = "") -> str:
    return f"slurmstepd: error: *** STEP {job}.0 ON {host} CANCELLED AT {dt:%Y-%m-%dT%H:%M:%S}{why} ***"


def slurm_job_cancelled(dt: datetime, job: int, host: str, why: str = "") -> str:
    return (
        f"slurmstepd: error: *** JOB {job} ON {host} CANCELLED AT {dt:%Y-%m-%dT%H:%M:%S}{why} ***"
    )
