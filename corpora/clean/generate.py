"""Generate the clean-run baseline `corpora/clean/<stack>/` (deterministic, seeded).

Every folder is the log bundle of a HEALTHY training run that finished: progress lines
in the real format of its framework, and the benign warnings, retries and info lines
that these stacks print when nothing is wrong (NCCL plugin probing, c10d socket
retries, fp16 loss-scale overflows, deprecation warnings, kernel messages of a healthy
node, ...). ha-analyze must give the verdict `none` on every folder. Line formats come
from the public sources listed per folder in SOURCES.md; all values (hosts, addresses,
pids, times, losses, paths) are made up here and scrubbed (gpu-node1, user, 10.0.0.x).

    python corpora/clean/generate.py      # rewrites every folder below corpora/clean/
"""

from __future__ import annotations

import random
import shutil
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).parent
FOLDERS: list[str] = []
MAX_BYTES = 60_000


# --------------------------------------------------------------------------- helpers


def write(folder: str, rel: str, lines: list[str]) -> None:
    path = ROOT / folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(lines) + "\n"
    assert len(text.encode()) < MAX_BYTES, (path, len(text.encode()))
    assert 50 <= len(lines) <= 400, (path, len(lines))
    path.write_text(text, encoding="utf-8")


class Clock:
    """A wall clock that only moves forward."""

    def __init__(self, start: datetime) -> None:
        self.t = start

    def tick(self, seconds: float) -> datetime:
        self.t += timedelta(seconds=seconds)
        return self.t

    # formats -------------------------------------------------------------
    def glog(self, level: str, tid: int, where: str) -> str:
        """torch >= 2.4 python logging (torch._logging): W0314 09:14:02.118000 140211 path:line]"""
        return f"{level}{self.t:%m%d %H:%M:%S}.{self.t.microsecond // 1000:03d}000 {tid} {where}]"

    def c10(self, level: str, where: str, ns: int) -> str:
        """torch >= 2.4 C++ (c10) log prefix: [W314 09:14:05.512345678 socket.cpp:752]"""
        return f"[{level}{self.t.month}{self.t.day:02d} {self.t:%H:%M:%S}.{ns:09d} {where}]"

    def pylog(self) -> str:
        """python logging asctime: 2026-03-14 10:02:11,118"""
        return f"{self.t:%Y-%m-%d %H:%M:%S},{self.t.microsecond // 1000:03d}"

    def plog(self) -> str:
        """CANN plog time: 2026-03-17-10:15:03.204.523"""
        us = self.t.microsecond
        return f"{self.t:%Y-%m-%d-%H:%M:%S}.{us // 1000:03d}.{us % 1000:03d}"

    def syslog(self) -> str:
        return f"{self.t:%b %d %H:%M:%S}"


def tqdm_bar(done: int, total: int, width: int = 10) -> str:
    filled = int(width * done / total)
    return "█" * filled + " " * (width - filled)


def hexid(rng: random.Random, n: int = 12) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


# --------------------------------------------------------------------------- NCCL


NCCL_221_PLUGIN = [
    "NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)",
    "NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: "
    "No such file or directory : when loading libnccl-net.so",
    "NCCL INFO NET/Plugin: Using internal network plugin.",
]
NCCL_218_PLUGIN = [
    "NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared "
    "object file: No such file or directory",
    "NCCL INFO NET/Plugin : No plugin found, using internal implementation",
]


def nccl_init(
    *,
    host: str,
    pid: int,
    tid: int,
    rank: int,
    local_rank: int,
    nranks: int,
    nnodes: int,
    ip: str,
    version: str,
    busid: str,
    comm: str,
    commid: str,
    ib: bool,
    rng: random.Random,
    channels: int = 8,
) -> list[str]:
    """NCCL_DEBUG=INFO start-up of one rank (formats of NCCL 2.18 / 2.21)."""
    p = f"{host}:{pid}:{pid} [{local_rank}]"
    t = f"{host}:{pid}:{tid} [{local_rank}]"
    v226 = version.startswith("2.26")
    new = version.startswith("2.21") or v226
    out = [f"{p} NCCL INFO cudaDriverVersion {'12080' if v226 else '12040' if new else '12020'}"]
    iface = "ib0" if ib else "eth0"
    if v226:
        out.append(f"{p} NCCL INFO Bootstrap: Using {iface}:{ip}<0>")
        out.append(f"{p} NCCL INFO NCCL version {version}+cuda12.8")
        out.append(f"{p} NCCL INFO Comm config Blocking set to 1")
        out.append(
            f"{t} NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."
        )
    else:
        out.append(f"{p} NCCL INFO Bootstrap : Using {iface}:{ip}<0>")
        out += [f"{p} {line}" for line in (NCCL_221_PLUGIN if new else NCCL_218_PLUGIN)]
        if rank == 0:
            out.append(f"NCCL version {version}+cuda{'12.4' if new else '12.1'}")
    if ib:
        out.append(f"{t} NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1,mlx5_2,mlx5_3")
        out.append(
            f"{t} NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; "
            f"OOB {iface}:{ip}<0>"
        )
        out.append(f"{t} NCCL INFO Using non-device net plugin version 0")
        if v226:
            out.append(f"{t} NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so.")
        out.append(f"{t} NCCL INFO Using network IB")
        out.append(f"{t} NCCL INFO DMA-BUF is available on GPU device {local_rank}")
    else:
        out.append(f"{t} NCCL INFO Failed to open libibverbs.so[.1]")
        out.append(f"{t} NCCL INFO NET/Socket : Using [0]{iface}:{ip}<0>")
        if new:
            out.append(f"{t} NCCL INFO Using non-device net plugin version 0")
        out.append(f"{t} NCCL INFO Using network Socket")
    dev = "nvmlDev" if new else ""
    devpart = f"cudaDev {local_rank} {dev} {local_rank} " if new else f"cudaDev {local_rank} "
    out.append(
        f"{t} NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {nranks} {devpart}busId {busid} "
        f"commId {commid} - Init START"
    )
    out.append(f"{t} NCCL INFO Setting affinity for GPU {local_rank} to ffffffff,00000000,ffffffff")
    if new:
        out.append(f"{t} NCCL INFO NVLS multicast support is not available on dev {local_rank}")
        out.append(
            f"{t} NCCL INFO comm {comm} rank {rank} nRanks {nranks} nNodes {nnodes} "
            f"localRanks {nranks // nnodes} localRank {local_rank} MNNVL 0"
        )
    if rank == 0:
        order = "   ".join(str(r) for r in range(min(nranks, 16)))
        for c in range(channels):
            out.append(f"{t} NCCL INFO Channel {c:02d}/{channels:02d} :    {order}")
    nxt = (rank + 1) % nranks
    prev = (rank - 1) % nranks
    out.append(
        f"{t} NCCL INFO Trees [0] {nxt}/-1/-1->{rank}->{prev if rank else -1} "
        f"[1] {nxt}/-1/-1->{rank}->{prev if rank else -1}"
    )
    out.append(f"{t} NCCL INFO P2P Chunksize set to 524288")
    per_node = nranks // nnodes
    for c in range(channels):
        if ib and (rank + 1) % per_node == 0:
            out.append(
                f"{t} NCCL INFO Channel {c:02d}/0 : {rank}[{local_rank}] -> {nxt}[{nxt % per_node}] [send] via NET/IB/{c % 4}/GDRDMA"
            )
        elif new:
            out.append(
                f"{t} NCCL INFO Channel {c:02d}/0 : {rank}[{local_rank}] -> {nxt}[{nxt % per_node}] via P2P/CUMEM/read"
            )
        else:
            out.append(
                f"{t} NCCL INFO Channel {c:02d}/0 : {rank}[{local_rank}] -> {nxt}[{nxt % per_node}] via P2P/IPC/read"
            )
    out.append(f"{t} NCCL INFO Connected all rings")
    out.append(f"{t} NCCL INFO Connected all trees")
    out.append(f"{t} NCCL INFO threadThresholds 8/8/64 | {8 * nranks}/8/64 | 512 | 512")
    if new:
        out.append(
            f"{t} NCCL INFO {channels} coll channels, {channels} collnet channels, 0 nvls channels, "
            f"{channels} p2p channels, {channels} p2p channels per peer"
        )
        if v226:
            out.append(
                f"{t} NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so. Using internal tuner plugin."
            )
        else:
            out.append(
                f"{t} NCCL INFO TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object "
                "file: No such file or directory : when loading libnccl-tuner.so"
            )
            out.append(f"{t} NCCL INFO TUNER/Plugin: Using internal tuner plugin.")
    else:
        out.append(
            f"{t} NCCL INFO {channels} coll channels, 0 nvls channels, {channels} p2p channels, 2 p2p channels per peer"
        )
    out.append(
        f"{t} NCCL INFO ncclCommInitRank comm {comm} rank {rank} nranks {nranks} {devpart}busId {busid} "
        f"commId {commid} - Init COMPLETE"
    )
    if new:
        tot = rng.uniform(0.4, 1.3)
        out.append(
            f"{t} NCCL INFO Init timings: rank {rank} nranks {nranks} total {tot:.2f} (kernels {tot * 0.45:.2f}, "
            f"alloc {tot * 0.04:.2f}, bootstrap {tot * 0.12:.2f}, allgathers 0.00, topo {tot * 0.25:.2f}, "
            f"graphs 0.01, connections {tot * 0.1:.2f}, rest 0.01)"
        )
    return out


def nccl_shutdown(
    host: str,
    pid: int,
    local_rank: int,
    rank: int,
    nranks: int,
    comm: str,
    busid: str,
    local_world: int,
    new: bool = True,
) -> list[str]:
    """What NCCL prints when a communicator is destroyed at a normal exit."""
    svc = pid + 91
    out = [
        f"{host}:{pid}:{svc} [{local_rank}] NCCL INFO [Service thread] Connection closed by localRank {lr}"
        for lr in range(local_world)
        if lr != local_rank
    ]
    dev = f"cudaDev {local_rank} nvmlDev {local_rank} " if new else f"cudaDev {local_rank} "
    out.append(
        f"{host}:{pid}:{pid} [{local_rank}] NCCL INFO comm {comm} rank {rank} nranks {nranks} {dev}busId {busid} - "
        "Destroy COMPLETE"
    )
    return out


BUSIDS = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"]
PCI = [
    "0000:18:00",
    "0000:2a:00",
    "0000:3a:00",
    "0000:5d:00",
    "0000:9a:00",
    "0000:ab:00",
    "0000:ba:00",
    "0000:db:00",
]


def comm_addr(rng: random.Random) -> str:
    return "0x55" + hexid(rng, 10)


# --------------------------------------------------------------------------- kernel log of a healthy node


def healthy_kern_log(
    host: str,
    start: datetime,
    rng: random.Random,
    *,
    driver: str = "550.90.07",
    gpus: int = 8,
    ib: bool = True,
    edac_ce: bool = False,
    xid45: list[tuple[datetime, int]] | None = None,
    extra: list[tuple[datetime, str]] | None = None,
) -> list[str]:
    """Boot-time and run-time kernel messages of a healthy GPU node (syslog kern.log format)."""
    c = Clock(start)
    up = 14.2
    lines: list[tuple[datetime, float, str]] = []

    def k(msg: str, dt: float = 0.0005) -> None:
        nonlocal up
        up += dt
        c.tick(dt)
        lines.append((c.t, up, msg))

    k(
        "Linux version 5.15.0-119-generic (buildd@lcy02-amd64-093) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, "
        "GNU ld (GNU Binutils for Ubuntu) 2.38) #129-Ubuntu SMP Fri Aug 2 19:25:20 UTC 2024"
    )
    k(
        "Command line: BOOT_IMAGE=/boot/vmlinuz-5.15.0-119-generic root=UUID=3f2c9d6e-5b1a-4c7e-9a0f-1d2e3c4b5a69 ro "
        "pci=realloc=off iommu=pt amd_iommu=on"
    )
    k("ACPI: SRAT: Node 0 PXM 0 [mem 0x00000000-0x7fffffff]")
    k("ACPI: SRAT: Node 1 PXM 1 [mem 0x10080000000-0x2007fffffff]")
    k("DMI: Supermicro AS -4124GO-NART/H12DSG-O-CPU, BIOS 2.4 04/27/2023")
    k("EDAC MC: Ver: 3.0.0", 0.8)
    k("EDAC amd64: F17h_M30h detected (node 0).")
    k(
        "EDAC MC0: Giving out device to module amd64_edac controller F17h_M30h: DEV 0000:00:18.3 (INTERRUPT)"
    )
    k(
        "EDAC MC1: Giving out device to module amd64_edac controller F17h_M30h: DEV 0000:00:19.3 (INTERRUPT)"
    )
    k("nvme nvme0: pci function 0000:c1:00.0", 0.3)
    k("nvme nvme0: 64/0/0 default/read/poll queues")
    k(" nvme0n1: p1 p2")
    k("EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.", 0.4)
    k("EXT4-fs (nvme0n1p2): re-mounted. Quota mode: none.", 1.9)
    k("RPC: Registered named UNIX socket transport module.", 0.8)
    k("RPC: Registered udp transport module.")
    k("RPC: Registered tcp transport module.")
    k("RPC: Registered tcp NFSv4.1 backchannel transport module.")
    k("NFS: Registering the id_resolver key type", 0.1)
    k("Key type id_resolver registered")
    k("Key type id_legacy registered")
    if ib:
        k("mlx5_core 0000:0c:00.0: firmware version: 28.39.1002", 1.2)
        k("mlx5_core 0000:0c:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)")
        k("mlx5_core 0000:0c:00.0: Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps")
        k("mlx5_core 0000:0c:00.0: E-Switch: Total vports 2, per vport: max uc(128) max mc(2048)")
        k("mlx5_core 0000:0c:00.0: Port module event: module 0, Cable plugged", 0.3)
        k(
            "mlx5_core 0000:0c:00.0: mlx5_pcie_event:301:(pid 1093): PCIe slot advertised sufficient power (27W)."
        )
        k(
            "mlx5_core 0000:0c:00.0: mlx5_cmd_out_err:838:(pid 1933): QUERY_VUID(0x8b8) op_mod(0x0) failed, status bad "
            "parameter(0x3), syndrome (0x2cb1f0), err(-22)",
            0.2,
        )
        k("mlx5_ib: Mellanox Connect-IB Infiniband driver v24.04-0.7.0", 0.4)
        k("mlx5_core 0000:0c:00.0 ibp12s0: renamed from ib0")
    k("nvidia: loading out-of-tree module taints kernel.", 1.1)
    k("nvidia: module license 'NVIDIA' taints kernel.")
    k("Disabling lock debugging due to kernel taint")
    k("nvidia-nvlink: Nvlink Core is being initialized, major device number 508", 0.02)
    for g in range(gpus):
        k(f"nvidia {PCI[g]}.0: enabling device (0000 -> 0002)")
    k(
        f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {driver}  Fri May 31 09:35:42 UTC 2024",
        0.3,
    )
    k(
        f"nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  {driver}  Fri May 31 09:30:23 UTC 2024"
    )
    k("nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting taint.", 0.05)
    k("nvidia-uvm: Loaded the UVM driver, major device number 506.")
    k("[drm] [nvidia-drm] [GPU ID 0x00001800] Loading driver")
    k(f"[drm] Initialized nvidia-drm 0.0.0 20160202 for {PCI[0]}.0 on minor 1")
    k("nvidia_peermem: module uses symbols from proprietary module nvidia, inheriting taint.", 2.2)
    if ib:
        k("IPv6: ADDRCONF(NETDEV_CHANGE): ibp12s0: link becomes ready", 3.1)
        k("mlx5_core 0000:0c:00.0 ibp12s0: Link up")
    k(
        "NVRM: Persistence mode is deprecated and will be removed in a future release. Please use "
        "nvidia-persistenced instead.",
        4.0,
    )
    for g in range(gpus):
        k(
            f"NVRM: GPU at PCI:{PCI[g]}: GPU-{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
            0.01,
        )
        k(f"NVRM: GPU Board Serial Number: 16522210{rng.randint(10000, 99999)}")
    k(
        'audit: type=1400 audit(1710400030.518:64): apparmor="STATUS" operation="profile_load" profile="unconfined" '
        'name="nvidia_modprobe" pid=2231 comm="apparmor_parser"',
        1.0,
    )
    k("Initializing XFRM netlink socket", 2.0)
    k("bpfilter: Loaded bpfilter_umh pid 3120")
    k("Started bpfilter")
    k("IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready", 0.2)
    k("docker0: port 1(veth3a1b2c4) entered blocking state", 30.0)
    k("docker0: port 1(veth3a1b2c4) entered forwarding state")
    # run-time messages
    timed: list[tuple[datetime, str]] = list(extra or [])
    if edac_ce:
        t_ce = start + timedelta(hours=3, minutes=12, seconds=7)
        for msg in (
            "mce: [Hardware Error]: Machine check events logged",
            "[Hardware Error]: Corrected error, no action required.",
            "[Hardware Error]: CPU:0 (17:31:0) MC17_STATUS[Over|CE|MiscV|AddrV|-|-|SyndV|CECC|-|-|-]: 0xdc2040000000011b",
            "[Hardware Error]: Error Addr: 0x000000068ad59e00",
            "[Hardware Error]: IPID: 0x0000009600050f00, Syndrome: 0x000040200a401000",
            "[Hardware Error]: Unified Memory Controller Ext. Error Code: 0, DRAM ECC error.",
            "EDAC MC0: 1 CE on mc#0csrow#0channel#0 (csrow:0 channel:0 page:0x68ad59 offset:0xe00 grain:64 "
            "syndrome:0x4020)",
            "[Hardware Error]: cache level: L3/GEN, tx: GEN, mem-tx: RD",
        ):
            timed.append((t_ce, msg))
            t_ce += timedelta(microseconds=2100)
    for when, pid in xid45 or []:
        gpu = pid % gpus
        timed.append((when, f"NVRM: Xid (PCI:{PCI[gpu]}): 45, pid={pid}, name=python, Ch 00000008"))
    out = []
    for when, uptime, msg in lines:
        out.append(f"{when:%b %d %H:%M:%S} {host} kernel: [{uptime:12.6f}] {msg}")
    last_up = up
    base = lines[-1][0]
    for when, msg in sorted(timed):
        u = last_up + (when - base).total_seconds()
        out.append(f"{when:%b %d %H:%M:%S} {host} kernel: [{u:12.6f}] {msg}")
    return out


def nvidia_smi_table(
    rng: random.Random,
    when: datetime,
    gpus: int,
    driver: str = "550.90.07",
    cuda: str = "12.4",
    name: str = "NVIDIA A100-SXM4-80GB",
) -> list[str]:
    out = [
        f"{when:%a %b %d %H:%M:%S %Y}       ",
        "+-----------------------------------------------------------------------------------------+",
        f"| NVIDIA-SMI {driver}              Driver Version: {driver}      CUDA Version: {cuda}     |",
        "|-----------------------------------------+------------------------+----------------------+",
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
        "|                                         |                        |               MIG M. |",
        "|=========================================+========================+======================|",
    ]
    for g in range(gpus):
        temp = rng.randint(28, 36)
        pw = rng.randint(58, 66)
        out.append(
            f"|   {g}  {name:<21}  On  |   {PCI[g][:7].upper()}{PCI[g][7:].upper()}.0 Off |                    0 |"
        )
        out.append(
            f"| N/A   {temp}C    P0             {pw}W /  400W |       1MiB /  81920MiB |      0%      Default |"
        )
        out.append(
            "|                                         |                        |             Disabled |"
        )
        out.append(
            "+-----------------------------------------+------------------------+----------------------+"
        )
    out += [
        "                                                                                         ",
        "+-----------------------------------------------------------------------------------------+",
        "| Processes:                                                                              |",
        "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |",
        "|        ID   ID                                                               Usage      |",
        "|=========================================================================================|",
        "|  No running processes found                                                             |",
        "+-----------------------------------------------------------------------------------------+",
    ]
    return out


def launch_configs(
    c: Clock,
    tid: int,
    entry: str,
    nmin: int,
    nmax: int,
    nproc: int,
    run_id: str,
    backend: str,
    endpoint: str,
    max_restarts: int = 0,
) -> list[str]:
    """torch/distributed/launcher/api.py INFO block printed by torchrun at start (LOGLEVEL=INFO)."""
    return [
        f"{c.glog('I', tid, 'torch/distributed/launcher/api.py:194')} Starting elastic_operator with launch configs:",
        f"  entrypoint       : {entry}",
        f"  min_nodes        : {nmin}",
        f"  max_nodes        : {nmax}",
        f"  nproc_per_node   : {nproc}",
        f"  run_id           : {run_id}",
        f"  rdzv_backend     : {backend}",
        f"  rdzv_endpoint    : {endpoint}",
        "  rdzv_configs     : {'timeout': 900}",
        f"  max_restarts     : {max_restarts}",
        "  monitor_interval : 0.1",
        "  log_dir          : /tmp/torchelastic_" + "k3v9p2xq",
        "  metrics_cfg      : {}",
        "",
    ]


OMP_WARNING = [
    "",
    "*****************************************",
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system "
    "being overloaded, please further tune the variable for optimal performance in your application as needed. ",
    "*****************************************",
]

DESTROY_WARNING = (
    "Warning: WARNING: process group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program "
    "exit, the application should call destroy_process_group to ensure that any pending NCCL operations have "
    "finished in this process. In rare cases this process can exit before this point and block the progress of "
    "another member of the process group. This constraint has always been present,  but this warning has only been "
    "added since PyTorch 2.4 (function operator())"
)

BARRIER_WARNING = (
    "[PG ID 0 PG GUID 0 Rank {rank}]  using GPU {gpu} to perform barrier as devices used by this process are "
    "currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify "
    "device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id."
)

TYPED_STORAGE = [
    "/usr/local/lib/python3.10/dist-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will "
    "be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if "
    "you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()",
    "  return self.fget.__get__(instance, owner)()",
]

DATALOADER_WORKERS = [
    "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py:617: UserWarning: This DataLoader will "
    "create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is "
    "smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get "
    "DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
    "  warnings.warn(",
]


# --------------------------------------------------------------------------- 1. pytorch-ddp-nccl


def pytorch_ddp_nccl() -> None:
    """torchrun, 1 node x 4 A100, torch 2.5 + NCCL 2.21.5, ResNet-50 fp16 AMP (pytorch/examples imagenet)."""
    name = "pytorch-ddp-nccl"
    FOLDERS.append(name)
    rng = random.Random(101)
    host = "gpu-node1"
    start = datetime(2026, 3, 14, 9, 14, 2, 118000)
    c = Clock(start)
    agent_tid = 140211833427776
    world = 4
    pids = [23871 + i for i in range(world)]
    run = "torch/distributed/run.py:793"
    api = "torch/distributed/elastic/agent/server/api.py"
    launcher = [
        f"+ echo 'job 7731 on {host} started at {start:%a %b %d %H:%M:%S UTC %Y}'",
        f"job 7731 on {host} started at {start:%a %b %d %H:%M:%S UTC %Y}",
        "+ nvidia-smi",
    ]
    launcher += nvidia_smi_table(rng, start, world)
    launcher += [
        "+ torchrun --nnodes=1 --nproc_per_node=4 --rdzv_backend=c10d --rdzv_endpoint=localhost:29500 main.py "
        "-a resnet50 --dist-backend nccl --multiprocessing-distributed --epochs 3 -b 1024 --amp /data/imagenet-100",
    ]
    c.tick(2.1)
    for line in OMP_WARNING:
        launcher.append(f"{c.glog('W', agent_tid, run)} {line}")
    c.tick(0.05)
    launcher.append(
        f"{c.glog('I', agent_tid, api + ':677')} [default] starting workers for entrypoint: python"
    )
    launcher.append(f"{c.glog('I', agent_tid, api + ':540')} [default] Rendezvous'ing worker group")
    c.tick(0.4)
    launcher += [
        f"{c.glog('I', agent_tid, api + ':554')} [default] Rendezvous complete for workers. Result:",
        "  restart_count=0",
        f"  master_addr={host}",
        "  master_port=29500",
        "  group_rank=0",
        "  group_world_size=1",
        "  local_ranks=[0, 1, 2, 3]",
        "  role_ranks=[0, 1, 2, 3]",
        "  global_ranks=[0, 1, 2, 3]",
        "  role_world_sizes=[4, 4, 4, 4]",
        "  global_world_sizes=[4, 4, 4, 4]",
        "",
        f"{c.glog('I', agent_tid, api + ':562')} [default] Starting worker group",
    ]
    c.tick(0.01)
    for lr in range(world):
        launcher.append(
            f"{c.glog('I', agent_tid, 'torch/distributed/elastic/multiprocessing/__init__.py:236')} Setting worker{lr} "
            f"reply file to: /tmp/torchelastic_k2x9v0ab/7731_3y8wq1nd/attempt_0/{lr}/error.json"
        )
    launcher.append(
        f"{c.glog('I', agent_tid, 'torch/distributed/elastic/multiprocessing/api.py:656')} Starting process group "
        "with 4 processes"
    )
    # ----- ranks
    step_s = 0.338
    iters = 124  # per epoch (imagenet-100: 126689 images / 1024)
    t_train0 = start + timedelta(seconds=21)
    epochs = 3
    comms = [comm_addr(rng) for _ in range(world)]
    commid = "0x" + hexid(rng, 16)
    end_time = None
    for r in range(world):
        rc = Clock(start + timedelta(seconds=3.6 + 0.01 * r))
        out: list[str] = []
        if r == 0:
            out.append(f"Use GPU: {r} for training")
        else:
            out.append(f"Use GPU: {r} for training")
        out.append(
            rc.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
            + " [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - Cannot assign "
            "requested address)."
        )
        rc.tick(0.9)
        if r == 0:
            out.append("=> creating model 'resnet50'")
        out += [
            "/workspace/examples/imagenet/main.py:163: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is "
            "deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.",
            "  scaler = torch.cuda.amp.GradScaler()",
        ]
        rc.tick(1.2)
        out += nccl_init(
            host=host,
            pid=pids[r],
            tid=pids[r] + 120,
            rank=r,
            local_rank=r,
            nranks=world,
            nnodes=1,
            ip="10.0.0.11",
            version="2.21.5",
            busid=BUSIDS[r],
            comm=comms[r],
            commid=commid,
            ib=False,
            rng=rng,
        )
        out.append(
            f"[rank{r}]:"
            + rc.c10("W", "ProcessGroupNCCL.cpp:4115", rng.randint(1, 999999999))
            + " "
            + BARRIER_WARNING.format(rank=r, gpu=r)
        )
        out += DATALOADER_WORKERS
        if r == 0:
            out += TYPED_STORAGE
        # training
        t = Clock(t_train0)
        for ep in range(epochs):
            for i in range(0, iters, 10):
                t.tick(step_s * 10 + rng.uniform(-0.05, 0.05))
                loss = 4.62 - 1.1 * ep - 0.006 * i + rng.uniform(-0.05, 0.05)
                avg = loss + 0.08
                a1 = min(95.0, 3 + 22 * ep + 0.1 * i + rng.uniform(-1, 1))
                a5 = min(99.0, a1 * 2.3)
                out.append(
                    f"Epoch: [{ep}][{i + 1:3d}/{iters}]\tTime  {step_s + rng.uniform(-0.02, 0.03):.3f} ( {step_s:.3f})"
                    f"\tData  {rng.uniform(0.001, 0.004):.3f} ( {0.041 if ep == 0 else 0.006:.3f})"
                    f"\tLoss {loss:.4e} ({avg:.4e})\tAcc@1 {a1:6.2f} ({a1 - 1.2:6.2f})\tAcc@5 {a5:6.2f} ({a5 - 2.0:6.2f})"
                )
            t.tick(9.5)
            if True:
                for j in (1, 11):
                    out.append(
                        f"Test: [{j:2d}/20]\tTime  0.208 ( 0.413)\tLoss {3.9 - ep:.4e} ({3.95 - ep:.4e})\t"
                        f"Acc@1 {12 + 23 * ep:6.2f} ({11.5 + 23 * ep:6.2f})\tAcc@5 {34 + 20 * ep:6.2f} ({33 + 20 * ep:6.2f})"
                    )
                out.append(f" *   Acc@1 {11.92 + 23.1 * ep:.3f} Acc@5 {33.71 + 20.4 * ep:.3f}")
        end_time = t.t + timedelta(seconds=2.5)
        c_end = Clock(end_time)
        if r == 0:
            out.append(
                f"[rank{r}]:"
                + c_end.c10("W", "ProcessGroupNCCL.cpp:1250", rng.randint(1, 999999999))
                + " "
                + DESTROY_WARNING
            )
        out += nccl_shutdown(host, pids[r], r, r, world, comms[r], BUSIDS[r], world)
        write(name, f"rank_{r}.log", out)
    assert end_time is not None
    c = Clock(end_time + timedelta(seconds=3))
    launcher += [
        f"{c.glog('I', agent_tid, api + ':864')} [default] worker group successfully finished. Waiting 300 seconds "
        "for other agents to finish.",
        f"{c.glog('I', agent_tid, api + ':918')} Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 "
        "seconds for other agents to finish",
        f"{c.glog('I', agent_tid, api + ':932')} Done waiting for other agents. Elapsed: 0.0006182193756103516 seconds",
        "+ echo 'job 7731 finished, exit code 0'",
        "job 7731 finished, exit code 0",
    ]
    write(name, "launcher.log", launcher)
    write(
        name,
        "kern.log",
        healthy_kern_log(host, datetime(2026, 3, 11, 6, 2, 40), rng, gpus=8, ib=False),
    )


# --------------------------------------------------------------------------- 2. deepspeed-zero3

DS_CONFIG_DUMP = [
    (
        "activation_checkpointing_config",
        '{\n    "partition_activations": false, \n    "contiguous_memory_optimization": false, '
        '\n    "cpu_checkpointing": false, \n    "number_checkpoints": null, \n    "synchronize_checkpoint_boundary": false, '
        '\n    "profile": false\n}',
    ),
    ("amp_enabled", "False"),
    ("amp_params", "False"),
    ("bfloat16_enabled", "False"),
    ("bfloat16_immediate_grad_update", "False"),
    ("checkpoint_parallel_write_pipeline", "False"),
    ("checkpoint_tag_validation_enabled", "True"),
    ("checkpoint_tag_validation_fail", "False"),
    ("communication_data_type", "None"),
    ("curriculum_enabled_legacy", "False"),
    ("data_efficiency_enabled", "False"),
    ("dataloader_drop_last", "False"),
    ("disable_allgather", "False"),
    ("dump_state", "False"),
    (
        "dynamic_loss_scale_args",
        "{'init_scale': 65536, 'scale_window': 1000, "
        "'delayed_shift': 2, 'consecutive_hysteresis': False, 'min_scale': 1}",
    ),
    ("eigenvalue_enabled", "False"),
    ("elasticity_enabled", "False"),
    ("fp16_auto_cast", "False"),
    ("fp16_enabled", "True"),
    ("fp16_master_weights_and_gradients", "False"),
    ("global_rank", "0"),
    ("grad_accum_dtype", "None"),
    ("gradient_accumulation_steps", "4"),
    ("gradient_clipping", "1.0"),
    ("gradient_predivide_factor", "1.0"),
    ("graph_harvesting", "False"),
    ("initial_dynamic_scale", "65536"),
    ("load_universal_checkpoint", "False"),
    ("loss_scale", "0"),
    ("memory_breakdown", "False"),
    ("mics_hierarchial_params_gather", "False"),
    ("mics_shard_size", "-1"),
    ("optimizer_legacy_fusion", "False"),
    ("optimizer_name", "adamw"),
    ("optimizer_params", "{'lr': 2e-05, 'betas': [0.9, 0.999], 'eps': 1e-08, 'weight_decay': 0.0}"),
    ("pld_enabled", "False"),
    ("prescale_gradients", "False"),
    ("scheduler_name", "WarmupDecayLR"),
    ("sparse_attention", "None"),
    ("sparse_gradients_enabled", "False"),
    ("steps_per_print", "10"),
    ("timers_config", "enabled=True synchronized=True"),
    ("train_batch_size", "256"),
    ("train_micro_batch_size_per_gpu", "8"),
    ("use_data_before_expert_parallel_", "False"),
    ("use_node_local_storage", "False"),
    ("wall_clock_breakdown", "False"),
    ("weight_quantization_config", "None"),
    ("world_size", "8"),
    ("zero_allow_untested_optimizer", "False"),
    (
        "zero_config",
        "stage=3 contiguous_gradients=True reduce_scatter=True reduce_bucket_size=16777216 "
        "use_multi_rank_bucket_allreduce=True allgather_partitions=True allgather_bucket_size=500000000 "
        "overlap_comm=True load_from_fp32_weights=True elastic_checkpoint=False offload_param=None "
        "offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='cpu', nvme_path=None, buffer_count=4, "
        "pin_memory=True, pipeline_read=False, pipeline_write=False, fast_init=False, ratio=1.0) "
        "sub_group_size=1000000000 cpu_offload_param=None cpu_offload_use_pin_memory=None cpu_offload=None "
        "prefetch_bucket_size=15099494 param_persistence_threshold=40960 model_persistence_threshold=9223372036854775807 "
        "max_live_parameters=1000000000 max_reuse_distance=1000000000 gather_16bit_weights_on_model_save=True "
        "stage3_gather_fp16_weights_on_model_save=False ignore_unused_parameters=True legacy_stage1=False "
        "round_robin_gradients=False zero_hpz_partition_size=1 zero_quantized_weights=False "
        "zero_quantized_nontrainable_weights=False zero_quantized_gradients=False mics_shard_size=-1 "
        "mics_hierarchical_params_gather=False memory_efficient_linear=True pipeline_loading_checkpoint=False "
        "override_module_apply=True",
    ),
    ("zero_enabled", "True"),
    ("zero_force_ds_cpu_optimizer", "True"),
    ("zero_optimization_stage", "3"),
]

DS_OP_WARNINGS = [
    " [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.",
    " [WARNING]  async_io: please install the libaio-dev package with apt",
    " [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment "
    "variables to where it can be found.",
    " [WARNING]  Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH",
    " [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected 2.3",
    " [WARNING]  using untested triton version (2.3.0), only 1.0.0 is known to be compatible",
]


def deepspeed_zero3() -> None:
    """deepspeed launcher, 1 node x 8 A100, DeepSpeed 0.14 ZeRO-3 + CPU-offloaded optimizer, fp16, HF Trainer."""
    name = "deepspeed-zero3"
    FOLDERS.append(name)
    rng = random.Random(202)
    host = "gpu-node1"
    start = datetime(2026, 3, 15, 10, 5, 1, 442000)
    c = Clock(start)
    world = 8
    pids = [41230 + 3 * i for i in range(world)]

    def ds(level: str, where: str) -> str:
        return f"[{c.pylog()}] [{level}] [{where}]"

    launcher: list[str] = ["+ nvidia-smi", *nvidia_smi_table(rng, start, world)]
    launcher.append(
        f"{ds('INFO', 'real_accelerator.py:203:get_accelerator')} Setting ds_accelerator to cuda (auto detect)"
    )
    launcher += DS_OP_WARNINGS
    c.tick(1.3)
    launcher += [
        f"{ds('WARNING', 'runner.py:202:fetch_hostfile')} Unable to find hostfile, will proceed with training with local "
        "resources only.",
        f"{ds('INFO', 'runner.py:568:main')} cmd = /usr/bin/python -u -m deepspeed.launcher.launch "
        "--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMSwgMiwgMywgNCwgNSwgNiwgN119 --master_addr=127.0.0.1 --master_port=29500 "
        "--enable_each_rank_log=None train_sft.py --deepspeed ds_z3_offload.json --model_name_or_path "
        "/models/llama-2-7b-hf --output_dir /output/sft-7b --fp16 True --num_train_epochs 1",
    ]
    c.tick(2.0)
    launcher.append(
        f"{ds('INFO', 'real_accelerator.py:203:get_accelerator')} Setting ds_accelerator to cuda (auto detect)"
    )
    launcher += DS_OP_WARNINGS
    c.tick(1.1)
    launcher += [
        f"{ds('INFO', 'launch.py:139:main')} 0 NV_LIBNCCL_DEV_PACKAGE=libnccl-dev=2.20.5-1+cuda12.4",
        f"{ds('INFO', 'launch.py:139:main')} 0 NCCL_VERSION=2.20.5-1",
        f"{ds('INFO', 'launch.py:139:main')} 0 NV_LIBNCCL_PACKAGE_VERSION=2.20.5-1",
        f"{ds('INFO', 'launch.py:146:main')} WORLD INFO DICT: {{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]}}",
        f"{ds('INFO', 'launch.py:152:main')} nnodes=1, num_local_procs=8, node_rank=0",
        f"{ds('INFO', 'launch.py:163:main')} global_rank_mapping=defaultdict(<class 'list'>, "
        "{'localhost': [0, 1, 2, 3, 4, 5, 6, 7]})",
        f"{ds('INFO', 'launch.py:164:main')} dist_world_size=8",
        f"{ds('INFO', 'launch.py:168:main')} Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
        f"{ds('INFO', 'launch.py:256:main')} process {pids[0]} spawned with command: ['/usr/bin/python', '-u', "
        "'train_sft.py', '--local_rank=0', '--deepspeed', 'ds_z3_offload.json', '--fp16', 'True']",
    ]
    for r in range(1, world):
        launcher.append(
            f"{ds('INFO', 'launch.py:256:main')} process {pids[r]} spawned with command: ['/usr/bin/python', '-u', "
            f"'train_sft.py', '--local_rank={r}', '--deepspeed', 'ds_z3_offload.json', '--fp16', 'True']"
        )

    # rank 0 ---------------------------------------------------------------
    r0: list[str] = []
    c.tick(3.2)
    r0.append(
        f"{ds('INFO', 'real_accelerator.py:203:get_accelerator')} Setting ds_accelerator to cuda (auto detect)"
    )
    r0 += DS_OP_WARNINGS[:3]
    c.tick(2.7)
    r0 += [
        f"{ds('INFO', 'comm.py:637:init_distributed')} cdb=None",
        f"{ds('INFO', 'comm.py:668:init_distributed')} Initializing TorchBackend in DeepSpeed with backend nccl",
    ]
    c.tick(4.1)
    r0 += [
        "Loading checkpoint shards: 100%|██████████| 2/2 [00:07<00:00,  3.71s/it]",
        f"{ds('INFO', 'partition_parameters.py:345:__exit__')} finished initializing model - num_params = 291, "
        "num_elems = 6.74B",
    ]
    c.tick(2.2)
    r0 += [
        "Using /home/user/.cache/torch_extensions/py310_cu124 as PyTorch extensions root...",
        "Detected CUDA files, patching ldflags",
        "Emitting ninja build file /home/user/.cache/torch_extensions/py310_cu124/cpu_adam/build.ninja...",
        "/usr/local/lib/python3.10/dist-packages/torch/utils/cpp_extension.py:1967: UserWarning: TORCH_CUDA_ARCH_LIST is "
        "not set, all archs for visible cards are included for compilation. ",
        "If this is not desired, please set os.environ['TORCH_CUDA_ARCH_LIST'].",
        "  warnings.warn(",
        "Building extension module cpu_adam...",
        "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)",
        "ninja: no work to do.",
        "Loading extension module cpu_adam...",
        f"Time to load cpu_adam op: {rng.uniform(2.2, 3.0):.10f} seconds",
    ]
    c.tick(3.0)
    r0 += [
        "Adam Optimizer #0 is created with AVX512 arithmetic capability.",
        "Config: alpha=0.000020, betas=(0.900000, 0.999000), weight_decay=0.000000, adam_w=1",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown",
        f"{ds('INFO', 'config.py:733:__init__')} Config mesh_device None world_size = 8",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] DeepSpeed Flops Profiler Enabled: False",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] Using client Optimizer as basic optimizer",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] Removing param_group that has no 'params' in the basic Optimizer",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] DeepSpeed Basic Optimizer = DeepSpeedCPUAdam",
        f"{ds('INFO', 'utils.py:56:is_zero_supported_optimizer')} Checking ZeRO support for optimizer=DeepSpeedCPUAdam "
        "type=<class 'deepspeed.ops.adam.cpu_adam.DeepSpeedCPUAdam'>",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] Creating fp16 ZeRO stage 3 optimizer, MiCS is enabled False, "
        "Hierarchical params gather False",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] Creating torch.float16 ZeRO stage 3 optimizer",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} Stage 3 initialize beginning",
        f"{ds('INFO', 'utils.py:780:see_memory_usage')} MA 1.62 GB         Max_MA 2.13 GB         CA 3.29 GB         Max_CA 3 GB ",
        f"{ds('INFO', 'utils.py:787:see_memory_usage')} CPU Virtual Memory:  used = 131.07 GB, percent = 13.0%",
        f"{ds('INFO', 'stage3.py:130:__init__')} Reduce bucket size 16777216",
        f"{ds('INFO', 'stage3.py:131:__init__')} Prefetch bucket size 15099494",
    ]
    c.tick(4.4)
    r0 += [
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} DeepSpeedZeRoOffload initialize [begin]",
        f"{ds('INFO', 'utils.py:780:see_memory_usage')} MA 1.62 GB         Max_MA 1.62 GB         CA 3.29 GB         Max_CA 3 GB ",
        "Parameter Offload: Total persistent parameters: 266240 in 65 params",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} DeepSpeedZeRoOffload initialize [end]",
        f"{ds('INFO', 'utils.py:780:see_memory_usage')} MA 1.62 GB         Max_MA 1.62 GB         CA 3.29 GB         Max_CA 3 GB ",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} Before creating fp16 partitions",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} After creating fp16 partitions: 2",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} Before creating fp32 partitions",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} After creating fp32 partitions",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} Before initializing optimizer states",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} After initializing optimizer states",
        f"{ds('INFO', 'utils.py:787:see_memory_usage')} CPU Virtual Memory:  used = 248.51 GB, percent = 24.7%",
        f"{ds('INFO', 'stage3.py:486:_setup_for_real_optimizer')} optimizer state initialized",
        f"{ds('INFO', 'utils.py:779:see_memory_usage')} After initializing ZeRO optimizer",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] DeepSpeed Final Optimizer = DeepSpeedZeroOptimizer_Stage3",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] DeepSpeed using configured LR scheduler = WarmupDecayLR",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] DeepSpeed LR Scheduler = <deepspeed.runtime.lr_schedules."
        "WarmupDecayLR object at 0x7f3b2c1d5e10>",
        f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] step=0, skipped=0, lr=[0.0], mom=[[0.9, 0.999]]",
        f"{ds('INFO', 'config.py:997:print')} DeepSpeedEngine configuration:",
    ]
    for key, val in DS_CONFIG_DUMP:
        dots = "." * max(1, 29 - len(key))
        sep = f" {dots} " if len(key) < 29 else "  "
        r0.append(f"{ds('INFO', 'config.py:1001:print')}   {key}{sep}{val}")
    r0.append(f"{ds('INFO', 'config.py:987:print_user_config')}   json = {{")
    r0 += [
        '    "fp16": {',
        '        "enabled": true, ',
        '        "loss_scale": 0, ',
        '        "loss_scale_window": 1000, ',
        '        "initial_scale_power": 16, ',
        '        "hysteresis": 2, ',
        '        "min_loss_scale": 1',
        "    }, ",
        '    "zero_optimization": {',
        '        "stage": 3, ',
        '        "offload_optimizer": {',
        '            "device": "cpu", ',
        '            "pin_memory": true',
        "        }, ",
        '        "overlap_comm": true, ',
        '        "stage3_gather_16bit_weights_on_model_save": true',
        "    }, ",
        '    "gradient_accumulation_steps": 4, ',
        '    "gradient_clipping": 1.0, ',
        '    "steps_per_print": 10, ',
        '    "train_batch_size": 256, ',
        '    "train_micro_batch_size_per_gpu": 8, ',
        '    "wall_clock_breakdown": false',
        "}",
    ]
    r0 += [
        "***** Running training *****",
        "  Num examples = 51,760",
        "  Num Epochs = 1",
        "  Instantaneous batch size per device = 8",
        "  Total train batch size (w. parallel, distributed & accumulation) = 256",
        "  Gradient Accumulation steps = 4",
        "  Total optimization steps = 202",
        "  Number of trainable parameters = 6,738,415,616",
    ]
    c.tick(6.0)
    r0.append(
        f"{ds('WARNING', 'parameter_offload.py:86:_apply_to_tensors_only')} A module has unknown inputs or outputs type "
        "(<class 'transformers.cache_utils.DynamicCache'>) and the tensors embedded in it cannot be detected. The ZeRO-3 "
        "hooks designed to trigger before or after backward pass of the module relies on knowing the input and output "
        "tensors and therefore may not get triggered properly."
    )
    # fp16 warm-up overflows (routine), then normal steps
    scale = 65536
    step = 0
    total = 202
    r0.append(f"  0%|          | 0/{total} [00:00<?, ?it/s]")
    c.tick(17.0)
    r0.append(
        f"{ds('INFO', 'loss_scaler.py:190:update_scale')} [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss "
        f"scale: {scale}, but hysteresis is 2. Reducing hysteresis to 1"
    )
    skipped = 1
    for _ in range(4):
        step += 1
        c.tick(15.6 + rng.uniform(-0.3, 0.3))
        r0.append(
            f"  {int(100 * step / total)}%|{tqdm_bar(step, total)}| {step}/{total} [{step * 16 // 60:02d}:{step * 16 % 60:02d}<53:48, 15.93s/it]"
            f"[{c.pylog()}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
            f"Attempted loss scale: {scale}, reducing to {scale // 2}"
        )
        scale //= 2
        skipped += 1
    c.tick(15.6)
    step += 1
    r0.append(
        f"{ds('WARNING', 'stage3.py:2069:step')} 2 pytorch allocator cache flushes since last step. this happens "
        "when there is high memory pressure and is detrimental to performance. if this is happening frequently "
        "consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go "
        "away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks "
        "flush their caches at the same time"
    )
    lr = 0.0
    while step < total:
        step += 1
        c.tick(15.8 + rng.uniform(-0.6, 0.6))
        lr = min(2e-5, 2e-5 * step / 20) if step <= 20 else 2e-5 * (total - step) / (total - 20)
        if step % 10 == 0:
            r0.append(
                f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] step={step}, skipped={skipped}, lr=[{lr:.17g}], "
                "mom=[[0.9, 0.999]]"
            )
            r0.append(
                f"{ds('INFO', 'timer.py:259:stop')} epoch=0/micro_step={step * 4}/global_step={step}, "
                f"RunningAvgSamplesPerSec={16.05 + rng.uniform(-0.1, 0.1):.15f}, CurrSamplesPerSec="
                f"{16.1 + rng.uniform(-0.5, 0.5):.15f}, MemAllocated=4.87GB, MaxMemAllocated=21.94GB"
            )
            loss = 1.42 - 0.35 * step / total + rng.uniform(-0.05, 0.05)
            r0.append(
                f"{{'loss': {loss:.4f}, 'grad_norm': {rng.uniform(0.6, 1.9):.16f}, 'learning_rate': "
                f"{lr:.17g}, 'epoch': {step / total:.2f}}}"
            )
            r0.append(
                f" {int(100 * step / total)}%|{tqdm_bar(step, total)}| {step}/{total} [{step * 16 // 3600:d}:"
                f"{step * 16 % 3600 // 60:02d}:{step * 16 % 60:02d}<{(total - step) * 16 // 60:02d}:00, 15.91s/it]"
            )
        if step == 100:
            r0 += [
                f"Saving model checkpoint to /output/sft-7b/checkpoint-{step}",
                "Configuration saved in /output/sft-7b/checkpoint-100/config.json",
                "Configuration saved in /output/sft-7b/checkpoint-100/generation_config.json",
                "Model weights saved in /output/sft-7b/checkpoint-100/model.safetensors.index.json",
                "tokenizer config file saved in /output/sft-7b/checkpoint-100/tokenizer_config.json",
                "Special tokens file saved in /output/sft-7b/checkpoint-100/special_tokens_map.json",
                f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] [Torch] Checkpoint global_step100 is about to be saved!",
                f"{ds('INFO', 'logging.py:96:log_dist')} [Rank 0] Saving model checkpoint: "
                "/output/sft-7b/checkpoint-100/global_step100/zero_pp_rank_0_mp_rank_00_model_states.pt",
                f"{ds('INFO', 'torch_checkpoint_engine.py:21:save')} [Torch] Saving /output/sft-7b/checkpoint-100/"
                "global_step100/zero_pp_rank_0_mp_rank_00_model_states.pt...",
                f"{ds('INFO', 'torch_checkpoint_engine.py:23:save')} [Torch] Saved /output/sft-7b/checkpoint-100/"
                "global_step100/zero_pp_rank_0_mp_rank_00_model_states.pt.",
                f"{ds('INFO', 'torch_checkpoint_engine.py:21:save')} [Torch] Saving /output/sft-7b/checkpoint-100/"
                "global_step100/fp16_zero_pp_rank_0_mp_rank_00_optim_states.pt...",
                f"{ds('INFO', 'torch_checkpoint_engine.py:23:save')} [Torch] Saved /output/sft-7b/checkpoint-100/"
                "global_step100/fp16_zero_pp_rank_0_mp_rank_00_optim_states.pt.",
                f"{ds('INFO', 'engine.py:3536:_save_zero_checkpoint')} zero checkpoint saved /output/sft-7b/checkpoint-100/"
                "global_step100/fp16_zero_pp_rank_0_mp_rank_00_optim_states.pt",
                f"{ds('INFO', 'torch_checkpoint_engine.py:33:commit')} [Torch] Checkpoint global_step100 is ready now!",
            ]
        if step == 160:
            c.tick(0.2)
            r0.append(
                f"{ds('INFO', 'loss_scaler.py:183:update_scale')} [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                f"Attempted loss scale: {scale * 2}, reducing to {scale}"
            )
            skipped += 1
    c.tick(3.0)
    r0 += [
        "",
        "",
        "Training completed. Do not forget to share your model on huggingface.co/models =)",
        "",
        "",
        f"{{'train_runtime': {(c.t - start).total_seconds() - 60:.4f}, 'train_samples_per_second': 16.012, "
        f"'train_steps_per_second': 0.063, 'train_loss': 1.2764018773605801, 'epoch': 1.0}}",
        f"100%|██████████| {total}/{total} [53:41<00:00, 15.95s/it]",
        "Saving model checkpoint to /output/sft-7b",
        "Configuration saved in /output/sft-7b/config.json",
        "Model weights saved in /output/sft-7b/model.safetensors.index.json",
    ]
    t_end = c.t
    write(name, "rank_0.log", r0)

    # rank 3 (quiet rank) ----------------------------------------------------
    c3 = Clock(start + timedelta(seconds=7.3))
    r3: list[str] = [
        f"[{c3.pylog()}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)"
    ]
    r3 += DS_OP_WARNINGS
    c3.tick(2.7)
    r3.append(f"[{c3.pylog()}] [INFO] [comm.py:637:init_distributed] cdb=None")
    r3 += [
        "Loading checkpoint shards: 100%|██████████| 2/2 [00:07<00:00,  3.65s/it]",
        "Using /home/user/.cache/torch_extensions/py310_cu124 as PyTorch extensions root...",
        "Detected CUDA files, patching ldflags",
        "Emitting ninja build file /home/user/.cache/torch_extensions/py310_cu124/cpu_adam/build.ninja...",
        "Building extension module cpu_adam...",
        "Allowing ninja to set a default number of workers... (overridable by setting the environment variable MAX_JOBS=N)",
        "ninja: no work to do.",
        "Loading extension module cpu_adam...",
        f"Time to load cpu_adam op: {rng.uniform(2.2, 3.0):.10f} seconds",
        "Adam Optimizer #0 is created with AVX512 arithmetic capability.",
        "Config: alpha=0.000020, betas=(0.900000, 0.999000), weight_decay=0.000000, adam_w=1",
    ]
    comm = comm_addr(rng)
    r3 += nccl_init(
        host=host,
        pid=pids[3],
        tid=pids[3] + 405,
        rank=3,
        local_rank=3,
        nranks=world,
        nnodes=1,
        ip="10.0.0.11",
        version="2.21.5",
        busid=BUSIDS[3],
        comm=comm,
        commid="0x" + hexid(rng, 16),
        ib=False,
        rng=rng,
    )
    r3 += [
        "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: "
        "the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if "
        "use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default "
        "behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two "
        "variants.",
        "  warnings.warn(",
    ]
    r3 += nccl_shutdown(host, pids[3], 3, 3, world, comm, BUSIDS[3], 4)
    write(name, "rank_3.log", r3)

    # launcher end -----------------------------------------------------------
    c = Clock(t_end + timedelta(seconds=41))
    for r in range(world):
        c.tick(0.3 + rng.uniform(0, 0.5))
        launcher.append(
            f"[{c.pylog()}] [INFO] [launch.py:351:main] Process {pids[r]} exits successfully."
        )
    launcher += ["", "real\t55m12.304s", "user\t402m33.918s", "sys\t61m2.117s"]
    launcher += [
        f"[{c.pylog()}] [INFO] [launch.py:351:main] Process {pids[r]} exits successfully."
        for r in range(0)
    ]
    write(name, "launcher.log", launcher)


# --------------------------------------------------------------------------- 3. megatron-gpt

MEGATRON_ARGS = [
    ("accumulate_allreduce_grads_in_fp32", "False"),
    ("adam_beta1", "0.9"),
    ("adam_beta2", "0.95"),
    ("adam_eps", "1e-08"),
    ("apply_query_key_layer_scaling", "False"),
    ("apply_residual_connection_post_layernorm", "False"),
    ("attention_dropout", "0.1"),
    ("attention_softmax_in_fp32", "False"),
    ("bf16", "False"),
    ("check_for_nan_in_loss_and_grad", "True"),
    ("clip_grad", "1.0"),
    ("consumed_train_samples", "0"),
    ("data_parallel_size", "4"),
    ("data_path", "['/data/gpt/my-gpt2_text_document']"),
    ("distributed_backend", "nccl"),
    ("distributed_timeout_minutes", "10"),
    ("eval_interval", "500"),
    ("eval_iters", "10"),
    ("exit_on_missing_checkpoint", "False"),
    ("ffn_hidden_size", "8192"),
    ("fp16", "True"),
    ("global_batch_size", "256"),
    ("hidden_dropout", "0.1"),
    ("hidden_size", "2048"),
    ("hysteresis", "2"),
    ("init_method_std", "0.02"),
    ("initial_loss_scale", "4294967296"),
    ("load", "/ckpt/gpt-1.3b"),
    ("log_interval", "20"),
    ("loss_scale", "None"),
    ("loss_scale_window", "1000"),
    ("lr", "0.0002"),
    ("lr_decay_iters", "2000"),
    ("lr_decay_style", "cosine"),
    ("lr_warmup_fraction", "0.01"),
    ("max_position_embeddings", "2048"),
    ("merge_file", "/data/gpt/gpt2-merges.txt"),
    ("micro_batch_size", "4"),
    ("min_loss_scale", "1.0"),
    ("min_lr", "2e-05"),
    ("num_attention_heads", "16"),
    ("num_layers", "24"),
    ("params_dtype", "torch.float16"),
    ("pipeline_model_parallel_size", "2"),
    ("rank", "0"),
    ("save", "/ckpt/gpt-1.3b"),
    ("save_interval", "1000"),
    ("seed", "1234"),
    ("seq_length", "2048"),
    ("sequence_parallel", "True"),
    ("split", "949,50,1"),
    ("tensor_model_parallel_size", "2"),
    ("tokenizer_type", "GPT2BPETokenizer"),
    ("train_iters", "2000"),
    ("use_distributed_optimizer", "True"),
    ("use_flash_attn", "True"),
    ("vocab_file", "/data/gpt/gpt2-vocab.json"),
    ("weight_decay", "0.1"),
    ("world_size", "16"),
]


def megatron_gpt() -> None:
    """Megatron-LM GPT 1.3B, 2 nodes x 8 GPUs, TP2 PP2 DP4, fp16, torchrun on each node, NCCL over IB."""
    name = "megatron-gpt"
    FOLDERS.append(name)
    rng = random.Random(303)
    start = datetime(2026, 3, 16, 1, 0, 4, 337000)
    hosts = ["gpu-node1", "gpu-node2"]
    ips = ["10.0.1.11", "10.0.1.12"]
    run = "torch/distributed/run.py:793"
    api = "torch/distributed/elastic/agent/server/api.py"
    iter_ms = 1380.0
    iters = 2000
    t0 = start + timedelta(seconds=95)
    t_end = t0 + timedelta(milliseconds=iter_ms * iters + 4 * 21000 + 2 * 35000)

    for n, host in enumerate(hosts):
        c = Clock(start + timedelta(seconds=0.4 * n))
        tid = 140427771287360 + n * 4096
        lines: list[str] = [
            f"+ torchrun --nnodes 2 --nproc_per_node 8 --node_rank {n} --master_addr {hosts[0]} "
            "--master_port 6000 pretrain_gpt.py --tensor-model-parallel-size 2 "
            "--pipeline-model-parallel-size 2 --num-layers 24 --hidden-size 2048 --fp16 ..."
        ]
        for line in OMP_WARNING:
            lines.append(f"{c.glog('W', tid, run)} {line}")
        lines += launch_configs(
            c, tid, "pretrain_gpt.py", 2, 2, 8, "none", "static", f"{hosts[0]}:6000"
        )
        lines.append(
            f"{c.glog('I', tid, api + ':677')} [default] starting workers for entrypoint: python"
        )
        lines.append(f"{c.glog('I', tid, api + ':540')} [default] Rendezvous'ing worker group")
        if n == 1:
            for _k in range(3):
                c.tick(1.0)
                lines.append(
                    c.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
                    + f" [c10d] The client socket has failed to connect to [{hosts[0]}]:6000 (errno: 111 - "
                    "Connection refused)."
                )
        c.tick(1.6)
        lines += [
            f"{c.glog('I', tid, api + ':554')} [default] Rendezvous complete for workers. Result:",
            "  restart_count=0",
            f"  master_addr={hosts[0]}",
            "  master_port=6000",
            f"  group_rank={n}",
            "  group_world_size=2",
            "  local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]",
            f"  role_ranks={list(range(8 * n, 8 * n + 8))}",
            f"  global_ranks={list(range(8 * n, 8 * n + 8))}",
            "  role_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]",
            "  global_world_sizes=[16, 16, 16, 16, 16, 16, 16, 16]",
            "",
            f"{c.glog('I', tid, api + ':562')} [default] Starting worker group",
        ]
        for lr in range(8):
            lines.append(
                f"{c.glog('I', tid, 'torch/distributed/elastic/multiprocessing/__init__.py:236')} Setting "
                f"worker{lr} reply file to: /tmp/torchelastic_{hexid(rng, 8)}/none_{hexid(rng, 8)}/attempt_0/"
                f"{lr}/error.json"
            )
        c = Clock(t_end + timedelta(seconds=8 + n))
        lines += [
            f"{c.glog('I', tid, api + ':864')} [default] worker group successfully finished. Waiting 300 seconds for "
            "other agents to finish.",
            f"{c.glog('I', tid, api + ':918')} Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds "
            "for other agents to finish",
        ]
        c.tick(1.0 - 0.9 * n)
        lines.append(
            f"{c.glog('I', tid, api + ':932')} Done waiting for other agents. Elapsed: {1.01 - 0.9 * n:.16f} seconds"
        )
        lines += [
            "+ nvidia-smi --query-gpu=index,name,ecc.errors.uncorrected.volatile.total,temperature.gpu,memory.used "
            "--format=csv",
            "index, name, ecc.errors.uncorrected.volatile.total, temperature.gpu, memory.used [MiB]",
        ]
        lines += [f"{g}, NVIDIA A100-SXM4-80GB, 0, {rng.randint(31, 38)}, 1 MiB" for g in range(8)]
        write(name, f"{host}/torchrun.log", lines)

    # rank 0: arguments, init, no checkpoint, data, saves -----------------
    c = Clock(start + timedelta(seconds=6.2))
    r0 = [
        "using world size: 16, data-parallel size: 4, context-parallel size: 1, tensor-model-parallel size: 2, "
        "pipeline-model-parallel size: 2 ",
        "WARNING: Setting args.overlap_p2p_comm to False since non-interleaved schedule does not support overlapping "
        "p2p communication",
        "using torch.float16 for parameters ...",
        "------------------------ arguments ------------------------",
    ]
    for key, val in MEGATRON_ARGS:
        r0.append(f"  {key} {'.' * max(3, 48 - len(key))} {val}")
    r0 += [
        "-------------------- end of arguments ---------------------",
        "setting number of micro-batches to constant 16",
        "> building GPT2BPETokenizer tokenizer ...",
        " > padded vocab (size: 50257) with 175 dummy tokens (new size: 50432)",
        "> initializing torch distributed ...",
    ]
    comm = comm_addr(rng)
    r0 += nccl_init(
        host=hosts[0],
        pid=52001,
        tid=52219,
        rank=0,
        local_rank=0,
        nranks=16,
        nnodes=2,
        ip=ips[0],
        version="2.21.5",
        busid=BUSIDS[0],
        comm=comm,
        commid="0x" + hexid(rng, 16),
        ib=True,
        rng=rng,
        channels=4,
    )
    r0 += [
        "> initialized tensor model parallel with size 2",
        "> initialized pipeline model parallel with size 2",
        "> setting random seeds to 1234 ...",
        "> compiling dataset index builder ...",
        "make: Entering directory '/workspace/Megatron-LM/megatron/core/datasets'",
        "make: Nothing to be done for 'default'.",
        "make: Leaving directory '/workspace/Megatron-LM/megatron/core/datasets'",
        ">>> done with dataset index builder. Compilation time: 0.052 seconds",
        "> compiling and loading fused kernels ...",
        ">>> done with compiling and loading fused kernels. Compilation time: 2.381 seconds",
        "time to initialize megatron (seconds): 21.874",
        f"[after megatron is initialized] datetime: {start + timedelta(seconds=28):%Y-%m-%d %H:%M:%S} ",
        "building GPT model ...",
        " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 361195520",
        "INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with config "
        "DistributedDataParallelConfig(grad_reduce_in_fp32=False, overlap_grad_reduce=False, use_distributed_optimizer=True, "
        "check_for_nan_in_grad=True, bucket_size=None)",
        "INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce / reduce-scatter: 1",
        "INFO:megatron.core.optimizer:Setting up optimizer with OptimizerConfig(optimizer='adam', lr=0.0002, min_lr=2e-05, "
        "fp16=True, bf16=False, params_dtype=torch.float16, loss_scale=None, initial_loss_scale=4294967296, "
        "min_loss_scale=1.0, loss_scale_window=1000, hysteresis=2, adam_beta1=0.9, adam_beta2=0.95, adam_eps=1e-08, "
        "use_distributed_optimizer=True, clip_grad=1.0)",
        "> learning rate decay style: cosine",
        "WARNING: could not find the metadata file /ckpt/gpt-1.3b/latest_checkpointed_iteration.txt ",
        "    will not load any checkpoints and will start from random",
        "(min, max) time across ranks (ms):",
        "    load-checkpoint ................................: (0.41, 0.63)",
        f"[after model, optimizer, and learning rate scheduler are built] datetime: {start + timedelta(seconds=31):%Y-%m-%d %H:%M:%S} ",
        "> building train, validation, and test datasets ...",
        " > datasets target sizes (minimum size):",
        "    train:      512000",
        "    validation: 12800",
        "    test:       2560",
        "INFO:megatron.core.datasets.blended_megatron_dataset_config:mock = False",
        "INFO:megatron.core.datasets.blended_megatron_dataset_config:Let split_matrix = [(0, 0.949), (0.949, 0.999), (0.999, 1.0)]",
        "> building train, validation, and test datasets for GPT ...",
        "INFO:megatron.core.datasets.indexed_dataset:Load the _IndexReader from /data/gpt/my-gpt2_text_document.idx",
        "INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence lengths",
        "INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence pointers",
        "INFO:megatron.core.datasets.indexed_dataset:\tExtract the document indices",
        "INFO:megatron.core.datasets.indexed_dataset:> total number of sequences: 8013769",
        "INFO:megatron.core.datasets.indexed_dataset:> total number of documents: 8013769",
        "INFO:megatron.core.datasets.gpt_dataset:Load the GPTDataset train indices",
        "INFO:megatron.core.datasets.gpt_dataset:\tLoad the document index from 3f1f9ba5dc4c4b1c0c9d3f09c7a3a2d1-GPTDataset-train-document_index.npy",
        "INFO:megatron.core.datasets.gpt_dataset:\tLoad the sample index from 3f1f9ba5dc4c4b1c0c9d3f09c7a3a2d1-GPTDataset-train-sample_index.npy",
        "INFO:megatron.core.datasets.gpt_dataset:\tLoad the shuffle index from 3f1f9ba5dc4c4b1c0c9d3f09c7a3a2d1-GPTDataset-train-shuffle_index.npy",
        "INFO:megatron.core.datasets.gpt_dataset:> total number of samples: 4302316",
        "> finished creating GPT datasets ...",
        f"[after dataloaders are built] datetime: {start + timedelta(seconds=44):%Y-%m-%d %H:%M:%S} ",
        "done with setup ...",
        "(min, max) time across ranks (ms):",
        "    model-and-optimizer-setup ......................: (3012.77, 3119.02)",
        "    train/valid/test-data-iterators-setup ..........: (12903.40, 13318.11)",
        "training ...",
        f"[before the start of training step] datetime: {start + timedelta(seconds=45):%Y-%m-%d %H:%M:%S} ",
    ]
    t = Clock(t0)
    for it in range(1000, iters + 1, 1000):
        t.t = t0 + timedelta(
            milliseconds=iter_ms * it + (it // 500) * 21000 + (it // 1000 - 1) * 35000
        )
        r0.append(f"saving checkpoint at iteration {it:7d} to /ckpt/gpt-1.3b in torch_dist format")
        r0.append(
            f"  successfully saved checkpoint from iteration {it:7d} to /ckpt/gpt-1.3b [ t 1/2, p 1/2 ]"
        )
        r0.append("(min, max) time across ranks (ms):")
        r0.append(
            f"    save-checkpoint ................................: ({31204.11 + rng.uniform(0, 900):.2f}, "
            f"{33118.52 + rng.uniform(0, 900):.2f})"
        )
    r0.append(f"[after training is done] datetime: {t_end:%Y-%m-%d %H:%M:%S} ")
    r0 += nccl_shutdown(hosts[0], 52001, 0, 0, 16, comm, BUSIDS[0], 8)
    write(name, f"{hosts[0]}/rank_0.log", r0)

    # last rank (pipeline last stage): iteration lines, validation -------
    r15: list[str] = []
    comm = comm_addr(rng)
    r15 += nccl_init(
        host=hosts[1],
        pid=61007,
        tid=61231,
        rank=15,
        local_rank=7,
        nranks=16,
        nnodes=2,
        ip=ips[1],
        version="2.21.5",
        busid=BUSIDS[7],
        comm=comm,
        commid="0x" + hexid(rng, 16),
        ib=True,
        rng=rng,
        channels=4,
    )
    r15 += [
        "",
        f"{hosts[1]}:61007:61233 [7] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_3:1 Got async event : GID table change",
    ]
    scale = 4294967296.0
    skipped_total = 0
    lr = 0.0
    for it in range(20, iters + 1, 20):
        when = t0 + timedelta(milliseconds=iter_ms * it + (it // 500) * 21000)
        sk = 18 if it == 20 else 3 if it == 40 else 0
        if it in (20, 40):
            scale /= 2**sk
        skipped_total += sk
        warm = 20
        lr = (
            2e-4 * min(1.0, (it) / warm)
            if it <= warm
            else 2e-5
            + 0.5
            * (2e-4 - 2e-5)
            * (1 + __import__("math").cos(3.14159265 * (it - warm) / (iters - warm)))
        )
        loss = (
            10.9 * (0.55 + 0.45 * 2.718 ** (-it / 120))
            - 0.9 * it / iters
            + rng.uniform(-0.03, 0.03)
        )
        gn = (
            ""
            if sk == 18
            else f" grad norm: {rng.uniform(0.9, 3.2) if it > 50 else rng.uniform(6, 14):.3f} |"
        )
        r15.append(
            f" [{when:%Y-%m-%d %H:%M:%S}] iteration {it:8d}/{iters:8d} | consumed samples: {it * 256:12d} | elapsed time "
            f"per iteration (ms): {iter_ms + rng.uniform(-25, 25):.1f} | throughput per GPU (TFLOP/s/GPU): "
            f"{151.3 + rng.uniform(-2, 2):.1f} | learning rate: {lr:.6E} | global batch size:   256 | lm loss: {loss:.6E} |"
            f" loss scale: {scale:.1f} |{gn} number of skipped iterations: {sk:3d} | number of nan iterations:   0 |"
        )
        if it == 20:
            r15.append(
                "[Rank 15] (after 20 iterations) memory (MB) | allocated: 9811.4853515625 | max allocated: "
                "27413.02978515625 | reserved: 30380.0 | max reserved: 30380.0"
            )
        if it % 500 == 0:
            vl = loss + rng.uniform(0.01, 0.05)
            r15 += [
                "-" * 123,
                f" validation loss at iteration {it} on validation set | lm loss value: {vl:.6E} | lm loss PPL: "
                f"{2.718281828**vl:.6E} | ",
                "-" * 123,
            ]
    vl = loss + 0.03
    r15 += [
        "-" * 123,
        f" validation loss at iteration {iters} on validation set | lm loss value: {vl:.6E} | lm loss PPL: {2.718281828**vl:.6E} | ",
        "-" * 123,
        "-" * 117,
        f" validation loss at iteration {iters} on test set | lm loss value: {vl + 0.02:.6E} | lm loss PPL: "
        f"{2.718281828 ** (vl + 0.02):.6E} | ",
        "-" * 117,
    ]
    r15 += nccl_shutdown(hosts[1], 61007, 7, 15, 16, comm, BUSIDS[7], 8)
    write(name, f"{hosts[1]}/rank_15.log", r15)


# --------------------------------------------------------------------------- 4. hf-trainer-accelerate

SST2_SAMPLES = [
    "killed off too early , the subplot never recovers . ",
    "Killed off too early , the subplot never recovers and the film sags in its second hour . ",
    "a gorgeously strange movie , heaven is deeply concerned with morality , but it refuses to spell things out . ",
]


def hf_trainer_accelerate() -> None:
    """accelerate launch, 1 node x 2 GPUs, transformers run_glue.py (BERT on SST-2), fp16."""
    name = "hf-trainer-accelerate"
    FOLDERS.append(name)
    rng = random.Random(404)
    start = datetime(2026, 3, 17, 14, 2, 9, 10000)
    c = Clock(start)
    tid = 139912551880512
    launcher = [
        "+ accelerate launch --multi_gpu --num_processes 2 --mixed_precision fp16 run_glue.py --model_name_or_path "
        "bert-base-uncased --task_name sst2 --do_train --do_eval --max_seq_length 128 --per_device_train_batch_size 32 "
        "--learning_rate 2e-5 --num_train_epochs 3 --logging_steps 50 --evaluation_strategy epoch --save_steps 1000 "
        "--fp16 --output_dir /output/sst2 --log_level info",
        "The following values were not passed to `accelerate launch` and had defaults used instead:",
        "\t`--num_machines` was set to a value of `1`",
        "\t`--dynamo_backend` was set to a value of `'no'`",
        "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.",
    ]
    c.tick(1.7)
    for line in OMP_WARNING:
        launcher.append(f"{c.glog('W', tid, 'torch/distributed/run.py:793')} {line}")
    c.tick(2.4)
    launcher += [
        f"{c.glog('W', tid + 1, 'torch/distributed/elastic/multiprocessing/api.py:897')}".replace(
            "W", "I", 1
        )
        + " Starting elastic_operator with launch configs:",
        "  entrypoint       : run_glue.py",
        "  min_nodes        : 1",
        "  max_nodes        : 1",
        "  nproc_per_node   : 2",
        "  run_id           : none",
        "  rdzv_backend     : static",
        "  rdzv_endpoint    : 127.0.0.1:29500",
        "  rdzv_configs     : {'rank': 0, 'timeout': 900}",
        "  max_restarts     : 0",
        "  monitor_interval : 0.1",
        "  log_dir          : None",
        "  metrics_cfg      : {}",
        "",
    ]
    # rank 0 ------------------------------------------------------------
    c.tick(5.3)
    hf = lambda lvl, where: f"[{lvl}|{where}] {c.pylog()} >>"  # noqa: E731
    d = f"{c.t:%m/%d/%Y %H:%M:%S}"
    r0 = [
        "/usr/local/lib/python3.10/dist-packages/transformers/training_args.py:1525: FutureWarning: `evaluation_strategy` "
        "is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
        "  warnings.warn(",
        f"{d} - WARNING - __main__ - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: True, 16-bits "
        "training: True",
        f"{d} - INFO - __main__ - Training/evaluation parameters TrainingArguments(",
        "_n_gpu=1,",
        "accelerator_config={'split_batches': False, 'dispatch_batches': None, 'even_batches': True, 'use_seedable_sampler': "
        "True, 'non_blocking': False, 'gradient_accumulation_kwargs': None, 'use_configured_state': False},",
        "adafactor=False,",
        "bf16=False,",
        "ddp_backend=None,",
        "ddp_timeout=1800,",
        "eval_strategy=epoch,",
        "fp16=True,",
        "fp16_opt_level=O1,",
        "gradient_accumulation_steps=1,",
        "learning_rate=2e-05,",
        "log_level=info,",
        "logging_nan_inf_filter=True,",
        "logging_steps=50,",
        "num_train_epochs=3.0,",
        "output_dir=/output/sst2,",
        "per_device_train_batch_size=32,",
        "save_steps=1000,",
        "seed=42,",
        ")",
    ]
    c.tick(3.1)
    d = f"{c.t:%m/%d/%Y %H:%M:%S}"
    r0 += [
        f"{d} - INFO - datasets.builder - Found cached dataset glue (/home/user/.cache/huggingface/datasets/nyu-mll___glue/"
        "sst2/0.0.0/bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c)",
        f"{hf('INFO', 'configuration_utils.py:733')} loading configuration file config.json from cache at "
        "/home/user/.cache/huggingface/hub/models--bert-base-uncased/snapshots/86b5e0934494bd15c9632b12f734a8a67f723594/config.json",
        f"{hf('INFO', 'modeling_utils.py:3678')} loading weights file model.safetensors from cache at "
        "/home/user/.cache/huggingface/hub/models--bert-base-uncased/snapshots/86b5e0934494bd15c9632b12f734a8a67f723594/model.safetensors",
        f"{hf('INFO', 'modeling_utils.py:4497')} Some weights of the model checkpoint at bert-base-uncased were not used "
        "when initializing BertForSequenceClassification: ['cls.predictions.bias', 'cls.predictions.transform.LayerNorm.bias', "
        "'cls.predictions.transform.LayerNorm.weight', 'cls.predictions.transform.dense.bias', "
        "'cls.predictions.transform.dense.weight', 'cls.seq_relationship.bias', 'cls.seq_relationship.weight']",
        "- This IS expected if you are initializing BertForSequenceClassification from the checkpoint of a model trained on "
        "another task or with another architecture (e.g. initializing a BertForSequenceClassification model from a "
        "BertForPreTraining model).",
        "- This IS NOT expected if you are initializing BertForSequenceClassification from the checkpoint of a model that "
        "you expect to be exactly identical (initializing a BertForSequenceClassification model from a "
        "BertForSequenceClassification model).",
        f"{hf('WARNING', 'modeling_utils.py:4509')} Some weights of BertForSequenceClassification were not initialized "
        "from the model checkpoint at bert-base-uncased and are newly initialized: ['classifier.bias', 'classifier.weight']",
        "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
        "Running tokenizer on dataset: 100%|██████████| 67349/67349 [00:05<00:00, 12664.11 examples/s]",
        "Running tokenizer on dataset: 100%|██████████| 872/872 [00:00<00:00, 11391.02 examples/s]",
        "Token indices sequence length is longer than the specified maximum sequence length for this model (612 > 512). "
        "Running this sequence through the model will result in indexing errors",
    ]
    d = f"{c.t:%m/%d/%Y %H:%M:%S}"
    for idx, sent in zip(
        (41905, 7296, 1639), (SST2_SAMPLES[1], SST2_SAMPLES[2], SST2_SAMPLES[0]), strict=False
    ):
        ids = [101] + [rng.randint(1000, 29000) for _ in range(14)] + [102]
        r0.append(
            f"{d} - INFO - __main__ - Sample {idx} of the training set: {{'sentence': '{sent}', 'label': "
            f"{idx % 2}, 'idx': {idx}, 'input_ids': {ids}, 'token_type_ids': {[0] * 16}, 'attention_mask': {[1] * 16}}}."
        )
    r0 += [
        "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling "
        "parallelism to avoid deadlocks...",
        "To disable this warning, you can either:",
        "\t- Avoid using `tokenizers` before the fork if possible",
        "\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
        "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to "
        "hang. It is recommended to upgrade the kernel to the minimum version or higher.",
        f"{hf('INFO', 'trainer.py:818')} The following columns in the training set don't have a corresponding argument in "
        "`BertForSequenceClassification.forward` and have been ignored: idx, sentence. If idx, sentence are not expected by "
        "`BertForSequenceClassification.forward`,  you can safely ignore this message.",
        f"{hf('INFO', 'trainer.py:2128')} ***** Running training *****",
        f"{hf('INFO', 'trainer.py:2129')}   Num examples = 67,349",
        f"{hf('INFO', 'trainer.py:2130')}   Num Epochs = 3",
        f"{hf('INFO', 'trainer.py:2131')}   Instantaneous batch size per device = 32",
        f"{hf('INFO', 'trainer.py:2134')}   Total train batch size (w. parallel, distributed & accumulation) = 64",
        f"{hf('INFO', 'trainer.py:2135')}   Gradient Accumulation steps = 1",
        f"{hf('INFO', 'trainer.py:2136')}   Total optimization steps = 3,159",
        f"{hf('INFO', 'trainer.py:2137')}   Number of trainable parameters = 109,483,778",
        "  0%|          | 0/3159 [00:00<?, ?it/s]",
    ]
    total = 3159
    per_epoch = 1053
    step_s = 0.118
    step = 0
    for step in range(50, total + 1, 50):
        c.tick(50 * step_s + rng.uniform(-0.2, 0.2))
        ep = step / per_epoch
        # fp16 dynamic loss scaling: the first steps overflow and are skipped by GradScaler; the logged grad norm of
        # such a step is not finite (transient, expected with AMP).
        gn = "nan" if step == 50 else f"{rng.uniform(1.2, 6.5):.10f}"
        loss = 0.69 if step == 50 else max(0.05, 0.42 - 0.11 * ep + rng.uniform(-0.04, 0.04))
        lr = 2e-5 * (1 - step / total)
        r0.append(
            f"{{'loss': {loss:.4f}, 'grad_norm': {gn}, 'learning_rate': {lr:.17g}, 'epoch': {ep:.2f}}}"
        )
        if step % 150 == 0:
            r0.append(
                f" {int(100 * step / total):2d}%|{tqdm_bar(step, total)}| {step}/{total} "
                f"[{int(step * step_s) // 60:02d}:{int(step * step_s) % 60:02d}<{int((total - step) * step_s) // 60:02d}:"
                f"{int((total - step) * step_s) % 60:02d},  8.47it/s]"
            )
        if step in (1050, 2100) or step + 50 > total:
            e = 1 if step == 1050 else 2 if step == 2100 else 3
            c.tick(2.5)
            r0 += [
                f"{hf('INFO', 'trainer.py:3788')} ***** Running Evaluation *****",
                f"{hf('INFO', 'trainer.py:3790')}   Num examples = 872",
                f"{hf('INFO', 'trainer.py:3793')}   Batch size = 8",
                f"{{'eval_loss': {0.25 + 0.03 * e + rng.uniform(-0.01, 0.01):.16f}, 'eval_accuracy': "
                f"{0.9128 + 0.003 * e:.16f}, 'eval_runtime': {2.51 + rng.uniform(-0.1, 0.1):.4f}, "
                f"'eval_samples_per_second': 347.4, 'eval_steps_per_second': 21.9, 'epoch': {float(e)}}}",
            ]
        if step in (1000, 2000, 3000):
            r0 += [
                f"{hf('INFO', 'trainer.py:3478')} Saving model checkpoint to /output/sst2/checkpoint-{step}",
                f"{hf('INFO', 'configuration_utils.py:472')} Configuration saved in /output/sst2/checkpoint-{step}/config.json",
                f"{hf('INFO', 'modeling_utils.py:2690')} Model weights saved in /output/sst2/checkpoint-{step}/model.safetensors",
                f"{hf('INFO', 'tokenization_utils_base.py:2574')} tokenizer config file saved in "
                f"/output/sst2/checkpoint-{step}/tokenizer_config.json",
                f"{hf('INFO', 'tokenization_utils_base.py:2583')} Special tokens file saved in "
                f"/output/sst2/checkpoint-{step}/special_tokens_map.json",
            ]
    c.tick(6.0)
    r0 += [
        f"{hf('INFO', 'trainer.py:2383')} ",
        "",
        "Training completed. Do not forget to share your model on huggingface.co/models =)",
        "",
        "",
        "{'train_runtime': 381.2114, 'train_samples_per_second': 530.011, 'train_steps_per_second': 8.287, "
        "'train_loss': 0.1683244191319733, 'epoch': 3.0}",
        f"100%|██████████| {total}/{total} [06:21<00:00,  8.29it/s]",
        f"{hf('INFO', 'trainer.py:3478')} Saving model checkpoint to /output/sst2",
        f"{hf('INFO', 'configuration_utils.py:472')} Configuration saved in /output/sst2/config.json",
        f"{hf('INFO', 'modeling_utils.py:2690')} Model weights saved in /output/sst2/model.safetensors",
        "***** train metrics *****",
        "  epoch                    =        3.0",
        "  total_flos               =  6182431GF",
        "  train_loss               =     0.1683",
        "  train_runtime            = 0:06:21.21",
        "  train_samples            =      67349",
        "  train_samples_per_second =    530.011",
        "  train_steps_per_second   =      8.287",
        "***** eval metrics *****",
        "  epoch                   =        3.0",
        "  eval_accuracy           =     0.9220",
        "  eval_loss               =     0.3423",
        "  eval_runtime            = 0:00:02.48",
        "  eval_samples            =        872",
        "  eval_samples_per_second =    351.129",
        "  eval_steps_per_second   =     22.151",
    ]
    t_end = c.t
    write(name, "train_rank0.log", r0)
    # rank 1 ------------------------------------------------------------
    c1 = Clock(start + timedelta(seconds=9.1))
    d = f"{c1.t:%m/%d/%Y %H:%M:%S}"
    r1 = [
        "/usr/local/lib/python3.10/dist-packages/transformers/training_args.py:1525: FutureWarning: `evaluation_strategy` "
        "is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
        "  warnings.warn(",
        f"{d} - WARNING - __main__ - Process rank: 1, device: cuda:1, n_gpu: 1, distributed training: True, 16-bits "
        "training: True",
        f"{d} - INFO - datasets.builder - Found cached dataset glue (/home/user/.cache/huggingface/datasets/nyu-mll___glue/"
        "sst2/0.0.0/bcdcba79d07bc864c1c254ccfcedcce55bcc9a8c)",
        "Some weights of BertForSequenceClassification were not initialized from the model checkpoint at bert-base-uncased "
        "and are newly initialized: ['classifier.bias', 'classifier.weight']",
        "You should probably TRAIN this model on a down-stream task to be able to use it for predictions and inference.",
        "Running tokenizer on dataset: 100%|██████████| 67349/67349 [00:05<00:00, 12518.36 examples/s]",
        "Running tokenizer on dataset: 100%|██████████| 872/872 [00:00<00:00, 10875.40 examples/s]",
    ]
    comm = comm_addr(rng)
    r1 += nccl_init(
        host="gpu-node1",
        pid=77102,
        tid=77388,
        rank=1,
        local_rank=1,
        nranks=2,
        nnodes=1,
        ip="10.0.0.11",
        version="2.21.5",
        busid=BUSIDS[1],
        comm=comm,
        commid="0x" + hexid(rng, 16),
        ib=False,
        rng=rng,
        channels=4,
    )
    r1 += [
        "Detected kernel version 5.4.0, which is below the recommended minimum of 5.5.0; this can cause the process to "
        "hang. It is recommended to upgrade the kernel to the minimum version or higher.",
    ]
    r1 += nccl_shutdown("gpu-node1", 77102, 1, 1, 2, comm, BUSIDS[1], 2)
    # the console of `accelerate launch` carries the output of the non-main rank (rank 0 logs to its own file)
    launcher += r1
    c = Clock(t_end + timedelta(seconds=4))
    launcher += [
        f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:864')} [default] worker group successfully "
        "finished. Waiting 300 seconds for other agents to finish.",
        f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:918')} Local worker group finished "
        "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish",
        f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:932')} Done waiting for other agents. "
        "Elapsed: 0.0004937648773193359 seconds",
    ]
    launcher += ["+ nvidia-smi --query-gpu=index,name,memory.used,utilization.gpu --format=csv"]
    launcher += ["index, name, memory.used [MiB], utilization.gpu [%]"]
    launcher += [f"{g}, NVIDIA A100-SXM4-80GB, 1 MiB, 0 %" for g in range(2)]
    launcher += [
        "+ ls -1 /output/sst2",
        "all_results.json",
        "checkpoint-1000",
        "checkpoint-2000",
        "checkpoint-3000",
        "config.json",
        "eval_results.json",
        "model.safetensors",
        "runs",
        "special_tokens_map.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "train_results.json",
        "trainer_state.json",
        "training_args.bin",
        "vocab.txt",
    ]
    launcher += [
        "+ python -c 'import json;print(json.load(open(\"/output/sst2/eval_results.json\")))'",
        "{'epoch': 3.0, 'eval_accuracy': 0.9220183486238532, 'eval_loss': 0.34231412410736084, "
        "'eval_runtime': 2.4834, 'eval_samples': 872, 'eval_samples_per_second': 351.129, "
        "'eval_steps_per_second': 22.151}",
        "+ echo done",
        "done",
    ]
    write(name, "launcher.log", launcher)


# --------------------------------------------------------------------------- 5. lightning-slurm


def lightning_slurm() -> None:
    """sbatch + srun, 2 nodes x 4 GPUs, PyTorch Lightning 2.x DDP, bf16-mixed, a speech model (CER/WER metrics)."""
    name = "lightning-slurm"
    FOLDERS.append(name)
    rng = random.Random(505)
    job = 4242
    start = datetime(2026, 3, 18, 22, 40, 3)
    hosts = ["gpu-node1", "gpu-node2"]
    out: list[str] = [
        f"SLURM_JOB_ID={job}",
        "SLURM_JOB_NODELIST=gpu-node[1-2]",
        "SLURM_NTASKS=8",
        "SLURM_NTASKS_PER_NODE=4",
        f"Starting at {start:%a %b %d %H:%M:%S UTC %Y}",
        "+ srun -l python train_asr.py trainer.num_nodes=2 trainer.devices=4 trainer.precision=bf16-mixed trainer.max_epochs=5",
    ]
    err: list[str] = []
    c = Clock(start + timedelta(seconds=14))
    for t in range(8):
        out.append(f"{t}: [rank: {t}] Seed set to 1234")
    err += [
        f"{t}: /home/user/.conda/envs/asr/lib/python3.11/site-packages/lightning/fabric/plugins/environments/slurm.py:204: "
        "The `srun` command is available on your system but is not used. HINT: If your intention is to run Lightning on "
        "SLURM, prepend your python command with `srun` like so: srun python train_asr.py ..."
        for t in ()
    ]
    out += [
        "0: Using bfloat16 Automatic Mixed Precision (AMP)",
        "0: GPU available: True (cuda), used: True",
        "0: TPU available: False, using: 0 TPU cores",
        "0: HPU available: False, using: 0 HPUs",
    ]
    for t in range(8):
        out.append(f"{t}: Initializing distributed: GLOBAL_RANK: {t}, MEMBER: {t + 1}/8")
    err += [
        "0: "
        + c.c10("W", "socket.cpp:752", 481233907)
        + " [c10d] The client socket has failed to connect to "
        "[gpu-node1]:41823 (errno: 99 - Cannot assign requested address).",
        "5: "
        + c.c10("W", "socket.cpp:752", 491002113)
        + " [c10d] The client socket has failed to connect to "
        "[gpu-node1]:41823 (errno: 111 - Connection refused).",
    ]
    out += [
        "0: " + "-" * 100,
        "0: distributed_backend=nccl",
        "0: All distributed processes registered. Starting with 8 processes",
        "0: " + "-" * 100,
        "0: ",
        "0: SLURM auto-requeueing enabled. Setting signal handlers.",
        "0: You are using a CUDA device ('NVIDIA A100-SXM4-80GB') that has Tensor Cores. To properly utilize them, you "
        "should set `torch.set_float32_matmul_precision('medium' | 'high')` which will trade-off precision for performance. "
        "For more details, read https://pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html"
        "#torch.set_float32_matmul_precision",
    ]
    for t in range(8):
        out.append(f"{t}: LOCAL_RANK: {t % 4} - CUDA_VISIBLE_DEVICES: [0,1,2,3]")
    out += [
        "0: ",
        "0:   | Name      | Type               | Params | Mode ",
        "0: ---------------------------------------------------------",
        "0: 0 | encoder   | ConformerEncoder   | 114 M  | train",
        "0: 1 | decoder   | CTCDecoder         | 1.3 M  | train",
        "0: 2 | loss      | CTCLoss            | 0      | train",
        "0: 3 | val_cer   | CharErrorRate      | 0      | train",
        "0: 4 | val_wer   | WordErrorRate      | 0      | train",
        "0: ---------------------------------------------------------",
        "0: 115 M     Trainable params",
        "0: 0         Non-trainable params",
        "0: 115 M     Total params",
        "0: 461.522   Total estimated model params size (MB)",
        "0: 412       Modules in train mode",
        "0: 0         Modules in eval mode",
    ]
    err += [
        "0: /home/user/.conda/envs/asr/lib/python3.11/site-packages/lightning/pytorch/trainer/connectors/"
        "data_connector.py:424: The 'val_dataloader' does not have many workers which may be a bottleneck. Consider "
        "increasing the value of the `num_workers` argument` to `num_workers=15` in the `DataLoader` to improve performance.",
        "0: Sanity Checking: |          | 0/? [00:00<?, ?it/s]",
        "0: Sanity Checking DataLoader 0: 100%|██████████| 2/2 [00:01<00:00,  1.62it/s]",
        "0: /home/user/.conda/envs/asr/lib/python3.11/site-packages/lightning/pytorch/trainer/connectors/"
        "logger_connector/result.py:431: It is recommended to use `self.log('val_cer', ..., sync_dist=True)` when logging "
        "on epoch level in distributed setting to accumulate the metric across devices.",
    ]
    epochs = 5
    steps = 880
    best = None
    vloss = vcer = vwer = 0.0
    for ep in range(epochs):
        for frac in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            s = int(steps * frac)
            c.tick(steps * 0.1 * 0.41)
            tl = 2.9 * 0.62**ep - 0.3 * frac * 0.62**ep + rng.uniform(-0.05, 0.05)
            post = f", v_num={job}, train_loss={tl:.3f}"
            if ep > 0:
                post += f", val_loss={vloss:.3f}, val_cer={vcer:.4f}, val_wer={vwer:.4f}, val_error_rate={vcer:.4f}"
            err.append(
                f"0: Epoch {ep}: {int(frac * 100):3d}%|{tqdm_bar(s, steps)}| {s}/{steps} "
                f"[{int(s * 0.41) // 60:02d}:{int(s * 0.41) % 60:02d}<{int((steps - s) * 0.41) // 60:02d}:"
                f"{int((steps - s) * 0.41) % 60:02d},  2.44it/s{post}]"
            )
        c.tick(38)
        vloss = 2.4 * 0.63**ep + rng.uniform(-0.03, 0.03)
        vcer = 0.31 * 0.6**ep
        vwer = 0.58 * 0.62**ep
        err.append("0: Validation DataLoader 0: 100%|██████████| 96/96 [00:36<00:00,  2.64it/s]")
        gs = steps * (ep + 1)
        if best is None or vloss < best:
            if best is not None:
                err.append(
                    f"0: Metric val_loss improved by {best - vloss:.3f} >= min_delta = 0.0. New best score: {vloss:.3f}"
                )
            else:
                err.append(f"0: Metric val_loss improved. New best score: {vloss:.3f}")
            best = vloss
        err.append(
            f"0: Epoch {ep}, global step {gs}: 'val_loss' reached {vloss:.5f} (best {best:.5f}), saving model to "
            f"'/scratch/user/asr/checkpoints/epoch={ep}-step={gs}.ckpt' as top 3"
        )
    err.append(f"0: `Trainer.fit` stopped: `max_epochs={epochs}` reached.")
    err.append(
        f"0: Epoch {epochs - 1}: 100%|██████████| {steps}/{steps} [06:01<00:00,  2.43it/s, v_num={job}, "
        f"train_loss=0.512, val_loss={vloss:.3f}, val_cer={vcer:.4f}, val_wer={vwer:.4f}, val_error_rate={vcer:.4f}]"
    )
    # test run after fit
    c.tick(12)
    out += [
        "0: Restoring states from the checkpoint path at /scratch/user/asr/checkpoints/epoch=4-step=4400.ckpt",
        "0: LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3]",
        "0: Loaded model weights from the checkpoint at /scratch/user/asr/checkpoints/epoch=4-step=4400.ckpt",
        "0: ┏━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━┓",
        "0: ┃        Test metric        ┃       DataLoader 0        ┃",
        "0: ┡━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━┩",
        f"0: │         test_cer          │    {vcer + 0.002:.18f}    │",
        f"0: │         test_loss         │    {vloss + 0.01:.18f}    │",
        f"0: │         test_wer          │    {vwer + 0.004:.18f}    │",
        "0: └───────────────────────────┴───────────────────────────┘",
    ]
    err.append("0: Testing DataLoader 0: 100%|██████████| 41/41 [00:15<00:00,  2.70it/s]")
    c.tick(9)
    for t in range(8):
        hosts[t // 4]
        if t % 4 == 0:
            err.append(
                f"{t}: "
                + c.c10("W", "ProcessGroupNCCL.cpp:1250", rng.randint(1, 999999999)).replace(
                    "[W", f"[rank{t}]:[W"
                )
                + " "
                + DESTROY_WARNING
            )
    c.tick(3)
    err += [
        f"slurmstepd: error: _is_a_lwp: open() /proc/{rng.randint(200000, 299999)}/status failed: No such file or directory",
        f"slurmstepd: error: _is_a_lwp: open() /proc/{rng.randint(200000, 299999)}/status failed: No such file or directory",
    ]
    out += [
        f"Finished at {c.t:%a %b %d %H:%M:%S UTC %Y}",
        "+ sacct -j 4242 --format=JobID,JobName,Partition,AllocTRES%40,Elapsed,State,ExitCode",
        "JobID           JobName  Partition                                AllocTRES    Elapsed      State ExitCode ",
        "------------ ---------- ---------- ---------------------------------------- ---------- ---------- -------- ",
        f"{job}          asr-conf        gpu billing=128,cpu=128,gres/gpu=8,mem=1000G+   00:33:12    RUNNING      0:0 ",
        f"{job}.batch         batch                 cpu=64,gres/gpu=4,mem=500G,node=1   00:33:12    RUNNING      0:0 ",
        f"{job}.extern       extern            billing=128,cpu=128,gres/gpu=8,mem=+   00:33:12    RUNNING      0:0 ",
        f"{job}.0            python             cpu=128,gres/gpu=8,mem=1000G,node=2   00:32:51  COMPLETED      0:0 ",
    ]
    write(name, f"slurm-{job}.out", out)
    write(name, f"slurm-{job}.err", err)


# --------------------------------------------------------------------------- 6. torchrun-elastic-restart-ok


def torchrun_elastic_restart_ok() -> None:
    """Elastic torchrun (--nnodes=1:2, c10d rendezvous, torch 2.5). The job starts on gpu-node1 alone; 40 minutes later
    gpu-node2 joins, the agent on gpu-node1 restarts its worker group for the new membership (SIGTERM to its workers,
    Xid 45 channel clean-up in the kernel log), both nodes resume from the last checkpoint and the run finishes."""
    name = "torchrun-elastic-restart-ok"
    FOLDERS.append(name)
    rng = random.Random(606)
    start = datetime(2026, 3, 19, 8, 0, 11, 240000)
    hosts = ["gpu-node1", "gpu-node2"]
    api = "torch/distributed/elastic/agent/server/api.py"
    mp = "torch/distributed/elastic/multiprocessing/api.py"
    rdzv = "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py"
    run_id = "llm-ft-0319"
    tid1 = 140599301543744
    node_id = {0: f"{hosts[0]}_91022_0", 1: f"{hosts[1]}_30417_0"}
    c = Clock(start)
    a1: list[str] = [
        f"+ torchrun --nnodes=1:2 --nproc_per_node=2 --max_restarts=3 --rdzv_backend=c10d "
        f"--rdzv_endpoint={hosts[0]}:29400 --rdzv_id={run_id} train.py --config ft.yaml"
    ]
    for line in OMP_WARNING:
        a1.append(f"{c.glog('W', tid1, 'torch/distributed/run.py:793')} {line}")
    a1 += launch_configs(
        c, tid1, "train.py", 1, 2, 2, run_id, "c10d", f"{hosts[0]}:29400", max_restarts=3
    )
    c.tick(0.3)
    a1.append(
        f"{c.glog('I', tid1, api + ':677')} [default] starting workers for entrypoint: python"
    )
    a1.append(f"{c.glog('I', tid1, api + ':540')} [default] Rendezvous'ing worker group")
    c.tick(30.1)
    a1.append(
        f"{c.glog('I', tid1, rdzv + ':1190')} The node '{node_id[0]}' has joined round 0 of the rendezvous "
        f"'{run_id}' as rank 0 in a world of size 1."
    )

    def rdzv_result(n: int, group_rank: int, ws: int, restart_count: int = 0) -> list[str]:
        base = 2 * group_rank
        return [
            f"{c.glog('I', tid1 if n == 0 else tid2, api + ':554')} [default] Rendezvous complete for workers. Result:",
            f"  restart_count={restart_count}",
            f"  master_addr={hosts[0]}",
            "  master_port=41577",
            f"  group_rank={group_rank}",
            f"  group_world_size={ws}",
            "  local_ranks=[0, 1]",
            f"  role_ranks=[{base}, {base + 1}]",
            f"  global_ranks=[{base}, {base + 1}]",
            f"  role_world_sizes=[{2 * ws}, {2 * ws}]",
            f"  global_world_sizes=[{2 * ws}, {2 * ws}]",
            "",
        ]

    tid2 = 139851640129344
    a1 += rdzv_result(0, 0, 1)
    a1.append(f"{c.glog('I', tid1, api + ':562')} [default] Starting worker group")
    for lr in range(2):
        a1.append(
            f"{c.glog('I', tid1, 'torch/distributed/elastic/multiprocessing/__init__.py:236')} Setting worker{lr} "
            f"reply file to: /tmp/torchelastic_p1xq83m0/{run_id}_c0f0u9vi/attempt_0/{lr}/error.json"
        )
    pids0 = [91040, 91041]
    # phase 1 on node1 alone
    t_join = start + timedelta(minutes=40, seconds=3)
    c = Clock(t_join)
    a1.append(
        f"{c.glog('I', tid1, api + ':889')} [default] Detected 1 new nodes from group_rank=0; will restart worker group"
    )
    a1.append(f"{c.glog('I', tid1, api + ':602')} [default] Stopping worker group")
    for p in pids0:
        c.tick(0.001)
        a1.append(f"{c.glog('W', tid1, mp + ':897')} Sending process {p} closing signal SIGTERM")
    c.tick(1.9)
    a1.append(f"{c.glog('I', tid1, api + ':540')} [default] Rendezvous'ing worker group")
    c.tick(1.2)
    a1.append(
        f"{c.glog('I', tid1, rdzv + ':1190')} The node '{node_id[0]}' has joined round 1 of the rendezvous "
        f"'{run_id}' as rank 0 in a world of size 2."
    )
    a1 += rdzv_result(0, 0, 2)
    a1.append(f"{c.glog('I', tid1, api + ':562')} [default] Starting worker group")
    for lr in range(2):
        a1.append(
            f"{c.glog('I', tid1, 'torch/distributed/elastic/multiprocessing/__init__.py:236')} Setting worker{lr} "
            f"reply file to: /tmp/torchelastic_p1xq83m0/{run_id}_c0f0u9vi/attempt_0/{lr}/error.json"
        )
    pids1 = [93318, 93319]
    t_done = t_join + timedelta(minutes=55, seconds=12)
    c = Clock(t_done)
    a1 += [
        f"{c.glog('I', tid1, api + ':864')} [default] worker group successfully finished. Waiting 300 seconds for other "
        "agents to finish.",
        f"{c.glog('I', tid1, api + ':918')} Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds "
        "for other agents to finish",
    ]
    c.tick(0.8)
    a1.append(
        f"{c.glog('I', tid1, api + ':932')} Done waiting for other agents. Elapsed: 0.7912530899047852 seconds"
    )
    a1 += ['+ echo "train.py finished with exit code 0"', "train.py finished with exit code 0"]
    write(name, f"{hosts[0]}/torchrun.log", a1)

    # node 2 agent ----------------------------------------------------------
    c = Clock(t_join - timedelta(seconds=1.5))
    a2: list[str] = [
        f"+ torchrun --nnodes=1:2 --nproc_per_node=2 --max_restarts=3 --rdzv_backend=c10d "
        f"--rdzv_endpoint={hosts[0]}:29400 --rdzv_id={run_id} train.py --config ft.yaml"
    ]
    for line in OMP_WARNING:
        a2.append(f"{c.glog('W', tid2, 'torch/distributed/run.py:793')} {line}")
    a2 += launch_configs(
        c, tid2, "train.py", 1, 2, 2, run_id, "c10d", f"{hosts[0]}:29400", max_restarts=3
    )
    a2.append(
        f"{c.glog('I', tid2, api + ':677')} [default] starting workers for entrypoint: python"
    )
    a2.append(f"{c.glog('I', tid2, api + ':540')} [default] Rendezvous'ing worker group")
    c.tick(3.1)
    a2.append(
        f"{c.glog('I', tid2, rdzv + ':1190')} The node '{node_id[1]}' has joined round 1 of the rendezvous "
        f"'{run_id}' as rank 1 in a world of size 2."
    )
    a2 += rdzv_result(1, 1, 2)
    a2.append(f"{c.glog('I', tid2, api + ':562')} [default] Starting worker group")
    for lr in range(2):
        a2.append(
            f"{c.glog('I', tid2, 'torch/distributed/elastic/multiprocessing/__init__.py:236')} Setting worker{lr} "
            f"reply file to: /tmp/torchelastic_9c2m1vbk/{run_id}_3qxn0h7a/attempt_0/{lr}/error.json"
        )
    c = Clock(t_done + timedelta(seconds=0.7))
    a2 += [
        f"{c.glog('I', tid2, api + ':864')} [default] worker group successfully finished. Waiting 300 seconds for other "
        "agents to finish.",
        f"{c.glog('I', tid2, api + ':918')} Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds "
        "for other agents to finish",
        f"{c.glog('I', tid2, api + ':932')} Done waiting for other agents. Elapsed: 0.0013022422790527344 seconds",
    ]
    # pad with the site's job-end report (nvidia-smi) as real job scripts do
    a2 += ["+ nvidia-smi", *nvidia_smi_table(rng, c.t, 2)]
    write(name, f"{hosts[1]}/torchrun.log", a2)

    # worker logs -------------------------------------------------------------
    def train_lines(
        rank: int, ws: int, t_from: datetime, step_from: int, step_to: int, every: int = 20
    ) -> list[str]:
        out = []
        tt = Clock(t_from)
        for s in range(step_from, step_to + 1, every):
            tt.tick(every * (2.4 if ws == 2 else 1.3))
            loss = 2.1 * 0.999**s + rng.uniform(-0.03, 0.03)
            if rank % 2 == 0:
                out.append(
                    f"{tt.t:%Y-%m-%d %H:%M:%S} | INFO | step {s:5d}/3000 | loss {loss:.4f} | lr {3e-5 * (1 - s / 3000):.3e} | "
                    f"grad_norm {rng.uniform(0.3, 1.1):.3f} | tokens/s {(9800 if ws == 2 else 19500) + rng.randint(-300, 300)} "
                    f"| world_size {ws}"
                )
            if s % 600 == 0 and rank == 0:
                out.append(
                    f"{tt.t:%Y-%m-%d %H:%M:%S} | INFO | saving checkpoint to /ckpt/llm-ft/step_{s:05d}.pt"
                )
                out.append(
                    f"{tt.t:%Y-%m-%d %H:%M:%S} | INFO | checkpoint saved (5.1 GB) in {rng.uniform(6, 9):.1f}s"
                )
        return out

    for n, host in enumerate(hosts):
        for lr in range(1):  # local rank 0 of each node writes the log file
            rank1 = 2 * n + lr
            w: list[str] = []
            if n == 0:
                # attempt 1: alone
                cw = Clock(start + timedelta(seconds=36 + lr * 0.02))
                w.append(
                    cw.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
                    + f" [c10d] The client socket has failed "
                    f"to connect to [{hosts[0]}]:41577 (errno: 99 - Cannot assign requested address)."
                )
                w.append(f"{cw.t:%Y-%m-%d %H:%M:%S} | INFO | rank {lr}/2 local_rank {lr} on {host}")
                if lr == 0:
                    w.append(
                        f"{cw.t:%Y-%m-%d %H:%M:%S} | INFO | no checkpoint found in /ckpt/llm-ft, starting from scratch"
                    )
                w += train_lines(lr, 1, cw.t, 20, 1840)
            # attempt after membership change
            cw = Clock(t_join + timedelta(seconds=6 + lr * 0.02))
            w.append(f"{cw.t:%Y-%m-%d %H:%M:%S} | INFO | rank {rank1}/4 local_rank {lr} on {host}")
            if rank1 == 0:
                w += [
                    "/workspace/train.py:212: FutureWarning: You are using `torch.load` with `weights_only=False` (the "
                    "current default value), which uses the default pickle module implicitly. It is possible to construct "
                    "malicious pickle data which will execute arbitrary code during unpickling (See "
                    "https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a "
                    "future release, the default value for `weights_only` will be flipped to `True`. This limits the "
                    "functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be "
                    "loaded via this mode unless they are explicitly allowlisted by the user via "
                    "`torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use "
                    "case where you don't have full control of the loaded file. Please open an issue on GitHub for any "
                    "issues related to this experimental feature.",
                    '  state = torch.load(path, map_location="cpu")',
                    f"{cw.t:%Y-%m-%d %H:%M:%S} | INFO | resumed from /ckpt/llm-ft/step_01800.pt (step 1800, world size 1 -> 2 "
                    "nodes, data loader re-sharded)",
                ]
            comm = comm_addr(rng)
            w += nccl_init(
                host=host,
                pid=(pids1 if n == 0 else [30431, 30432])[lr],
                tid=(pids1 if n == 0 else [30431, 30432])[lr] + 211,
                rank=rank1,
                local_rank=lr,
                nranks=4,
                nnodes=2,
                ip=f"10.0.2.{11 + n}",
                version="2.21.5",
                busid=BUSIDS[lr],
                comm=comm,
                commid="0x" + hexid(rng, 16),
                ib=True,
                rng=rng,
                channels=4,
            )
            w += train_lines(rank1, 2, cw.t + timedelta(seconds=20), 1820, 3000)
            if rank1 == 0:
                w.append(
                    f"{t_done - timedelta(seconds=3):%Y-%m-%d %H:%M:%S} | INFO | training finished: 3000 steps, "
                    "final loss 1.0213, best eval loss 1.0877"
                )
            w += nccl_shutdown(
                host, (pids1 if n == 0 else [30431, 30432])[lr], lr, rank1, 4, comm, BUSIDS[lr], 2
            )
            write(name, f"{host}/rank_{rank1}.log", w)

    # kernel log of node 1: the SIGTERM'd workers' GPU channels are cleaned up (Xid 45), nothing else
    write(
        name,
        f"{hosts[0]}/kern.log",
        healthy_kern_log(
            hosts[0],
            start - timedelta(days=2, hours=3),
            rng,
            gpus=2,
            ib=True,
            xid45=[
                (t_join + timedelta(seconds=0.4), pids0[0]),
                (t_join + timedelta(seconds=0.5), pids0[1]),
            ],
        ),
    )


# --------------------------------------------------------------------------- 7. torch-npu-hccl

TRANSFER_TO_NPU = [
    "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/contrib/transfer_to_npu.py:292: ImportWarning: ",
    "    *************************************************************************************************************",
    "    The torch.Tensor.cuda and torch.nn.Module.cuda are replaced with torch.Tensor.npu and torch.nn.Module.npu now..",
    "    The torch.cuda.DoubleTensor is replaced with torch.npu.FloatTensor cause the double type is not supported now..",
    "    The backend in torch.distributed.init_process_group set to hccl now..",
    "    The torch.cuda.* and torch.cuda.amp.* are replaced with torch.npu.* and torch.npu.amp.* now..",
    "    The device parameters have been replaced with npu in the function below:",
    "    torch.logspace, torch.randint, torch.hann_window, torch.rand, torch.full_like, torch.ones_like, torch.rand_like, "
    "torch.randperm, torch.arange, torch.frombuffer, torch.normal, torch._empty_per_channel_affine_quantized, "
    "torch.empty_strided, torch.empty_like, torch.scalar_tensor, torch.tril_indices, torch.bartlett_window, torch.ones, "
    "torch.sparse_coo_tensor, torch.randn, torch.kaiser_window, torch.tensor, torch.triu_indices, torch.as_tensor, "
    "torch.zeros, torch.randint_like, torch.full, torch.eye, torch._sparse_csr_tensor_unsafe, torch.empty, "
    "torch._sparse_coo_tensor_unsafe, torch.blackman_window, torch.zeros_like, torch.range, torch.sparse_csr_tensor, "
    "torch.randn_like, torch.from_file, torch._cudnn_init_dropout_state, torch._empty_affine_quantized, torch.linspace, "
    "torch.hamming_window, torch.empty_quantized, torch._pin_memory, torch.autocast, torch.load, torch.Generator, "
    "torch.set_default_device, torch.Tensor.new_empty, torch.Tensor.new_empty_strided, torch.Tensor.new_full, "
    "torch.Tensor.new_ones, torch.Tensor.new_tensor, torch.Tensor.new_zeros, torch.Tensor.to, torch.Tensor.pin_memory, "
    "torch.nn.Module.to, torch.nn.Module.to_empty",
    "    *************************************************************************************************************",
    "    ",
    "  warnings.warn(msg, ImportWarning)",
]


def torch_npu_hccl() -> None:
    """torchrun on one Atlas 800T A2 node (8 x Ascend 910B), torch 2.1 + torch_npu, HCCL, bf16 LLM fine-tune."""
    name = "torch-npu-hccl"
    FOLDERS.append(name)
    rng = random.Random(707)
    start = datetime(2026, 3, 20, 10, 15, 1, 880000)
    pids = [2345601 + 7 * i for i in range(8)]
    c = Clock(start)
    tid = 281473150001232
    launcher = [
        "+ torchrun --nproc_per_node 8 --master_port 29500 finetune.py --model /models/qwen2-7b --bf16 "
        "--output_dir /output/qwen2-sft"
    ]
    for line in OMP_WARNING:
        launcher.append(f"{c.glog('W', tid, 'torch/distributed/run.py:757')} {line}")
    api = "torch/distributed/elastic/agent/server/api.py"
    launcher += launch_configs(c, tid, "finetune.py", 1, 1, 8, "none", "static", "127.0.0.1:29500")
    launcher.append(
        f"{c.glog('I', tid, api + ':677')} [default] starting workers for entrypoint: python"
    )
    launcher += ["+ npu-smi info"]
    launcher += [
        "+------------------------------------------------------------------------------------------------+",
        "| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |",
        "+---------------------------+---------------+----------------------------------------------------+",
        "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
        "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
        "+===========================+===============+====================================================+",
    ]
    for d in range(8):
        launcher += [
            f"| {d}     910B2               | OK            | {rng.uniform(88, 96):.1f}        {rng.randint(36, 42)}"
            "                0    / 0             |",
            f"| 0                         | 0000:{0xC1 + d * 16:02X}:00.0  | 0           0    / 0          3382 / 65536         |",
            "+===========================+===============+====================================================+",
        ]
    # rank 0 ------------------------------------------------------------------
    c = Clock(start + timedelta(seconds=6.3))
    r0 = list(TRANSFER_TO_NPU)
    r0.append(
        "[W compiler_depend.ts:623] Warning: expandable_segments currently defaults to false. You can enable this "
        "feature by `export PYTORCH_NPU_ALLOC_CONF = expandable_segments:True`. (function operator())"
    )
    c.tick(4.2)
    r0.append(f"{c.t:%Y-%m-%d %H:%M:%S} | INFO | rank 0/8 local_rank 0 device npu:0 backend hccl")
    r0.append("Loading checkpoint shards: 100%|██████████| 4/4 [00:11<00:00,  2.87s/it]")
    c.tick(14.6)
    r0.append(
        "[rank0]:"
        + c.c10("W", "compiler_depend.ts:133", 331714626)
        + " Warning: Warning: Device do not support "
        "double dtype now, dtype cast repalce with float. (function operator())"
    )
    r0.append(
        "[rank0]:"
        + c.c10("W", "compiler_depend.ts:79", 430189590)
        + " Warning: [Check][offset] Check input "
        "storage_offset[%ld] = 0 failed, result is untrustworthy151935 (function operator())"
    )
    r0 += [
        "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/storage.py:38: UserWarning: TypedStorage is "
        "deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only "
        "matter to you if you are using storages directly.  To access UntypedStorage directly, use "
        "tensor.untyped_storage() instead of tensor.storage()",
        "  if self.device.type != 'cpu':",
    ]
    steps = 1200
    t = Clock(c.t + timedelta(seconds=48))
    r0.append(
        f"{t.t:%Y-%m-%d %H:%M:%S} | INFO | graph compile / first step took 47.9s (expected on NPU)"
    )
    for s in range(10, steps + 1, 10):
        t.tick(10 * 1.92 + rng.uniform(-0.3, 0.3))
        loss = 1.92 * 0.9993**s + rng.uniform(-0.03, 0.03)
        r0.append(
            f"{t.t:%Y-%m-%d %H:%M:%S} | INFO | step {s:4d}/{steps} | loss {loss:.4f} | lr {1e-5 * min(1, s / 50) * (1 - s / steps) + 1e-7:.3e} "
            f"| grad_norm {rng.uniform(0.4, 1.4):.3f} | tokens/s/npu {3120 + rng.randint(-60, 60)} | "
            f"hbm_used {52.1 + rng.uniform(-0.2, 0.2):.1f}GB"
        )
        if s % 400 == 0:
            r0.append(
                f"{t.t:%Y-%m-%d %H:%M:%S} | INFO | saving checkpoint to /output/qwen2-sft/checkpoint-{s}"
            )
            r0.append(
                f"{t.t:%Y-%m-%d %H:%M:%S} | INFO | checkpoint-{s} saved (model 15.2 GB, optimizer sharded x8)"
            )
    t.tick(4)
    r0.append(
        f"{t.t:%Y-%m-%d %H:%M:%S} | INFO | training finished: {steps} steps in {(t.t - start).total_seconds() / 3600:.2f} h, "
        "final loss 0.8342"
    )
    t_end = t.t
    # CANN prints this at process exit when acl finalize is reached twice (torch_npu + the script); harmless
    r0 += [
        "[W compiler_depend.ts:316] Warning: NPU warning, error code is 100037[Error]: ",
        "[Error]: Repeated deinitialization.",
        "        Check whether the acl.finalize interface is repeatedly invoked for deinitialization.",
        "EH9999: Inner Error!",
        f"EH9999: [PID: {pids[0]}] {t_end + timedelta(seconds=2):%Y-%m-%d-%H:%M:%S}.262.491 [Finalize][Acl]repeatedly "
        "finalized[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]",
        "        TraceBack (most recent call last):",
        " (function operator())",
    ]
    write(name, "rank_0.log", r0)
    # rank 5 ------------------------------------------------------------------
    c = Clock(start + timedelta(seconds=6.4))
    r5 = list(TRANSFER_TO_NPU)
    r5.append(
        "[W compiler_depend.ts:623] Warning: expandable_segments currently defaults to false. You can enable this "
        "feature by `export PYTORCH_NPU_ALLOC_CONF = expandable_segments:True`. (function operator())"
    )
    c.tick(4.3)
    r5.append(f"{c.t:%Y-%m-%d %H:%M:%S} | INFO | rank 5/8 local_rank 5 device npu:5 backend hccl")
    r5.append("Loading checkpoint shards: 100%|██████████| 4/4 [00:11<00:00,  2.91s/it]")
    c.tick(14.7)
    r5.append(
        "[rank5]:"
        + c.c10("W", "compiler_depend.ts:133", 331802214)
        + " Warning: Warning: Device do not support "
        "double dtype now, dtype cast repalce with float. (function operator())"
    )
    for s in range(25, steps + 1, 25):
        when = start + timedelta(seconds=73 + s * 1.92)
        r5.append(
            f"{when:%Y-%m-%d %H:%M:%S} | INFO | rank 5 heartbeat step {s} data_shard 5/8 samples_seen {s * 4}"
        )
    write(name, "rank_5.log", r5)
    # plog of rank 0 ------------------------------------------------------------
    pl: list[str] = []
    c = Clock(start + timedelta(seconds=31.2))
    pid = pids[0]

    def p(
        level: str, mod: str, where: str, msg: str, tid_: int | None = None, dt: float = 0.0003
    ) -> None:
        c.tick(dt)
        pl.append(f"[{level}] {mod}({pid},python):{c.plog()} [{where}] {msg}")

    p("INFO", "RUNTIME", "api_c.cc:1798", f"{pid} rtSetDevice: There is no devId, do nothing.")
    p(
        "INFO",
        "HCCL",
        "op_base.cc:858",
        f"[{pid}]Entry-HcclGetRootInfo:rootInfo[0xaaaae85c79a0], deviceLogicId[0]",
    )
    p(
        "INFO",
        "HCCL",
        "topoinfo_detect.cc:208",
        f"[{pid}][HCCL_TRACE]SetupAgent rankNum[8], rank[0], rootInfo "
        "identifier[10.0.3.11%enp189s0f0_60000_0_1773972931204001], server[10.0.3.11%enp189s0f0], logicDevId[0], "
        "phydevId[0], deviceIp[192.168.100.101]",
    )
    p(
        "INFO",
        "HCCL",
        "op_base.cc:1293",
        f"[{pid}]Entry-HcclCommInitRootInfoInner:ranks[8], rank[0], rootinfo: host "
        "ip[10.0.3.11] port[60000] nicDeploy[1] identifier[10.0.3.11%enp189s0f0_60000_0_1773972931204001], deviceLogicId[0]",
        dt=0.006,
    )
    for g in range(1, 4):
        comm_name = f"10.0.3.11%enp189s0f0_6000{g}_0_177397293{g}20{g}001"
        p(
            "INFO",
            "HCCL",
            "op_base.cc:858",
            f"[{pid}]Entry-HcclGetRootInfo:rootInfo[0xaaaae85c{g}9a0], deviceLogicId[0]",
            dt=1.4,
        )
        p(
            "INFO",
            "HCCL",
            "op_base.cc:1293",
            f"[{pid}]Entry-HcclCommInitRootInfoInner:ranks[8], rank[0], rootinfo: "
            f"host ip[10.0.3.11] port[6000{g}] nicDeploy[1] identifier[{comm_name}], deviceLogicId[0]",
            dt=0.004,
        )
    p("INFO", "HCCL", "hccl_impl_base.cc:2644", f"[{pid}][SetDevice] entry", dt=0.2)
    p("INFO", "HCCL", "hccl_impl_base.cc:2622", f"[{pid + 1039}][SetDeviceThread]ctx[(nil)]")
    p("INFO", "HCCL", "hccl_impl_base.cc:2637", f"[{pid + 1039}][SetDeviceThread]exit")
    while len(pl) < 60:
        p(
            "INFO",
            "RUNTIME",
            "api_c.cc:1798",
            f"{pid} rtSetDevice: There is no devId, do nothing.",
            dt=rng.uniform(30, 200),
        )
    write(name, f"plog/plog-{pid}_20260320101532124.log", pl)
    c = Clock(t_end + timedelta(seconds=5))
    launcher += [
        f"{c.glog('I', tid, api + ':864')} [default] worker group successfully finished. Waiting 300 seconds for other "
        "agents to finish.",
        f"{c.glog('I', tid, api + ':918')} Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for "
        "other agents to finish",
        f"{c.glog('I', tid, api + ':932')} Done waiting for other agents. Elapsed: 0.00047278404235839844 seconds",
    ]
    write(name, "torchrun.log", launcher)


# --------------------------------------------------------------------------- 8. mindspore-ascend


def mindspore_ascend() -> None:
    """msrun, 1 node x 8 Ascend 910B, MindSpore 2.3 + MindFormers LLaMA2-7B pretrain (graph mode, data sink)."""
    name = "mindspore-ascend"
    FOLDERS.append(name)
    rng = random.Random(808)
    start = datetime(2026, 3, 21, 15, 30, 2, 118000)
    mf = "mindformers/core/callback/callback.py:529"
    for worker in (0, 7):
        pid = 1049852 + worker * 31
        tid = 281473041023008
        c = Clock(start + timedelta(seconds=0.2 * worker))

        def me(
            level: str,
            where: str,
            msg: str,
            proc: str = "MainProcess",
            c: Clock = c,
            pid: int = pid,
            tid: int = tid,
        ) -> str:
            return f"[{level}] ME({pid}:{tid},{proc}):{c.plog()} [{where}] {msg}"

        def info(where: str, msg: str, c: Clock = c) -> str:
            return f"{c.pylog()} - [{where}] - INFO - {msg}"

        w: list[str] = []
        w.append(
            me(
                "WARNING",
                "mindspore/common/_decorator.py:69",
                "'Resize' from mindspore.dataset.vision.c_transforms "
                "is deprecated from version 1.8 and will be removed in a future version. Use 'Resize' from "
                "mindspore.dataset.vision instead.",
            )
        )
        c.tick(1.3)
        w += [
            info("mindformers/tools/utils.py:167", "set output path to '/output/llama2_7b'"),
            info(
                "mindformers/trainer/base_trainer.py:90",
                "Now Running Task is: text_generation, Model is: llama2_7b",
            ),
            info(
                "mindformers/core/context/build_context.py:354",
                "Predict context config, jit_level: O1, infer_boost: off",
            ),
            info(
                "mindformers/trainer/base_trainer.py:216",
                "Pipeline parallel was not enabled, gradient_accumulation_steps "
                "will be effective to 8.",
            ),
            info(
                "mindformers/trainer/base_trainer.py:254",
                "global_batch_size = batch_size * data_parallel * "
                "micro_batch_interleave_num * gradient_accumulation_steps = 1 * 8 * 1 * 8 = 64",
            ),
            info(
                "mindformers/trainer/base_trainer.py:262",
                "parallel_config will be change to default config: "
                "{'data_parallel': 8, 'model_parallel': 1, 'pipeline_stage': 1, 'micro_batch_num': 1, "
                "'vocab_emb_dp': True, 'gradient_aggregation_group': 4}.",
            ),
            info(
                "mindformers/dataset/base_dataset.py:59",
                "Now Create Causal Language Model Dataset.",
            ),
            info(
                "mindformers/trainer/base_trainer.py:877",
                ".........Build Dataset For Train..........",
            ),
        ]
        c.tick(2.2)
        w.append(
            me(
                "WARNING",
                "mindspore/dataset/engine/queue.py:99",
                "Using shared memory queue, but rowsize is larger "
                "than allocated memory max_rowsize 6291456 current rowwize 9550848",
                proc="_GeneratorWorkerMp-3",
            )
        )
        c.tick(9.8)
        w += [
            info(
                "mindformers/models/modeling_utils.py:1439",
                "model built, but weights is unloaded, since the config "
                "has no checkpoint_name_or_path attribute or checkpoint_name_or_path is None.",
            ),
            info("mindformers/trainer/base_trainer.py:586", "Network Parameters: 6738 M."),
            info(
                "mindformers/trainer/base_trainer.py:912",
                ".........Build Optimizer From Config..........",
            ),
            info(
                "mindformers/trainer/base_trainer.py:895",
                ".........Build Network From Config..........",
            ),
            info(
                "mindformers/trainer/base_trainer.py:990",
                ".........Build Running Wrapper From Config For Train..........",
            ),
            info(
                "mindformers/trainer/base_trainer.py:1023",
                ".........Starting Init Train Model..........",
            ),
            info(
                "mindformers/trainer/base_trainer.py:1106",
                ".........Starting Training Model..........",
            ),
            info(
                "mindformers/trainer/base_trainer.py:1108",
                "Training Process: .........Model Compiling, Please Wait a Moment...........",
            ),
        ]
        steps = 200
        scale = 65536.0
        c.tick(412.0)  # graph compile of the first step
        for s in range(1, steps + 1):
            per = 103328 if s == 1 else int(1752 + rng.uniform(-30, 30))
            if s > 1:
                c.tick(per / 1000)
            ovf = s in (2, 3, 4)
            if ovf:
                scale /= 2
            loss = 10.649 if s == 1 else max(2.2, 10.64 * 0.985**s + rng.uniform(-0.05, 0.05))
            lr = 0.0 if s == 1 else 1e-5 * min(1.0, s / 20)
            gn = 131.049 if s == 1 else rng.uniform(1.1, 9.5)
            if worker == 0 or s % 5 == 0:
                w.append(
                    info(
                        mf,
                        f"{{ Epoch:[  1/  1], step:[{s:5d}/{steps:5d}], loss: {loss:.3f}, per_step_time: {per}ms, "
                        f"lr: {lr:g}, overflow cond: {ovf}, loss_scale: {scale}, global_norm: [{gn:.5f}], "
                        f"train_throughput_per_npu: {2.896 if s == 1 else 171.2 + rng.uniform(-2, 2):.3f}T",
                    )
                )
            if worker == 0 and s % 50 == 0:
                remaining = (steps - s) * 1.75
                w.append(
                    info(
                        mf,
                        f"   {100 * s / steps:.1f}% |{'█' * (s * 50 // steps):<50}| "
                        f"{4.571 + rng.uniform(-0.05, 0.05):.5f} samples/s/p  {int(remaining // 60)}:{int(remaining % 60):02d} }}",
                    )
                )
            if s % 100 == 0:
                w.append(
                    info("mindformers/core/callback/callback.py:1201", "......Saving ckpt......")
                )
                w.append(
                    info(
                        "mindformers/core/callback/callback.py:1260",
                        f"Finish saving ckpt of epoch 1 step {s} "
                        f"using 38.214 seconds, saved to /output/llama2_7b/checkpoint/rank_{worker}/"
                        f"llama2_7b_rank_{worker}-{s}_1.ckpt",
                    )
                )
        c.tick(3)
        w.append(
            info("mindformers/trainer/base_trainer.py:1122", ".........Training Over!.........")
        )
        if worker == 7:
            w = [
                x
                for i, x in enumerate(w)
                if i < 12 or "Epoch:[" in x or "Saving" in x or "Finish" in x or "Over" in x
            ]
        write(name, f"output/msrun_log/worker_{worker}.log", w)


# --------------------------------------------------------------------------- 9. verl-vllm-rlhf


def verl_vllm_rlhf() -> None:
    """verl GRPO on GSM8K, 1 node x 8 GPUs, FSDP actor + vLLM rollout, Ray driver output (TaskRunner/WorkerDict)."""
    name = "verl-vllm-rlhf"
    FOLDERS.append(name)
    rng = random.Random(909)
    start = datetime(2026, 3, 22, 3, 11, 40, 510000)
    c = Clock(start)
    tr = "(TaskRunner pid=1182736)"
    wd = [f"(WorkerDict pid={1183302 + 11 * i})" for i in range(8)]
    out = [
        "+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files=/data/gsm8k/train.parquet "
        "data.val_files=/data/gsm8k/test.parquet data.train_batch_size=256 actor_rollout_ref.model.path=/models/Qwen2.5-3B-Instruct "
        "actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.gpu_memory_utilization=0.6 trainer.n_gpus_per_node=8 "
        "trainer.total_epochs=1 trainer.save_freq=10 trainer.test_freq=10 trainer.logger=['console']",
        f"{c.pylog()}\tINFO worker.py:1821 -- Started a local Ray instance. View the dashboard at \x1b[1m\x1b[32m127.0.0.1:8265 \x1b[39m\x1b[22m",
    ]
    c.tick(4)
    out += [
        f"{tr} TaskRunner hostname: gpu-node1, PID: 1182736",
        f"{tr} Using dataset class: RLHFDataset",
        f"{tr} dataset len: 7473",
        f"{tr} dataset len: 1319",
        f"{tr} Size of train dataloader: 29, Size of val dataloader: 1",
        f"{tr} Total training steps: 29",
        f"{tr} colocated worker base class <class 'verl.single_controller.base.worker.Worker'>",
    ]
    for w in wd[:2]:
        out.append(
            f"{w} "
            + c.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
            + " [c10d] The IPv6 network "
            "addresses of (gpu-node1, 50211) cannot be retrieved (gai error: -2 - Name or service not known)."
        )
    out.append(
        f"{wd[0]} "
        + c.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
        + " [c10d] The IPv6 network "
        "addresses of (gpu-node1, 50211) cannot be retrieved (gai error: -2 - Name or service not known). "
        "[repeated 6x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log "
        "deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)"
    )
    c.tick(12)
    out += [
        f"{wd[0]} Model config after override: Qwen2Config {{",
        f'{wd[0]}   "architectures": [',
        f'{wd[0]}     "Qwen2ForCausalLM"',
        f"{wd[0]}   ],",
        f'{wd[0]}   "hidden_size": 2048,',
        f'{wd[0]}   "num_hidden_layers": 36,',
        f'{wd[0]}   "pad_token_id": 151643,',
        f'{wd[0]}   "tie_word_embeddings": true,',
        f'{wd[0]}   "torch_dtype": "bfloat16",',
        f'{wd[0]}   "vocab_size": 151936',
        f"{wd[0]} }}",
        f"{wd[0]} ",
        f"{wd[0]} Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but the current dype in "
        "Qwen2ForCausalLM is torch.float32. You should run training or inference using Automatic Mixed-Precision via the "
        "`with torch.autocast(device_type='torch_device'):` decorator, or load the model with the `torch_dtype` argument. "
        'Example: `model = AutoModel.from_pretrained("openai/whisper-tiny", attn_implementation="flash_attention_2", '
        "torch_dtype=torch.float16)`",
        f"{wd[0]} You are attempting to use Flash Attention 2.0 with a model not initialized on GPU. Make sure to move the "
        "model to GPU after initializing it on CPU with `model.to('cuda')`.",
        f"{wd[1]} Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but the current dype in "
        "Qwen2ForCausalLM is torch.float32. You should run training or inference using Automatic Mixed-Precision via the "
        "`with torch.autocast(device_type='torch_device'):` decorator, or load the model with the `torch_dtype` argument. "
        'Example: `model = AutoModel.from_pretrained("openai/whisper-tiny", attn_implementation="flash_attention_2", '
        "torch_dtype=torch.float16)` [repeated 7x across cluster]",
        f"{wd[0]} Qwen2ForCausalLM contains 3.09B parameters",
        f"{wd[0]} wrap_policy: functools.partial(<function _or_policy at 0x7f2d6c3a1e10>, policies=[functools.partial("
        "<function transformer_auto_wrap_policy at 0x7f2d6c3a1cf0>, transformer_layer_cls={<class "
        "'transformers.models.qwen2.modeling_qwen2.Qwen2DecoderLayer'>})])",
        f"{wd[0]} Actor use_remove_padding=True",
        f"{wd[0]} Total steps: 29, num_warmup_steps: 0",
    ]
    c.tick(20)
    out += [
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [config.py:1005] This model supports multiple tasks: {{'generate', 'score', "
        "'reward', 'classify', 'embed'}}. Defaulting to 'generate'.",
        f"{wd[0]} WARNING {c.t:%m-%d %H:%M:%S} [arg_utils.py:1135] Chunked prefill is enabled by default for models with "
        "max_model_len > 32K. Currently, chunked prefill might not work with some features or models. If you encounter "
        "any issues, please disable chunked prefill by setting --enable-chunked-prefill=False.",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [config.py:1020] Chunked prefill is enabled with max_num_batched_tokens=8192.",
        f"{wd[0]} WARNING {c.t:%m-%d %H:%M:%S} [utils.py:2262] CUDA was previously initialized. We must use the `spawn` "
        "multiprocessing start method. Setting VLLM_WORKER_MULTIPROC_METHOD to 'spawn'. See "
        "https://docs.vllm.ai/en/latest/getting_started/troubleshooting.html#python-multiprocessing for more information.",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [cuda.py:230] Using Flash Attention backend.",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [model_runner.py:1110] Starting to load model /models/Qwen2.5-3B-Instruct...",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [model_runner.py:1115] Loading model weights took 0.0000 GB",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [worker.py:267] Memory profiling takes 1.84 seconds",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [worker.py:267] the current vLLM instance can use total_gpu_memory (79.15GiB) "
        "x gpu_memory_utilization (0.60) = 47.49GiB",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [worker.py:267] model weights take 5.80GiB; non_torch_memory takes 0.77GiB; "
        "PyTorch activation peak memory takes 1.43GiB; the rest of the memory reserved for KV Cache is 39.49GiB.",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [executor_base.py:110] # CUDA blocks: 71883, # CPU blocks: 7281",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [executor_base.py:115] Maximum concurrency for 1536 tokens per request: 748.78x",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [model_runner.py:1434] Capturing cudagraphs for decoding. This may lead to "
        "unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or "
        "use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing "
        "`gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to "
        "decrease memory usage.",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [model_runner.py:1562] Graph capturing finished in 14 secs, took 0.41 GiB",
        f"{wd[0]} INFO {c.t:%m-%d %H:%M:%S} [llm_engine.py:431] init engine (profile, create kv cache, warmup model) took "
        "19.05 seconds",
        f"{wd[0]} kwargs: {{'n': 5, 'logprobs': 0, 'max_tokens': 1024, 'detokenize': False, 'temperature': 1.0, "
        "'top_k': -1, 'top_p': 1, 'ignore_eos': False}",
        f"{wd[0]} After building vllm rollout, memory allocated (GB): 14.82, memory reserved (GB): 15.44, device memory "
        "used/total (GB): 64.10/79.15",
        f"{wd[0]} /usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:690: "
        "FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use APIs, "
        "get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, DDP. API doc: "
        "https://pytorch.org/docs/stable/distributed.checkpoint.html#torch.distributed.checkpoint.state_dict.get_state_dict "
        ".Tutorial: https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html .",
        f"{wd[0]}   warnings.warn(",
        f"{tr} Checkpoint tracker file does not exist: /ckpt/verl_grpo_gsm8k/qwen2.5_3b/latest_checkpointed_iteration.txt",
        f"{tr} Training from scratch",
        f"{tr} test_gen_batch meta info: {{'eos_token_id': 151645, 'pad_token_id': 151643, 'recompute_log_prob': False, "
        "'do_sample': False, 'validate': True}",
        f"{tr} validation generation end",
        f"{tr} [prompt] system",
        f"{tr} You are Qwen, created by Alibaba Cloud. You are a helpful assistant.",
        f"{tr} user",
        f"{tr} Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
        "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How "
        "much in dollars does she make every day at the farmers' market? Let's think step by step and output the final "
        'answer after "####".',
        f"{tr} assistant",
        f"{tr} [response] Janet has 16 - 3 - 4 = 9 eggs left, and 9 * 2 = 18 dollars. #### 18",
        f"{tr} [ground_truth] 18",
        f"{tr} [score] 1.0",
        f"{tr} (\"Initial validation metrics: {{'val-aux/openai/gsm8k/reward/mean@1': 0.6193, "
        "'val-core/openai/gsm8k/acc/mean@1': 0.6193, 'val-aux/num_turns/min': 2, 'val-aux/num_turns/max': 2, "
        "'val-aux/num_turns/mean': 2.0}\")",
        f"{tr} step:0 - val-aux/openai/gsm8k/reward/mean@1:0.619 - val-core/openai/gsm8k/acc/mean@1:0.619 - "
        "val-aux/num_turns/min:2 - val-aux/num_turns/max:2 - val-aux/num_turns/mean:2.000",
        f"{tr} ",
        f"{tr} Training Progress:   0%|          | 0/29 [00:00<?, ?it/s]",
    ]
    total = 29
    for step in range(1, total + 1):
        c.tick(96 + rng.uniform(-6, 6))
        acc = min(0.93, 0.62 + 0.011 * step + rng.uniform(-0.02, 0.02))
        ent = 0.41 - 0.004 * step
        resp = 281 - 2.5 * step + rng.uniform(-8, 8)
        m = [
            f"step:{step}",
            f"global_seqlen/min:{rng.randint(380000, 400000)}.000",
            f"global_seqlen/max:{rng.randint(405000, 430000)}.000",
            f"global_seqlen/minmax_diff:{rng.randint(8000, 30000)}.000",
            "global_seqlen/balanced_min:403817.000",
            "global_seqlen/balanced_max:403818.000",
            "global_seqlen/mean:403817.625",
            f"actor/entropy:{ent:.3f}",
            f"actor/kl_loss:{0.0005 * step:.4f}",
            "actor/kl_coef:0.001",
            f"actor/pg_loss:{rng.uniform(-0.02, 0.02):.3f}",
            f"actor/pg_clipfrac:{rng.uniform(0, 0.003):.4f}",
            f"actor/ppo_kl:{rng.uniform(-1e-4, 1e-4):.6f}",
            "actor/pg_clipfrac_lower:0.000",
            f"actor/grad_norm:{rng.uniform(0.05, 0.3):.3f}",
            f"perf/mfu/actor:{0.31 + rng.uniform(-0.02, 0.02):.3f}",
            f"perf/max_memory_allocated_gb:{44.19 + rng.uniform(-0.3, 0.3):.3f}",
            f"perf/max_memory_reserved_gb:{68.54 + rng.uniform(-0.2, 0.2):.3f}",
            f"perf/cpu_memory_used_gb:{90.1 + step * 0.1:.3f}",
            "actor/lr:0.000",
            f"training/global_step:{step}.000",
            "training/epoch:0.000",
            f"critic/score/mean:{acc:.3f}",
            "critic/score/max:1.000",
            "critic/score/min:0.000",
            f"critic/rewards/mean:{acc:.3f}",
            "critic/rewards/max:1.000",
            "critic/rewards/min:0.000",
            f"critic/advantages/mean:{rng.uniform(-0.01, 0.01):.3f}",
            "critic/advantages/max:1.789",
            "critic/advantages/min:-1.789",
            f"critic/returns/mean:{rng.uniform(-0.01, 0.01):.3f}",
            "critic/returns/max:1.789",
            "critic/returns/min:-1.789",
            f"response_length/mean:{resp:.3f}",
            "response_length/max:1024.000",
            f"response_length/min:{rng.randint(60, 110)}.000",
            f"response_length/clip_ratio:{rng.uniform(0, 0.006):.3f}",
            "prompt_length/mean:104.359",
            "prompt_length/max:211.000",
            "prompt_length/min:67.000",
            "prompt_length/clip_ratio:0.000",
            f"timing_s/gen:{29.6 + rng.uniform(-3, 3):.3f}",
            f"timing_s/reward:{0.4 + rng.uniform(0, 0.1):.3f}",
            f"timing_s/old_log_prob:{6.5 + rng.uniform(-0.3, 0.3):.3f}",
            f"timing_s/ref:{6.3 + rng.uniform(-0.3, 0.3):.3f}",
            f"timing_s/adv:{0.07 + rng.uniform(0, 0.02):.3f}",
            f"timing_s/update_actor:{48.2 + rng.uniform(-2, 2):.3f}",
            f"timing_s/step:{96 + rng.uniform(-6, 6):.3f}",
            f"timing_per_token_ms/gen:{0.018 + rng.uniform(-0.002, 0.002):.3f}",
            f"perf/total_num_tokens:{3230541 + rng.randint(-20000, 20000)}",
            f"perf/time_per_step:{96 + rng.uniform(-6, 6):.3f}",
            f"perf/throughput:{4200 + rng.randint(-150, 150)}.000",
        ]
        if step % 10 == 0 or step == total:
            m.insert(1, f"val-core/openai/gsm8k/acc/mean@1:{acc + 0.01:.3f}")
            m.insert(2, f"val-aux/openai/gsm8k/reward/mean@1:{acc + 0.01:.3f}")
        out.append(f"{tr} " + " - ".join(m))
        out.append(
            f"{tr} Training Progress: {int(100 * step / total):3d}%|{tqdm_bar(step, total)}| {step}/{total} "
            f"[{int(step * 96) // 60:02d}:{int(step * 96) % 60:02d}<{int((total - step) * 96) // 60:02d}:00, 96.1s/it]"
        )
        if step % 10 == 0 or step == total:
            out += [
                f"{tr} local_global_step_folder: /ckpt/verl_grpo_gsm8k/qwen2.5_3b/global_step_{step}",
                f"{wd[0]} [rank-0]: Saving model to /ckpt/verl_grpo_gsm8k/qwen2.5_3b/global_step_{step}/actor/"
                "model_world_size_8_rank_0.pt",
                f"{wd[0]} [rank-0]: Saving optim to /ckpt/verl_grpo_gsm8k/qwen2.5_3b/global_step_{step}/actor/"
                "optim_world_size_8_rank_0.pt",
                f"{wd[0]} [rank-0]: Saving extra_state to /ckpt/verl_grpo_gsm8k/qwen2.5_3b/global_step_{step}/actor/"
                "extra_state_world_size_8_rank_0.pt",
            ]
            if step == 10:
                out.append(
                    f"{wd[3]} /usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/_state_dict_utils.py:773: "
                    "UserWarning: When using ``NO_SHARD`` for ``ShardingStrategy``, full_state_dict will be returned."
                )
                out.append(f"{wd[3]}   warnings.warn(")
    out += [
        f"{tr} (\"Final validation metrics: {{'val-aux/openai/gsm8k/reward/mean@1': 0.8901, "
        "'val-core/openai/gsm8k/acc/mean@1': 0.8901, 'val-aux/num_turns/min': 2, 'val-aux/num_turns/max': 2, "
        "'val-aux/num_turns/mean': 2.0}\")",
        f"{tr} Training Progress: 100%|██████████| 29/29 [46:28<00:00, 96.15s/it]",
    ]
    for i in (0, 4):
        out.append(
            f"{wd[i]} "
            + c.c10("W", "ProcessGroupNCCL.cpp:1496", rng.randint(1, 999999999)).replace(
                "[W", f"[rank{i}]:[W"
            )
            + " Warning: WARNING: destroy_process_group() was not called before program exit, which can leak "
            "resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown "
            "(function operator())"
        )
    write(name, "verl_grpo_gsm8k.log", out)


# --------------------------------------------------------------------------- 10. fsdp-bf16


def fsdp_bf16() -> None:
    """accelerate + FSDP (FULL_SHARD), 2 nodes x 8 H100, Llama-3-8B SFT in bf16 with HF Trainer, torch 2.7 / NCCL 2.26."""
    name = "fsdp-bf16"
    FOLDERS.append(name)
    rng = random.Random(1010)
    start = datetime(2026, 3, 23, 18, 2, 33, 70000)
    hosts = ["gpu-node1", "gpu-node2"]
    for n, host in enumerate(hosts):
        for lr in (0, 4):
            rank = 8 * n + lr
            c = Clock(start + timedelta(seconds=4 + 0.01 * rank))
            w: list[str] = []
            w.append(
                c.c10("W", "socket.cpp:697", rng.randint(1, 999999999))
                + f" [c10d] The client socket has failed "
                f"to connect to [{hosts[0]}]:29500 (errno: 111 - Connection refused)."
            )
            c.tick(3)
            w += [
                "Loading checkpoint shards: 100%|██████████| 4/4 [00:09<00:00,  2.30s/it]",
                "You're using a PreTrainedTokenizerFast tokenizer. Please note that with a fast tokenizer, using the "
                "`__call__` method is faster than using a method to encode the text followed by a call to the `pad` method "
                "to get a padded encoding.",
                "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.",
                "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:1399: FutureWarning: "
                "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.",
                "  with device_autocast_ctx, torch.cpu.amp.autocast(**cpu_autocast_kwargs), recompute_context:  # type: ignore[attr-defined]",
            ]
            if rank == 0:
                w += [
                    "Token indices sequence length is longer than the specified maximum sequence length for this model "
                    "(9123 > 8192). Running this sequence through the model will result in indexing errors",
                    "Map (num_proc=16): 100%|██████████| 52002/52002 [00:07<00:00, 7203.11 examples/s]",
                    "Filter (num_proc=16): 100%|██████████| 52002/52002 [00:02<00:00, 23417.80 examples/s]",
                ]
            comm = comm_addr(rng)
            w += nccl_init(
                host=host,
                pid=61540 + lr,
                tid=61540 + lr + 371,
                rank=rank,
                local_rank=lr,
                nranks=16,
                nnodes=2,
                ip=f"10.0.4.{11 + n}",
                version="2.26.2",
                busid=BUSIDS[lr],
                comm=comm,
                commid="0x" + hexid(rng, 16),
                ib=True,
                rng=rng,
                channels=4,
            )
            w.append(
                f"[rank{rank}]:"
                + c.c10("W", "ProcessGroupNCCL.cpp:4115", rng.randint(1, 999999999))
                + " "
                + BARRIER_WARNING.format(rank=rank, gpu=lr)
            )
            if rank == 0:
                w += [
                    "***** Running training *****",
                    "  Num examples = 49,718",
                    "  Num Epochs = 2",
                    "  Instantaneous batch size per device = 4",
                    "  Total train batch size (w. parallel, distributed & accumulation) = 128",
                    "  Gradient Accumulation steps = 2",
                    "  Total optimization steps = 778",
                    "  Number of trainable parameters = 501,768,192",
                ]
                total = 778
                for step in range(10, total + 1, 10):
                    c.tick(10 * 6.1 + rng.uniform(-1, 1))
                    ep = step / 389
                    r = f"{{'loss': {1.32 * 0.9992**step - 0.12 * (step > 389) + rng.uniform(-0.03, 0.03):.4f}, "
                    r += f"'grad_norm': {rng.uniform(0.35, 1.4):.16f}, 'learning_rate': {2e-5 * (1 - step / total):.17g}, "
                    r += f"'epoch': {ep:.2f}}}"
                    w.append(r)
                    if step in (400, 770):
                        ck = f"/output/llama3-8b-sft/checkpoint-{step}"
                        w += [
                            f"Saving model checkpoint to {ck}",
                            f"Saving model to {ck}/pytorch_model_fsdp_0",
                            f"Model saved to {ck}/pytorch_model_fsdp_0",
                            f"Saving Optimizer state to {ck}/optimizer_0",
                            f"Optimizer state saved in {ck}/optimizer_0",
                            "/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:690: "
                            "FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please "
                            "use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, "
                            "FSDP2, DDP. API doc: https://pytorch.org/docs/stable/distributed.checkpoint.html"
                            "#torch.distributed.checkpoint.state_dict.get_state_dict .Tutorial: "
                            "https://pytorch.org/tutorials/recipes/distributed_checkpoint_recipe.html .",
                            "  warnings.warn(",
                        ]
                w += [
                    "",
                    "",
                    "Training completed. Do not forget to share your model on huggingface.co/models =)",
                    "",
                    "",
                    "{'train_runtime': 4781.0923, 'train_samples_per_second': 20.798, 'train_steps_per_second': 0.163, "
                    "'train_loss': 1.0132947214007164, 'epoch': 2.0}",
                    "Saving model checkpoint to /output/llama3-8b-sft",
                    "Configuration saved in /output/llama3-8b-sft/config.json",
                    "Configuration saved in /output/llama3-8b-sft/generation_config.json",
                    "The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in 4 checkpoint "
                    "shards. You can find where each parameters has been saved in the index located at "
                    "/output/llama3-8b-sft/model.safetensors.index.json.",
                    "tokenizer config file saved in /output/llama3-8b-sft/tokenizer_config.json",
                    "Special tokens file saved in /output/llama3-8b-sft/special_tokens_map.json",
                ]
            else:
                for step in range(50, 779, 50):
                    when = start + timedelta(seconds=60 + step * 6.1)
                    w.append(
                        f"{when:%Y-%m-%d %H:%M:%S} rank{rank} dataloader: prefetched {step * 8} samples, "
                        f"nan_count: 0, inf_count: 0, skipped_too_long: {rng.randint(0, 3)}"
                    )
            if lr == 0:
                c2 = Clock(start + timedelta(seconds=4840))
                w.append(
                    f"[rank{rank}]:"
                    + c2.c10("W", "ProcessGroupNCCL.cpp:1479", rng.randint(1, 999999999))
                    + " Warning: WARNING: destroy_process_group() was not called before program exit, which can leak "
                    "resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown "
                    "(function operator())"
                )
            w += nccl_shutdown(host, 61540 + lr, lr, rank, 16, comm, BUSIDS[lr], 8)
            write(name, f"{host}/rank_{rank}.log", w)


# --------------------------------------------------------------------------- 11. tf-keras-mirrored


def tf_keras_mirrored() -> None:
    """TensorFlow 2.16 / Keras 3, MirroredStrategy on 1 node x 4 A100 (NCCL all-reduce), ResNet on CIFAR-100."""
    name = "tf-keras-mirrored"
    FOLDERS.append(name)
    rng = random.Random(1111)
    start = datetime(2026, 3, 24, 7, 45, 12, 301000)
    c = Clock(start)

    def tfl(level: str, where: str, msg: str, dt: float = 0.0004) -> str:
        c.tick(dt)
        return f"{c.t:%Y-%m-%d %H:%M:%S}.{c.t.microsecond:06d}: {level} {where}] {msg}"

    out = [
        tfl(
            "I",
            "tensorflow/core/util/port.cc:113",
            "oneDNN custom operations are on. You may see slightly different "
            "numerical results due to floating-point round-off errors from different computation orders. To turn them off, "
            "set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.",
        ),
        tfl(
            "E",
            "external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261",
            "Unable to register cuDNN factory: "
            "Attempting to register factory for plugin cuDNN when one has already been registered",
        ),
        tfl(
            "E",
            "external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607",
            "Unable to register cuFFT factory: "
            "Attempting to register factory for plugin cuFFT when one has already been registered",
        ),
        tfl(
            "E",
            "external/local_xla/xla/stream_executor/cuda/cuda_blas.cc:1515",
            "Unable to register cuBLAS factory: "
            "Attempting to register factory for plugin cuBLAS when one has already been registered",
        ),
        tfl(
            "I",
            "tensorflow/core/platform/cpu_feature_guard.cc:182",
            "This TensorFlow binary is optimized to use "
            "available CPU instructions in performance-critical operations.",
        ),
        "To enable the following instructions: AVX2 AVX512F AVX512_VNNI FMA, in other operations, rebuild TensorFlow "
        "with the appropriate compiler flags.",
        tfl(
            "W",
            "tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38",
            "TF-TRT Warning: Could not find TensorRT",
            1.1,
        ),
    ]
    for g in range(4):
        out.append(
            tfl(
                "I",
                "external/local_xla/xla/stream_executor/cuda/cuda_executor.cc:998",
                "successful NUMA node "
                "read from SysFS had negative value (-1), but there must be at least one NUMA node, so returning "
                "NUMA node zero. See more at https://github.com/torvalds/linux/blob/v6.0/Documentation/ABI/testing/"
                "sysfs-bus-pci#L344-L355",
                0.6 if g == 0 else 0.002,
            )
        )
    for g in range(4):
        out.append(
            tfl(
                "I",
                "tensorflow/core/common_runtime/gpu/gpu_device.cc:1928",
                f"Created device "
                f"/job:localhost/replica:0/task:0/device:GPU:{g} with 78790 MB memory:  -> device: {g}, name: "
                f"NVIDIA A100-SXM4-80GB, pci bus id: {PCI[g]}.0, compute capability: 8.0",
                0.3,
            )
        )
    out += [
        "INFO:tensorflow:Using MirroredStrategy with devices ('/job:localhost/replica:0/task:0/device:GPU:0', "
        "'/job:localhost/replica:0/task:0/device:GPU:1', '/job:localhost/replica:0/task:0/device:GPU:2', "
        "'/job:localhost/replica:0/task:0/device:GPU:3')",
        "Number of devices: 4",
    ]
    epochs = 12
    steps = 195
    best = float("inf")
    for ep in range(1, epochs + 1):
        out.append(f"Epoch {ep}/{epochs}")
        if ep == 1:
            out += [
                "INFO:tensorflow:Collective all_reduce tensors: 161 all_reduces, num_devices = 4, group_size = 4, "
                "implementation = CommunicationImplementation.NCCL, num_packs = 1",
                tfl(
                    "I",
                    "external/local_xla/xla/service/service.cc:168",
                    "XLA service 0x7f3a6c01d7e0 initialized for "
                    "platform CUDA (this does not guarantee that XLA will be used). Devices:",
                    9.1,
                ),
            ]
            for g in range(4):
                out.append(
                    tfl(
                        "I",
                        "external/local_xla/xla/service/service.cc:176",
                        f"  StreamExecutor device ({g}): "
                        "NVIDIA A100-SXM4-80GB, Compute Capability 8.0",
                        0.0001,
                    )
                )
            out += [
                tfl(
                    "I",
                    "tensorflow/compiler/mlir/tensorflow/utils/dump_mlir_util.cc:268",
                    "disabling MLIR crash "
                    "reproducer, set env var `MLIR_CRASH_REPRODUCER_DIRECTORY` to enable.",
                    0.2,
                ),
                tfl(
                    "I",
                    "external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:465",
                    "Loaded cuDNN version 8906",
                    1.7,
                ),
                tfl(
                    "W",
                    "tensorflow/core/common_runtime/bfc_allocator.cc:296",
                    "Allocator (GPU_0_bfc) ran out of memory "
                    "trying to allocate 2.34GiB with freed_by_count=0. The caller indicates that this is not a failure, "
                    "but may mean that there could be performance gains if more memory were available.",
                    0.4,
                ),
                "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
                f"I0000 00:00:{c.t.timestamp():.6f}   {rng.randint(20000, 29999)} device_compiler.h:186] Compiled cluster "
                "using XLA!  This line is logged at most once for the lifetime of the process.",
                f"W0000 00:00:{c.t.timestamp() + 0.5:.6f}   {rng.randint(20000, 29999)} graph_launch.cc:671] Fallback to "
                "op-by-op mode because memset node breaks graph update",
            ]
        c.tick(41 + rng.uniform(-2, 2))
        acc = min(0.78, 0.12 + 0.06 * ep + rng.uniform(-0.01, 0.01))
        loss = 3.9 * 0.86**ep
        vacc = acc - 0.03
        vloss = loss + 0.15
        out.append(
            f"{steps}/{steps} ━━━━━━━━━━━━━━━━━━━━ {41 if ep > 1 else 58}s {211 if ep > 1 else 297}ms/step - "
            f"accuracy: {acc:.4f} - loss: {loss:.4f} - val_accuracy: {vacc:.4f} - val_loss: {vloss:.4f} - "
            f"learning_rate: {0.1 * 0.5 ** (ep // 5):.4f}"
        )
        out.append(
            tfl(
                "I",
                "tensorflow/core/framework/local_rendezvous.cc:404",
                "Local rendezvous is aborting with status: OUT_OF_RANGE: End of sequence",
            )
        )
        if vloss < best:
            prev = "inf" if best == float("inf") else f"{best:.5f}"
            out.append(
                f"Epoch {ep}: val_loss improved from {prev} to {vloss:.5f}, saving model to "
                f"/ckpt/cifar100_resnet/model_{ep:02d}.keras"
            )
            best = vloss
        else:
            out.append(f"Epoch {ep}: val_loss did not improve from {best:.5f}")
    out += [
        "79/79 ━━━━━━━━━━━━━━━━━━━━ 4s 45ms/step - accuracy: 0.7412 - loss: 0.9810",
        "Test accuracy: 0.7408, test loss: 0.9833",
        "Saved final model to /ckpt/cifar100_resnet/final.keras",
    ]
    write(name, "train.log", out)
    write(
        name,
        "kern.log",
        healthy_kern_log("gpu-node1", start - timedelta(days=6), rng, gpus=4, ib=False),
    )


# --------------------------------------------------------------------------- 12. slurm-multinode


def slurm_multinode() -> None:
    """sbatch, 2 nodes x 8 A100 over InfiniBand, srun -l + torchrun per node, nanoGPT GPT-2 124M."""
    name = "slurm-multinode"
    FOLDERS.append(name)
    rng = random.Random(1212)
    job = 5151
    start = datetime(2026, 3, 25, 0, 12, 5, 90000)
    hosts = ["gpu-node1", "gpu-node2"]
    c = Clock(start)
    out = [
        f"== job {job} on gpu-node[1-2], 16 GPUs, started {start:%Y-%m-%dT%H:%M:%S} ==",
        "+ export NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3 NCCL_SOCKET_IFNAME=ib0",
        "+ srun -l --ntasks-per-node=1 torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d "
        f"--rdzv_endpoint {hosts[0]}:29500 --rdzv_id {job} train.py config/train_gpt2.py",
    ]
    for n in range(2):
        tid = 140001233102656 + n
        for line in OMP_WARNING:
            out.append(f"{n}: {c.glog('W', tid, 'torch/distributed/run.py:793')} {line}")
    # NCCL lines of local rank 0 of each node (srun -l prefix is the task id = node index)
    comms = {}
    for n in range(2):
        comms[n] = comm_addr(rng)
        for line in nccl_init(
            host=hosts[n],
            pid=81211 + n * 9000,
            tid=81555 + n * 9000,
            rank=8 * n,
            local_rank=0,
            nranks=16,
            nnodes=2,
            ip=f"10.0.5.{11 + n}",
            version="2.18.3",
            busid=BUSIDS[0],
            comm=comms[n],
            commid="0x1f0b3c9e7a2d4c58",
            ib=True,
            rng=rng,
            channels=4,
        ):
            out.append(f"{n}: {line}")
    out += [
        "1: ",
        f"1: {hosts[1]}:90211:90555 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : GID table change",
    ]
    out += [
        "0: tokens per iteration will be: 491,520",
        "0: Initializing from OpenAI GPT-2 weights: gpt2",
        "0: loading weights from pretrained gpt: gpt2",
        "0: forcing vocab_size=50257, block_size=1024, bias=True",
        "0: overriding dropout rate to 0.0",
        "0: number of parameters: 123.65M",
        "0: num decayed parameter tensors: 50, with 124,318,464 parameters",
        "0: num non-decayed parameter tensors: 98, with 121,344 parameters",
        "0: using fused AdamW: True",
        "0: compiling the model... (takes a ~minute)",
    ]
    c = Clock(start + timedelta(seconds=95))
    iters = 2000
    for it in range(0, iters + 1, 20):
        c.tick(20 * 0.318)
        if it % 250 == 0:
            tl = 3.28 - 0.25 * it / iters + rng.uniform(-0.01, 0.01)
            out.append(f"0: step {it}: train loss {tl:.4f}, val loss {tl + 0.02:.4f}")
            if it > 0:
                out.append("0: saving checkpoint to out-owt")
        loss = 3.3 - 0.26 * it / iters + rng.uniform(-0.06, 0.06)
        t_ms = 31884.5 if it == 0 else 318 + rng.uniform(-6, 6)
        mfu = -100.0 if it < 5 else 41.2 + rng.uniform(-0.5, 0.5)
        out.append(f"0: iter {it}: loss {loss:.4f}, time {t_ms:.2f}ms, mfu {mfu:.2f}%")
    for n in range(2):
        for _lr in (0,):
            for line in nccl_shutdown(
                hosts[n], 81211 + n * 9000, 0, 8 * n, 16, comms[n], BUSIDS[0], 4, new=False
            ):
                out.append(f"{n}: {line}")
    c.tick(5)
    for n in range(2):
        tid = 140001233102656 + n
        out.append(
            f"{n}: {c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:864')} [default] worker group "
            "successfully finished. Waiting 300 seconds for other agents to finish."
        )
    out += [
        f"slurmstepd: error: _is_a_lwp: open() /proc/{rng.randint(100000, 199999)}/status failed: No such file or directory",
        f"== job {job} finished {c.t:%Y-%m-%dT%H:%M:%S}, srun exit code 0 ==",
    ]
    write(name, f"slurm-{job}.out", out)
    write(
        name,
        f"{hosts[0]}/kern.log",
        healthy_kern_log(hosts[0], start - timedelta(days=12, hours=5), rng, gpus=8, ib=True),
    )
    write(
        name,
        f"{hosts[1]}/kern.log",
        healthy_kern_log(
            hosts[1],
            start - timedelta(days=12, hours=5, minutes=3),
            rng,
            gpus=8,
            ib=True,
            edac_ce=True,
        ),
    )
    fm = Clock(start - timedelta(days=12, hours=4, minutes=58))
    fml = []
    for _host in hosts:
        fml += [
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Fabric Manager version 550.90.07 is running with the following "
            "configuration options",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Logging level = 4",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Logging file name/path = /var/log/fabricmanager.log",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Append to log file = 1",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Max Log file size = 1024 (MBs)",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Use Syslog file = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Fabric Manager communication ports = 16000",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Fabric Mode = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Fabric Mode Restart = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] FM Library communication bind interface = 127.0.0.1",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] FM Library communication unix domain socket = ",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] FM Library communication port number = 6666",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Continue to run when facing failures = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Option when facing GPU to NVSwitch NVLink failure = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Option when facing NVSwitch to NVSwitch NVLink failure = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Option when facing NVSwitch failure = 0",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Abort CUDA jobs when FM exits = 1",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Connected to 1 node.",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Getting fabric node FM version info",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Starting NVLink training for trunk links.",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Successfully completed NVLink training for trunk links.",
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3311] Successfully configured all the available NVSwitches to route GPU "
            "NVLink traffic. NVLink Peer-to-Peer support will be enabled once the GPUs are successfully registered with "
            "the NVLink fabric.",
        ]
        break
    fml = [line for line in fml]
    fml += [
        f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3319] Received an inband message: Message header details: magic "
        f"Id:adbc request Id:{hexid(rng, 16)} status:0 type:0 length:24"
        for _ in range(0)
    ]
    while len(fml) < 50:
        fm.tick(86400)
        fml.append(
            f"[{fm.t:%b %d %Y %H:%M:%S}] [INFO] [tid 3324] GPU NVLink fabric registration state checked: 8 GPUs "
            "registered, fabric state completed, status success"
        )
    write(name, f"{hosts[0]}/fabricmanager.log", fml)


# --------------------------------------------------------------------------- 13. k8s-pytorchjob


def k8s_pytorchjob() -> None:
    """Kubeflow training-operator PyTorchJob (1 master + 2 workers, 4 GPUs each), BERT pre-training, torch 2.5."""
    name = "k8s-pytorchjob"
    FOLDERS.append(name)
    rng = random.Random(1313)
    job = "bert-pretrain"
    start = datetime(2026, 3, 26, 4, 0, 0)
    # init container of a worker: waits for the master service DNS record
    init = []
    for _i in range(9):
        init += [
            "Server:\t\t10.96.0.10",
            "Address:\t10.96.0.10:53",
            "",
            f"** server can't find {job}-master-0.training.svc.cluster.local: NXDOMAIN",
            "",
            f"** server can't find {job}-master-0.svc.cluster.local: NXDOMAIN",
            "",
            "waiting for master",
        ]
    init += [
        "Server:\t\t10.96.0.10",
        "Address:\t10.96.0.10:53",
        "",
        f"Name:\t{job}-master-0.training.svc.cluster.local",
        "Address: 10.244.3.17",
        "",
    ]
    write(name, f"{job}-worker-0/init-pytorch.log", init)
    # pod logs
    for pod, grank in ((f"{job}-master-0", 0), (f"{job}-worker-0", 1), (f"{job}-worker-1", 2)):
        c = Clock(start + timedelta(seconds=31 + 2 * grank))
        tid = 139771254716224 + grank
        w = [
            f"+ torchrun --nnodes 3 --nproc_per_node 4 --node_rank {grank} --master_addr {job}-master-0 "
            "--master_port 23456 run_pretrain.py --config bert_large.yaml"
        ]
        for line in OMP_WARNING:
            w.append(f"{c.glog('W', tid, 'torch/distributed/run.py:793')} {line}")
        w += launch_configs(
            c, tid, "run_pretrain.py", 3, 3, 4, "none", "static", f"{job}-master-0:23456"
        )
        if grank:
            for _k in range(3):
                c.tick(0.5)
                w.append(
                    c.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
                    + f" [c10d] The IPv6 network addresses of "
                    f"({job}-master-0, 23456) cannot be retrieved (gai error: -2 - Name or service not known)."
                )
            c.tick(1)
            w.append(
                c.c10("W", "socket.cpp:752", rng.randint(1, 999999999))
                + f" [c10d] The client socket has failed to "
                f"connect to [{job}-master-0.training.svc.cluster.local]:23456 (errno: 111 - Connection refused)."
            )
        c.tick(2.2)
        w += [
            f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:554')} [default] Rendezvous complete for "
            "workers. Result:",
            "  restart_count=0",
            f"  master_addr={job}-master-0",
            "  master_port=23456",
            f"  group_rank={grank}",
            "  group_world_size=3",
            "  local_ranks=[0, 1, 2, 3]",
            f"  role_ranks={list(range(4 * grank, 4 * grank + 4))}",
            f"  global_ranks={list(range(4 * grank, 4 * grank + 4))}",
            "  role_world_sizes=[12, 12, 12, 12]",
            "  global_world_sizes=[12, 12, 12, 12]",
            "",
        ]
        comm = comm_addr(rng)
        nl = nccl_init(
            host=pod,
            pid=47 + grank,
            tid=312 + grank,
            rank=4 * grank,
            local_rank=0,
            nranks=12,
            nnodes=3,
            ip=f"10.244.{3 + grank}.17",
            version="2.18.1",
            busid=BUSIDS[0],
            comm=comm,
            commid="0x77d1c5b2e0a94f13",
            ib=False,
            rng=rng,
            channels=4,
        )
        if grank:
            # bootstrap connects before the root rank listens: NCCL retries silently (INFO) and goes on
            nl[3:3] = [
                f"{pod}:{47 + grank}:{312 + grank} [0] NCCL INFO Call to connect returned Connection refused, "
                "retrying"
            ] * 3
        w += nl
        if grank == 0:
            t = Clock(start + timedelta(seconds=80))
            for s in range(100, 10001, 100):
                t.tick(100 * 0.92)
                loss = 7.9 * 0.9997**s + 1.2 + rng.uniform(-0.04, 0.04)
                w.append(
                    f"{t.pylog()} - INFO - run_pretrain - step {s:5d}/10000 | loss {loss:.4f} | mlm_acc "
                    f"{min(0.71, 0.12 + s / 14000):.4f} | lr {1e-4 * min(1, s / 1000):.2e} | seq/s {1393 + rng.randint(-20, 20)}"
                )
                if s % 2500 == 0:
                    w.append(
                        f"{t.pylog()} - INFO - run_pretrain - saved checkpoint /mnt/pvc/bert-large/ckpt_{s}.pt"
                    )
            w.append(
                f"{t.pylog()} - INFO - run_pretrain - Training completed in {(t.t - start).total_seconds() / 3600:.2f} h"
            )
            t_end = t.t
        else:
            t_end = start + timedelta(seconds=80 + 10000 * 0.92 + 2)
            w += [
                f"{(start + timedelta(seconds=80 + s * 0.92)):%Y-%m-%d %H:%M:%S},000 - INFO - run_pretrain - node {grank}: "
                f"shard heartbeat step {s}"
                for s in range(1000, 10001, 1000)
            ]
        c = Clock(t_end + timedelta(seconds=3))
        w.append(
            f"[rank{4 * grank}]:"
            + c.c10("W", "ProcessGroupNCCL.cpp:1250", rng.randint(1, 999999999))
            + " "
            + DESTROY_WARNING
        )
        w += nccl_shutdown(pod, 47 + grank, 0, 4 * grank, 12, comm, BUSIDS[0], 4, new=False)
        c.tick(2)
        w += [
            f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:864')} [default] worker group successfully "
            "finished. Waiting 300 seconds for other agents to finish.",
            f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:918')} Local worker group finished "
            "(WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish",
            f"{c.glog('I', tid, 'torch/distributed/elastic/agent/server/api.py:932')} Done waiting for other agents. "
            "Elapsed: 0.0021767616271972656 seconds",
        ]
        write(name, f"{pod}/pytorch.log", w)
    # kubectl describe pytorchjob
    d = [
        f"Name:         {job}",
        "Namespace:    training",
        "Labels:       team=nlp",
        "Annotations:  <none>",
        "API Version:  kubeflow.org/v1",
        "Kind:         PyTorchJob",
        "Metadata:",
        f"  Creation Timestamp:  {start:%Y-%m-%dT%H:%M:%SZ}",
        "  Generation:          1",
        "Spec:",
        "  Pytorch Replica Specs:",
        "    Master:",
        "      Replicas:        1",
        "      Restart Policy:  OnFailure",
        "    Worker:",
        "      Replicas:        2",
        "      Restart Policy:  OnFailure",
        "  Run Policy:",
        "    Clean Pod Policy:  None",
        "    Suspend:           false",
        "Status:",
        f"  Completion Time:  {start + timedelta(seconds=9322):%Y-%m-%dT%H:%M:%SZ}",
        "  Conditions:",
        f"    Last Transition Time:  {start:%Y-%m-%dT%H:%M:%SZ}",
        f"    Last Update Time:      {start:%Y-%m-%dT%H:%M:%SZ}",
        f"    Message:               PyTorchJob {job} is created.",
        "    Reason:                PyTorchJobCreated",
        "    Status:                True",
        "    Type:                  Created",
        f"    Last Transition Time:  {start + timedelta(seconds=29):%Y-%m-%dT%H:%M:%SZ}",
        f"    Last Update Time:      {start + timedelta(seconds=29):%Y-%m-%dT%H:%M:%SZ}",
        f"    Message:               PyTorchJob training/{job} is running.",
        "    Reason:                PyTorchJobRunning",
        "    Status:                False",
        "    Type:                  Running",
        f"    Last Transition Time:  {start + timedelta(seconds=9322):%Y-%m-%dT%H:%M:%SZ}",
        f"    Last Update Time:      {start + timedelta(seconds=9322):%Y-%m-%dT%H:%M:%SZ}",
        f"    Message:               PyTorchJob training/{job} successfully completed.",
        "    Reason:                PyTorchJobSucceeded",
        "    Status:                True",
        "    Type:                  Succeeded",
        "  Replica Statuses:",
        "    Master:",
        "      Selector:   training.kubeflow.org/job-name=bert-pretrain,training.kubeflow.org/operator-name=pytorchjob-"
        "controller,training.kubeflow.org/replica-type=master",
        "      Succeeded:  1",
        "    Worker:",
        "      Succeeded:  2",
        f"  Start Time:  {start:%Y-%m-%dT%H:%M:%SZ}",
        "Events:",
        "  Type     Reason                   Age                From                   Message",
        "  ----     ------                   ----               ----                   -------",
        f"  Normal   SuccessfulCreatePod      155m               pytorchjob-controller  Created pod: {job}-master-0",
        f"  Normal   SuccessfulCreateService  155m               pytorchjob-controller  Created service: {job}-master-0",
        f"  Normal   SuccessfulCreatePod      155m               pytorchjob-controller  Created pod: {job}-worker-0",
        f"  Normal   SuccessfulCreatePod      155m               pytorchjob-controller  Created pod: {job}-worker-1",
        f"  Normal   ExitedWithCode           0s (x3 over 1s)    pytorchjob-controller  Pod: training.{job}-master-0 "
        "exited with code 0",
        f"  Normal   PyTorchJobSucceeded      0s                 pytorchjob-controller  PyTorchJob training/{job} "
        "successfully completed.",
        "",
        f"$ kubectl -n training describe pod {job}-worker-1 | sed -n '/Events:/,$p'",
        "Events:",
        "  Type     Reason            Age                  From               Message",
        "  ----     ------            ----                 ----               -------",
        "  Warning  FailedScheduling  155m                 default-scheduler  0/6 nodes are available: 2 Insufficient "
        "nvidia.com/gpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 2 No "
        "preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.",
        f"  Normal   Scheduled         155m                 default-scheduler  Successfully assigned training/{job}-worker-1 "
        "to gpu-node3",
        "  Warning  FailedMount       155m                 kubelet            MountVolume.SetUp failed for volume "
        '"kube-api-access-pj2nv" : object "training"/"kube-root-ca.crt" not registered',
        "  Normal   Pulled            155m                 kubelet            Container image "
        '"registry.local/nlp/bert-pretrain:2.5.1-cu124" already present on machine',
        "  Normal   Created           155m                 kubelet            Created container init-pytorch",
        "  Normal   Started           155m                 kubelet            Started container init-pytorch",
        "  Normal   Created           154m                 kubelet            Created container pytorch",
        "  Normal   Started           154m                 kubelet            Started container pytorch",
        "",
        f"$ kubectl -n training get pods -l training.kubeflow.org/job-name={job}",
        "NAME                    READY   STATUS      RESTARTS   AGE",
        f"{job}-master-0   0/1     Completed   0          155m",
        f"{job}-worker-0   0/1     Completed   0          155m",
        f"{job}-worker-1   0/1     Completed   0          155m",
    ]
    write(name, "kubectl-describe.txt", d)


# --------------------------------------------------------------------------- main


def main() -> None:
    for child in ROOT.iterdir():
        if child.is_dir() and child.name != "__pycache__":
            shutil.rmtree(child)
    pytorch_ddp_nccl()
    deepspeed_zero3()
    megatron_gpt()
    hf_trainer_accelerate()
    lightning_slurm()
    torchrun_elastic_restart_ok()
    torch_npu_hccl()
    mindspore_ascend()
    verl_vllm_rlhf()
    fsdp_bf16()
    tf_keras_mirrored()
    slurm_multinode()
    k8s_pytorchjob()
    print("\n".join(FOLDERS))


if __name__ == "__main__":
    main()
