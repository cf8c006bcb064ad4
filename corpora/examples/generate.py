"""Generate the bundled example job `gpu-fell-off-bus/` (deterministic, seeded).

A 2-node x 4-GPU Megatron-style run launched by torchrun on each node. At 10:14:09 the
GPU of rank 5 (node gpu-node1, PCI 0000:3b:00) falls off the bus (Xid 79). Rank 5's
NCCL watchdog dies with a CUDA error, torchrun on gpu-node1 tears its other workers down
with SIGTERM, and ten minutes later every rank on gpu-node0 reports a NCCL watchdog
timeout for the collective that rank 5 never joined. The symptoms are loud and many;
the root cause is one kernel line. Message formats follow PyTorch 2.x
ProcessGroupNCCL/torchelastic and the NVIDIA driver's NVRM Xid lines.

    python corpora/examples/generate.py   # rewrites corpora/examples/gpu-fell-off-bus/
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from pathlib import Path

OUT = Path(__file__).parent / "gpu-fell-off-bus"
START = datetime(2026, 11, 29, 10, 9, 20)
STEP_S = 14.5
FIRST_ITER, LAST_ITER = 100, 120
FAILED_RANK, FAILED_PID = 5, 48213
TIMEOUT_MS = 600_000
SEQ = 4821


def iteration_line(it: int, when: datetime, rng: random.Random) -> str:
    loss = 3.4 - 0.004 * it + rng.uniform(-0.02, 0.02)
    return (
        f" [{when:%Y-%m-%d %H:%M:%S}] iteration {it:>8}/   50000 | consumed samples: "
        f"{it * 1024:>12} | elapsed time per iteration (ms): {STEP_S * 1000 + rng.uniform(-40, 40):.1f}"
        f" | learning rate: 2.999E-04 | global batch size:  1024 | lm loss: {loss:.6E} |"
        f" loss scale: 1.0 | grad norm: {0.8 + rng.uniform(-0.05, 0.05):.3f} |"
        f" number of skipped iterations:   0 | number of nan iterations:   0 |"
    )


def rank_log(rank: int, rng: random.Random) -> list[str]:
    lines = [
        f"[rank{rank}]:[W1129 10:01:02.{rank:06d} {40000 + rank} ProcessGroupNCCL.cpp:4561] "
        f"[PG ID 0 PG GUID 0 Rank {rank}]  using GPU {rank % 4} to perform barrier as devices "
        "used by this process are currently unknown.",
        f"gpu-node{rank // 4}:{40000 + rank}:{40100 + rank} [{rank % 4}] NCCL INFO Bootstrap : "
        "Using eth0:10.0.0.1%d<0>" % (rank // 4),
        f"gpu-node{rank // 4}:{40000 + rank}:{40100 + rank} [{rank % 4}] NCCL INFO NET/IB : "
        "Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.1%d<0>" % (rank // 4),
    ]
    last = FIRST_ITER if rank == FAILED_RANK else LAST_ITER
    for it in range(FIRST_ITER - 20, last + 1):
        when = START + timedelta(seconds=(it - FIRST_ITER) * STEP_S)
        if rank == 0:
            lines.append(iteration_line(it, when, rng))
    if rank == FAILED_RANK:
        lines += [
            f"[rank5]:[E1129 10:14:10.104221 {FAILED_PID} ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0"
            "(default_pg) Rank 5] Process group watchdog thread terminated with exception: CUDA error: "
            "unspecified launch failure",
            "[rank5]:CUDA kernel errors might be asynchronously reported at some other API call, so the "
            "stacktrace below might be incorrect.",
            "[rank5]:For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            "[rank5]:Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        ]
    elif rank < 4:
        t = datetime(2026, 11, 29, 10, 24, 10) + timedelta(milliseconds=37 * rank)
        lines += [
            f"[rank{rank}]:[E1129 {t:%H:%M:%S}.{t.microsecond:06d} {40000 + rank} ProcessGroupNCCL.cpp:632]"
            f" [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={SEQ}, "
            f"OpType=ALLREDUCE, NumelIn=16777216, NumelOut=16777216, Timeout(ms)={TIMEOUT_MS}) ran for "
            f"{TIMEOUT_MS + 13 + rank} milliseconds before timing out.",
            f"[rank{rank}]:[E1129 {t:%H:%M:%S}.{t.microsecond + 900:06d} {40000 + rank} ProcessGroupNCCL.cpp:2168]"
            f" [PG ID 0 PG GUID 0(default_pg) Rank {rank}] Timeout at NCCL work: {SEQ}, last enqueued NCCL "
            f"work: {SEQ}, last completed NCCL work: {SEQ - 1}.",
            f"[rank{rank}]:[E1129 {t:%H:%M:%S}.{t.microsecond + 950:06d} {40000 + rank} ProcessGroupNCCL.cpp:667]"
            f" [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
        ]
    return lines


def kern_log() -> list[str]:
    return [
        "Nov 29 10:02:11 gpu-node1 kernel: [1804233.114210] mlx5_core 0000:5e:00.0: mlx5_cmd_out_err:803:"
        "(pid 1933): QUERY_VUID(0x8b8) op_mod(0x0) failed, status bad parameter(0x3), syndrome (0x2cb1f0)",
        "Nov 29 10:14:09 gpu-node1 kernel: [1804951.402118] NVRM: GPU at PCI:0000:3b:00: "
        "GPU-6f1c2a8e-8d2b-4c3e-9a11-2f6f1b0c9d47",
        "Nov 29 10:14:09 gpu-node1 kernel: [1804951.402125] NVRM: GPU Board Serial Number: 1652221034567",
        "Nov 29 10:14:09 gpu-node1 kernel: [1804951.402127] NVRM: Xid (PCI:0000:3b:00): 79, "
        f"pid={FAILED_PID}, name=python, GPU has fallen off the bus.",
        "Nov 29 10:14:09 gpu-node1 kernel: [1804951.402131] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
        "Nov 29 10:14:11 gpu-node1 kernel: [1804953.871042] NVRM: Xid (PCI:0000:3b:00): 45, "
        f"pid={FAILED_PID}, name=python, Ch 00000008",
    ]


def torchrun_log() -> list[str]:
    api = "torch/distributed/elastic/multiprocessing/api.py"
    pids = {4: 48212, 6: 48214, 7: 48215}
    out = [
        f"W1129 10:14:12.004511 48190 {api}:897] Sending process {pid} closing signal SIGTERM"
        for pid in pids.values()
    ]
    out += [
        f"E1129 10:14:14.220871 48190 {api}:869] failed (exitcode: -6) local_rank: 1 (pid: {FAILED_PID}) "
        "of binary: /usr/bin/python",
        "Traceback (most recent call last):",
        '  File "/usr/local/bin/torchrun", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
        "    raise ChildFailedError(",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "pretrain_gpt.py FAILED",
        "------------------------------------------------------------",
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-11-29_10:14:14",
        "  host      : gpu-node1",
        "  rank      : 5 (local_rank: 1)",
        f"  exitcode  : -6 (pid: {FAILED_PID})",
        "  error_file: <N/A>",
        f"  traceback : Signal 6 (SIGABRT) received by PID {FAILED_PID}",
        "============================================================",
    ]
    return out


def main() -> None:
    rng = random.Random(79)
    for rank in range(8):
        node = OUT / f"gpu-node{rank // 4}"
        node.mkdir(parents=True, exist_ok=True)
        (node / f"rank_{rank}.log").write_text("\n".join(rank_log(rank, rng)) + "\n")
    (OUT / "gpu-node1" / "kern.log").write_text("\n".join(kern_log()) + "\n")
    (OUT / "gpu-node1" / "torchrun.log").write_text("\n".join(torchrun_log()) + "\n")


if __name__ == "__main__":
    main()
