"""Assemble the multi-rank Ascend bundles under `bundles/` from real line formats.

Every line below is a line CANN, HCCL, torch_npu, MindSpore, the NPU driver or
`hccn_tool` prints, copied from a published log, the vendor's troubleshooting pages or
the format string in the open-source code (README.md lists the sources per family);
only the values that differ from job to job are filled in: pids, times, ranks, device
ids, server addresses, communicator tags. What is made up is the job: which rank fails,
how, and where each platform puts each file. Run `python3 corpora/ascend/build.py` to
write the bundles again; `tests/test_ascend_corpus.py` checks each verdict against its
`label.json`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "bundles"
T0 = datetime(2025, 10, 24, 11, 16, 0)
TAG = "AllReduce_10.20.0.11%enp189s0f0_60000_0_1761275812718970"
GROUP = "10.20.0.11%enp189s0f0_60000_0_1761275812718970"


@dataclass(frozen=True)
class Rank:
    """One process of the job: its global rank, node, NPU, pid and server address."""

    rank: int
    node: int
    device: int
    pid: int
    ip: str


def ranks(nodes: int = 2, per_node: int = 4) -> list[Rank]:
    return [
        Rank(n * per_node + d, n, d, 40100 + 1000 * n + 17 * d, f"10.20.0.{11 + n}")
        for n in range(nodes)
        for d in range(per_node)
    ]


def plog_time(t: datetime) -> str:
    """CANN's stamp: 2025-10-24-11:18:29.597.044"""
    return (
        t.strftime("%Y-%m-%d-%H:%M:%S.") + f"{t.microsecond // 1000:03d}.{t.microsecond % 1000:03d}"
    )


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# --- the lines ---------------------------------------------------------------------


def hccl(level: str, r: Rank, t: float, where: str, msg: str, tid: int | None = None) -> str:
    return f"[{level}] HCCL({r.pid},python):{plog_time(at(t))} [{where}] [{tid or r.pid}]{msg}"


def comm_init(r: Rank, world: int, t: float = 5.0) -> list[str]:
    """run/plog: the communicator creation HCCL logs by default."""
    lines = []
    if r.rank == 0:
        lines.append(
            hccl(
                "INFO",
                r,
                t - 0.01,
                "op_base.cc:858",
                f"Entry-HcclGetRootInfo:rootInfo[0xaaaae85c79a0], deviceLogicId[{r.device}]",
            )
        )
    lines.append(
        hccl(
            "INFO",
            r,
            t + 0.005 * r.rank,
            "op_base.cc:1293",
            f"Entry-HcclCommInitRootInfoInner:ranks[{world}], rank[{r.rank}], rootinfo: host "
            f"ip[10.20.0.11] port[60000] nicDeploy[1] identifier[{GROUP}], deviceLogicId[{r.device}]",
        )
    )
    lines.append(
        hccl(
            "INFO",
            r,
            t + 0.006 * r.rank,
            "sal.cc:312",
            f"get host ip success. host ifname[enp189s0f0] ip[{r.ip}]",
        )
    )
    return lines


def task_failed(r: Rank, t: float, world: int, index: int = 21) -> list[str]:
    """debug/plog: HCCL's task-exception report of a notify wait that timed out."""
    return [
        hccl(
            "ERROR",
            r,
            t,
            "task_exception_handler.cc:908",
            f"[TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], "
            f"taskID[21], tag[{TAG}], AlgType(level 0-1-2):[fullmesh-ring-NHR].",
        ),
        hccl(
            "ERROR",
            r,
            t + 0.00001,
            "task_exception_handler.cc:771",
            f"[TaskExecStage][Timeout][Host]Task run failed, groupRank information is "
            f"group:[{GROUP}], user define information[], rankSize[{world}], rankId[{r.rank}].",
        ),
        hccl(
            "ERROR",
            r,
            t + 0.00004,
            "task_exception_handler.cc:704",
            f"[TaskExecStage][Timeout][Host]Task run failed, opData information is "
            f"timeStamp:[{plog_time(at(t - 94))}], deviceId[{r.device}], index[{index}], count[256], "
            f"reduceType[sum], src[0x12c0c0013000], dst[0x12c0c0014000], dataType[float32].",
        ),
    ]


def ei0002(r: Rank, t: float, remote: int | str) -> str:
    """The screen form torch_npu prints (EI0002), with the remote rank HCCL names."""
    return (
        f"[rank{r.rank}]: EI0002: [PID: {r.pid}] {plog_time(at(t))} The wait execution of the "
        f"Notify register times out. Reason: The Notify register has not received the Notify "
        f"record from remote rank [{remote}].base information: [streamID:[27], taskID[10], "
        f"taskType[Notify Wait], tag[{TAG}].] task information: [notify id:[0x0000000100000000], "
        f"stage:[ffffffff], remote rank:[{remote}]."
    )


def heartbeat_lost(r: Rank, t: float, lost: Rank, by: Rank) -> str:
    """debug/plog: the cluster heartbeat's verdict, printed with the timeout."""
    arrival = at(t - 40).strftime("%a %b %d %H:%M:%S %Y")
    return (
        f"[ERROR]HCCL({r.pid},python):{plog_time(at(t))}[task_exception_handler.cc:610][{r.pid}]"
        f"[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[{lost.ip}/{lost.device}], "
        f"Arrival Time:[{arrival}], Discoverer:[{by.ip}/{by.device}], ExceptionType:[Heartbeat Lost "
        f"Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected"
    )


def heartbeat_event(r: Rank, t: float, crimer: Rank, by: Rank, status: str) -> str:
    """run/plog: a heartbeat event as each rank receives it."""
    return hccl(
        "INFO",
        r,
        t,
        "heartbeat.cc:951",
        f"[TaskExecStage][HeartbeatAbnormal]local rank [{r.ip}/{r.device}]: crimer rank "
        f"[{crimer.ip}/{crimer.device}] status[{status}] by informer rank [{by.ip}/{by.device}]",
        tid=r.pid + 2000,
    )


def stuck(r: Rank, t: float, culprit: Rank) -> str:
    arrival = at(t - 110).strftime("%a %b %d %H:%M:%S %Y")
    return (
        f"[ERROR]HCCL({r.pid},python):{plog_time(at(t))}[task_exception_handler.cc:610] [{r.pid}]"
        f"[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[{culprit.ip}/"
        f"{culprit.device}], Arrival Time:[{arrival}], ExceptionType:[Stuck Occurred], Possible "
        f"Reason:1.Host process is stuck, 2.Device task is stuck"
    )


def step(r: Rank, i: int, t: float) -> str:
    """A Megatron/MindSpeed iteration line (printed by the last pipeline rank; here by
    every rank's screen log, as MindSpeed's per-rank logs do)."""
    stamp = at(t).strftime("%Y-%m-%d %H:%M:%S")
    return (
        f" [{stamp}] iteration {i:>8}/   10000 | consumed samples:  {i * 256:>10} | elapsed time "
        f"per iteration (ms): 1450.2 | learning rate: 2.999E-04 | global batch size:   256 | "
        f"lm loss: 3.412345E+00 | loss scale: 1.0 | grad norm: 0.812 | number of skipped "
        f"iterations:   0 | number of nan iterations:   0 |"
    )


def steps(r: Rank, upto: int = 60, skew: float = 0.0) -> list[str]:
    """Iterations every 10 up to `upto`, on a clock `skew` seconds off the others'."""
    return [step(r, i, 20 + i * 1.45 + skew) for i in range(10, upto + 1, 10)]


def transport_timeout(r: Rank, t: float, remote: Rank) -> str:
    return hccl(
        "ERROR",
        r,
        t,
        "transport_manager.cc:886",
        f"[InitChannelStage][Timeout]Transport init error! createLink para:rank[{r.rank}]-"
        f"localUserrank[{r.rank}]-localIpAddr[{r.ip}/{r.device}], remoteRank[{remote.rank}]-"
        f"remoteUserrank[{remote.rank}]-remoteIpAddr[{remote.ip}/{remote.device}], machineType[1], "
        f"linkMode[1], isUsedRdma[0], tag[{TAG}]",
        tid=r.pid + 57,
    )


def link_establish_timeout(r: Rank, t: float) -> str:
    return hccl(
        "ERROR",
        r,
        t,
        "hccl_socket_manager.cc:778",
        f"[Wait][LinkEstablish]wait socket establish timeout, role[1] rank[{r.rank}] timeout[120]",
        tid=r.pid + 57,
    )


def roce_cqe(r: Rank, t: float, peer: Rank) -> list[str]:
    return [
        f"[ERROR] ROCE({r.pid},python):{plog_time(at(t))} [hns_roce_lite.c:630]"
        f"hns_roce_lite_handle_error_cqe(630) : error cqe status: 0x15",
        hccl(
            "ERROR",
            r,
            t + 0.83,
            "heartbeat.cc:1229",
            f"[TaskExecStage][HeartbeatAbnormal][ROCE CQE ERROR]cqe error status[12], time:["
            f"{at(t).strftime('%Y-%m-%d %H:%M:%S.%f')}], localInfo{{server[{r.ip}],deviceId[{r.ip}],"
            f"deviceIp[10.30.0.{r.rank + 1}]}}, remoteIP{{server[{peer.ip}],deviceId[{peer.ip}],"
            f"deviceIp[10.30.0.{peer.rank + 1}]}}",
            tid=r.pid + 566,
        ),
    ]


def ei0013(r: Rank, t: float, peer: Rank) -> str:
    return (
        f"[rank{r.rank}]: [PID: {r.pid}] {plog_time(at(t))} Execution Error ROCE CQE(EI0013): An "
        f"error CQE occurred during operator execution. Local information: server {r.ip}, device "
        f"ID {r.device}, device IP 10.30.0.{r.rank + 1}. Peer information: server {peer.ip}, "
        f"device ID {peer.device}, device IP 10.30.0.{peer.rank + 1}."
    )


def link_stat(device: int, down: datetime, now: datetime) -> list[str]:
    """`hccn_tool -i N -link_stat -g` as a node's collection script saves it."""
    p = f"[devid {device}]"

    def ctime(t: datetime) -> str:
        return t.strftime("%a %b ") + f"{t.day:>2}" + t.strftime(" %H:%M:%S %Y")

    return [
        f"{p}current time        : {ctime(now)}",
        f"{p}link up count       : 2",
        f"{p}link down count     : 1",
        f"{p}link change records :",
        f"{p}    {ctime(down + timedelta(seconds=1))}    LINK UP",
        f"{p}    {ctime(down)}    LINK DOWN",
        f"{p}    {ctime(down - timedelta(days=3))}    LINK UP",
    ]


def screen_teardown(r: Rank, t: float) -> list[str]:
    """torch_npu after an HCCL failure: the error code and the teardown."""
    stamp = at(t).strftime("%m%d %H:%M:%S")
    return [
        f"[rank{r.rank}]: [ERROR] {at(t).strftime('%Y-%m-%d-%H:%M:%S')} (PID:{r.pid}, Device:{r.device}, "
        f"RankID:{r.rank}) ERR02200 DIST call hccl api failed.",
        f"[rank{r.rank}]:[E{stamp}.428092542 compiler_depend.ts:628] Some HCCL operations have "
        f"failed or timed out. Due to the asynchronous nature of ASCEND kernels, subsequent NPU "
        f"operations might run on corrupted/incomplete data.",
    ]


def watchdog(r: Rank, t: float, seq: int) -> str:
    stamp = at(t).strftime("%m%d %H:%M:%S")
    return (
        f"[rank{r.rank}]:[E{stamp}.428029551 compiler_depend.ts:574] [Rank {r.rank}] Watchdog "
        f"caught collective operation timeout: WorkHCCL(SeqNum={seq}, OpType=ALLREDUCE, "
        f"Timeout(ms)=1800000) ran for 1800185 milliseconds before timing out."
    )


# --- layouts -----------------------------------------------------------------------


@dataclass
class Job:
    """A bundle being written: per rank its screen, plog (run and debug) and device
    lines, per node its own files; `layout` puts them where a platform does."""

    world: list[Rank]
    layout: str  # "rank-dirs" | "node-plog" | "flat"
    screen: dict[int, list[str]] = field(default_factory=dict)
    run: dict[int, list[str]] = field(default_factory=dict)
    debug: dict[int, list[str]] = field(default_factory=dict)
    device: dict[int, list[str]] = field(default_factory=dict)
    node_files: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for r in self.world:
            self.screen[r.rank] = steps(r)
            self.run[r.rank] = comm_init(r, len(self.world))
            self.debug[r.rank] = []
            self.device[r.rank] = []

    def r(self, rank: int) -> Rank:
        return self.world[rank]

    def files(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        stamp = "20251024111600000"
        for r in self.world:
            w = f"worker-{r.node}"
            plog = f"plog-{r.pid}_{stamp}.log"
            dev = f"device-{r.pid}_{stamp}.log"
            if self.layout == "rank-dirs":  # rank_N/debug/plog/ per process
                base = f"{w}/rank_{r.rank}"
                out[f"{base}/screen.log"] = self.screen[r.rank]
                out[f"{base}/run/plog/{plog}"] = self.run[r.rank]
                out[f"{base}/debug/plog/{plog}"] = self.debug[r.rank]
                out[f"{base}/debug/device-{r.device}/{dev}"] = self.device[r.rank]
            elif self.layout == "node-plog":  # one plog folder per node, a file per process
                out[f"{w}/train_rank{r.rank}.log"] = self.screen[r.rank]
                out[f"{w}/ascend/log/run/plog/{plog}"] = self.run[r.rank]
                out[f"{w}/ascend/log/debug/plog/{plog}"] = self.debug[r.rank]
                out[f"{w}/ascend/log/debug/device-{r.device}/{dev}"] = self.device[r.rank]
            else:  # flat: screen logs per rank, the plog tree beside them
                out[f"rank{r.rank}.log"] = self.screen[r.rank]
                out[f"{w}/plog/{plog}"] = self.run[r.rank] + self.debug[r.rank]
                out[f"{w}/device-{r.device}/{dev}"] = self.device[r.rank]
        for name, lines in self.node_files.items():
            out[name] = lines
        return {k: v for k, v in out.items() if v}


# --- the scenarios -----------------------------------------------------------------

Scenario = Callable[[], tuple[Job, dict[str, object]]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(fn: Scenario) -> Scenario:
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


def _label(category: str, rank: int | None, job: Job, why: str) -> dict[str, object]:
    r = job.r(rank) if rank is not None else None
    return {
        "category": category,
        "rank": rank,
        "device": str(r.device) if r else None,
        "host": f"worker-{r.node}" if r else None,
        "why": why,
    }


def _ring_waits(job: Job, culprit: int, t: float) -> None:
    """Every rank but the culprit times out in a notify wait on its ring predecessor."""
    n = len(job.world)
    for r in job.world:
        if r.rank == culprit:
            continue
        prev = (r.rank - 1) % n
        job.screen[r.rank] += [
            ei0002(r, t + 0.3 * r.rank, prev),
            *screen_teardown(r, t + 1 + r.rank),
        ]
        job.debug[r.rank] += task_failed(r, t + 0.3 * r.rank, n)


@scenario
def ring_rank_never_arrives() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    culprit = 5
    job.screen[culprit] = steps(job.r(culprit), upto=40)  # stopped, no word
    _ring_waits(job, culprit, 1900)
    return job, _label(
        "hang",
        culprit,
        job,
        "rank 5 stops printing after iteration 40 while the others wait for it "
        "(taxonomy: a rank that stopped while the others waited is a hang)",
    )


@scenario
def ring_lost_logs() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    culprit = 6
    _ring_waits(job, culprit, 1900)
    job.screen[culprit] = []
    job.run[culprit] = comm_init(job.r(culprit), 8)
    return job, _label(
        "collective_timeout",
        culprit,
        job,
        "rank 6 left only its communicator creation; its peers wait for it",
    )


@scenario
def heartbeat_lost_located() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    culprit = job.r(2)
    for r in job.world:
        if r.rank == culprit.rank:
            continue
        job.screen[r.rank] += [ei0002(r, 1900 + 0.2 * r.rank, "unknown")]
        job.debug[r.rank] += [
            *task_failed(r, 1900 + 0.2 * r.rank, 8),
            heartbeat_lost(r, 1900.01 + 0.2 * r.rank, culprit, job.r(3)),
        ]
    job.screen[culprit.rank] = steps(culprit, upto=30)
    return job, _label(
        "hang",
        2,
        job,
        "rank 2 stopped after iteration 30; every survivor's plog carries the heartbeat "
        "verdict on 10.20.0.11/2",
    )


@scenario
def heartbeat_run_log_lost() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    culprit = job.r(7)
    for r in job.world:
        if r.rank != culprit.rank:
            job.run[r.rank].append(heartbeat_event(r, 1850 + r.rank, culprit, job.r(6), "LOST"))
            job.screen[r.rank] += [ei0002(r, 1900 + 0.2 * r.rank, "unknown")]
    job.screen[culprit.rank] = steps(culprit, upto=20)
    return job, _label(
        "hang",
        7,
        job,
        "rank 7 stopped after iteration 20; the run log's heartbeat events name 10.20.0.12/3 lost",
    )


@scenario
def stuck_occurred() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "flat")
    culprit = job.r(1)
    for r in job.world:
        if r.rank != culprit.rank:
            job.debug[r.rank] += [
                *task_failed(r, 1900 + r.rank, 8),
                stuck(r, 1900.5 + r.rank, culprit),
            ]
    return job, _label("hang", 1, job, "HCCL's heartbeat found rank 1 (10.20.0.11/1) stuck")


@scenario
def stuck_run_log() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    culprit = job.r(4)
    for r in job.world:
        if r.rank != culprit.rank:
            job.run[r.rank].append(heartbeat_event(r, 1700 + r.rank, culprit, job.r(5), "STUCK"))
            job.screen[r.rank] += [watchdog(r, 1900 + r.rank, 196)]
    return job, _label("hang", 4, job, "run-log heartbeat events: crimer 10.20.0.12/0 status STUCK")


@scenario
def npu_oom_one_rank() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    r = job.r(5)
    job.screen[5] += [
        "[rank5]: Traceback (most recent call last):",
        '[rank5]:   File "/job/code/pretrain_gpt.py", line 212, in forward_step',
        "[rank5]:     output_tensor = model(tokens, position_ids, attention_mask, labels=labels)",
        f"[rank5]: torch.OutOfMemoryError: NPU out of memory. Tried to allocate 2.00 GiB (NPU {r.device}; "
        "60.96 GiB total capacity; 57.55 GiB already allocated; 57.55 GiB current active; 1.32 GiB free; "
        "58.39 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
        "max_split_size_mb to avoid fragmentation.",
    ]
    _ring_waits(job, 5, 1900)
    return job, _label(
        "device_oom", 5, job, "rank 5 ran out of NPU memory; the others' waits are echoes"
    )


@scenario
def hbm_uce_device_log() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    r = job.r(2)
    job.device[2] += [
        f"[ERROR] RUNTIME({r.pid},python):{plog_time(at(1200))} [stars_engine.cc:1520]{r.pid} "
        f"ProcHBMRas:HBM MULTI BIT ECC, Uncorrectable ECC, device_id={r.device}, event_id=0x80e01801, "
        "time us=67672363666.[FUNC:ProcHBMRas][FILE:stars_engine.cc]",
    ]
    job.screen[2] += ["[rank2]: RuntimeError: NPU function error: UCE ERROR., error code is 507053"]
    _ring_waits(job, 2, 3100)
    return job, _label("device_fault", 2, job, "HBM uncorrectable ECC on NPU 2 of worker-0")


@scenario
def device_heartbeat_lost() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    job.screen[6] += [
        "[rank6]: [W430 23:39:01.305254567 NPUStream.cpp:577] Warning: NPU warning, error code is 507010[Error]: ",
        "[rank6]: [Error]: The task scheduler loses the heartbeat. ",
        f"[rank6]:         Device[{job.r(6).device}] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]",
    ]
    _ring_waits(job, 6, 1950)
    return job, _label(
        "device_fault", 6, job, "NPU 2 of worker-1 lost its task-scheduler heartbeat"
    )


@scenario
def roce_link_down_event() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    victim, peer = job.r(4), job.r(0)
    job.device[4] += [
        f"[ERROR] KERNEL(3551,sklogd):{plog_time(at(1500))} [klogd.c:242][583733.716915] event_id=0x81078603",
    ]
    job.screen[4] += [ei0013(victim, 1502, peer)]
    job.debug[4] += roce_cqe(victim, 1501.5, peer)
    job.screen[0] += [ei0013(peer, 1503, victim)]
    return job, _label("network_fault", 4, job, "NPU 0 of worker-1 lost its RoCE link (0x81078603)")


@scenario
def link_stat_down() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    victim, peer = job.r(7), job.r(3)
    job.node_files["worker-1/hccn_tool/link_stat_device3.txt"] = link_stat(3, at(1600), at(4000))
    job.debug[7] += roce_cqe(victim, 1602, peer)
    job.screen[7] += [ei0013(victim, 1603, peer)]
    job.screen[3] += [ei0013(peer, 1603.5, victim)]
    return job, _label(
        "network_fault", 7, job, "hccn_tool shows NPU 3 of worker-1 LINK DOWN, then the CQE"
    )


@scenario
def transport_init_peer_late() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    late = job.r(3)
    for r in job.world:
        job.screen[r.rank] = []
    for r in job.world:
        if r.rank == late.rank:
            continue
        job.debug[r.rank] += [
            link_establish_timeout(r, 130 + r.rank * 0.1),
            transport_timeout(r, 130.2 + r.rank * 0.1, late),
        ]
    return job, _label(
        "collective_timeout", 3, job, "every rank's link to rank 3 timed out at init"
    )


@scenario
def topo_detect_missing_agents() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "flat")
    root = job.r(0)
    for r in job.world:
        job.screen[r.rank] = []
    job.debug[0] += [
        hccl(
            "ERROR",
            root,
            125,
            "topoinfo_exchange_server.cc:314",
            "[InitGroupStage][RanktableDetect]topo exchange server get socket timeout! timeout[120 s]",
            tid=root.pid + 281,
        ),
    ]
    for r in job.world:
        if r.rank != 5:
            job.debug[r.rank].append(
                hccl(
                    "ERROR",
                    r,
                    125.01,
                    "topoinfo_exchange_base.cc:145",
                    "[InitGroupStage][RanktableDetect] TopoDetect ERROR occur !!! fault_type[1], "
                    'fault_info["Failed to connect agent[5,]"]',
                )
            )
    job.run[5] = comm_init(job.r(5), 8, t=205.0)  # started 200 s after the others
    return job, _label(
        "collective_timeout",
        5,
        job,
        "rank 5 created its communicator 200 s late; the others name it missing",
    )


@scenario
def sdma_error_remote() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    r = job.r(1)
    job.screen[1] += [
        f"[rank1]: [PID: {r.pid}] {plog_time(at(900))} Execution_Error_SDMA(EI0012): SDMA memory copy "
        "task exception occurred. Remote rank: [2]. Base information: [streamID:[351], taskID[5], "
        "taskType[Memcpy], tag[], AlgType(level 0-1-2):[null-null-null].]. Task information: "
        "[src:[0x12c180000000], dst:[0x12c041800000], size:[0x80], notify id:[0xffffffffffffffff], "
        "link type:[HCCS], remote rank:[2]].",
    ]
    _ring_waits(job, 1, 2800)
    return job, _label(
        "network_fault", 1, job, "an SDMA copy over HCCS from rank 1 to rank 2 failed"
    )


@scenario
def aicore_error() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    r = job.r(0)
    job.screen[0] += [
        f"[rank0]: EZ9999[PID: {r.pid}] {plog_time(at(600))} (EZ9999):  The error from device(chipId:0, "
        "dieId:0), serial number is 8, there is an aicore error exception, core id is 0, error code = 95, "
        "dump info: pc start: 0x100040800008, current: 0x10004080016c",
    ]
    _ring_waits(job, 0, 2500)
    return job, _label(
        "device_fault", 0, job, "an AI Core kernel faulted on rank 0 (an aicore device error)"
    )


@scenario
def aicpu_op_timeout() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    job.screen[7] += [
        "[rank7]: RuntimeError: Execution_Error_AICPU_Operator_Timeout(E30008): AI CPU operator execution timed out."
    ]
    _ring_waits(job, 7, 2500)
    return job, _label("user_code_error", 7, job, "an AI CPU operator timed out on rank 7")


@scenario
def hal_mem_alloc() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    r = job.r(3)
    job.debug[3] += [
        f"[ERROR] RUNTIME({r.pid},python):{plog_time(at(700))} [npu_driver.cc:1534]{r.pid + 3} "
        "DevMemAllocHugePageManaged:[drv api] halMemAlloc failed:size=2122688(bytes), type=2, moduleId=3, "
        f"drvFlag=216172782123369479, drvRetCode=6, device_id {r.device}, ErrCode=207001, desc=[driver "
        "error:out of memory], InnerCode=0x7020016",
    ]
    _ring_waits(job, 3, 2500)
    return job, _label("device_oom", 3, job, "the NPU driver could not allocate memory for rank 3")


@scenario
def link_error_reason() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "flat")
    job.screen[6] += [
        "[rank6]:         rtStreamSynchronize execute failed, reason=[device network link error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]"
    ]
    for r in job.world:
        if r.rank != 6:
            job.screen[r.rank] += [
                f"[rank{r.rank}]:         rtStreamSynchronize execute failed, reason=[suspect remote error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]"
            ]
    return job, _label(
        "network_fault", 6, job, "rank 6's runtime reports the device network link error"
    )


@scenario
def lagging_seq() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    for r in job.world:
        job.screen[r.rank] += [watchdog(r, 1900 + r.rank * 0.1, 195 if r.rank == 2 else 196)]
    return job, _label("collective_timeout", 2, job, "rank 2's watchdog is one collective behind")


@scenario
def waits_for_each_other() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(1, 4), "rank-dirs")
    pairs = {0: 1, 1: 2, 2: 1, 3: 2}
    for r in job.world:
        job.screen[r.rank] += [
            ei0002(r, 1900 + {1: 0, 2: 0.4, 0: 1, 3: 1.2}[r.rank], pairs[r.rank])
        ]
    return job, _label(
        "collective_timeout", 1, job, "ranks 1 and 2 wait for each other; rank 1 first"
    )


@scenario
def inconsistent_args() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(1, 4), "rank-dirs")
    job.screen[2] += [
        f"[rank2]: EI0005: The arguments for collective communication are inconsistent between ranks: tag [{TAG}], parameter [count], local [9556480], remote [9555712]"
    ]
    _ring_waits(job, 2, 1900)
    return job, _label("user_code_error", 2, job, "rank 2 called the collective with another count")


@scenario
def ecc_bbox_event_only() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    r = job.r(5)
    job.device[5] += [
        f"[ERROR] KERNEL(3551,sklogd):{plog_time(at(1000))} [klogd.c:242][583711.100201] Add event_id to bbox. "
        f"(dev_id={r.device}; event_id=0x80e01801;bbox_code=0xa8028802)",
    ]
    _ring_waits(job, 5, 2900)
    return job, _label(
        "device_fault", 5, job, "the NPU's black box records an HBM UCE on device 1 of worker-1"
    )


@scenario
def clean_noisy_plog() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    for r in job.world:
        job.run[r.rank] += [
            hccl(
                "INFO",
                r,
                600 + i,
                "op_base.cc:1000",
                f"Entry-HcclAllReduce: tag[{TAG}], sendBuf[0x12c0c0013000], recvBuf[0x12c0c0014000], "
                f"count[256], dataType[float32], op[sum], streamId[2]",
            )
            for i in range(3)
        ]
        job.screen[r.rank] = steps(r, upto=200)
    return job, {
        "category": "none",
        "rank": None,
        "device": None,
        "host": None,
        "why": "a healthy run: communicator creation, collective entries, steady iterations",
    }


@scenario
def clean_node_plog() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    for r in job.world:
        job.screen[r.rank] = steps(r, upto=200)
    return job, {
        "category": "none",
        "rank": None,
        "device": None,
        "host": None,
        "why": "a healthy run with nothing but chatter",
    }


@scenario
def clean_old_link_flap() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "rank-dirs")
    for r in job.world:
        job.screen[r.rank] = steps(r, upto=200)
    job.node_files["worker-1/hccn_tool/link_stat_device2.txt"] = link_stat(
        2, at(-3 * 86400), at(400)
    )
    return job, {
        "category": "none",
        "rank": None,
        "device": None,
        "host": None,
        "why": "a healthy run; the node's link history shows a flap three days earlier",
    }


def link_error_info(r: Rank, t: float, peer: Rank) -> list[str]:
    """The LINK_ERROR_INFO table HCCL prints after a link-setup timeout."""
    where = "hccl_socket_manager.cc"
    tid = r.pid + 90
    return [
        link_establish_timeout(r, t),
        hccl(
            "ERROR",
            r,
            t + 0.0008,
            f"{where}:880",
            "[Wait][LinksEstablishCompleted] is failed. ret[9].",
            tid,
        ),
        hccl(
            "ERROR",
            r,
            t + 0.0009,
            f"{where}:642",
            " _________________________LINK_ERROR_INFO___________________________",
            tid,
        ),
        hccl("ERROR", r, t + 0.001, f"{where}:643", f" | comm error, device[{r.device}]", tid),
        hccl(
            "ERROR",
            r,
            t + 0.0011,
            f"{where}:645",
            " | dest_ip(user_rank) | dest_port | src_ip(user_rank) | src_port | MyRole | Status | TlsStatus |",
            tid,
        ),
        hccl(
            "ERROR",
            r,
            t + 0.0012,
            f"{where}:599",
            f" | {peer.ip}({peer.rank}) | 16666 | {r.ip}({r.rank}) | 0 | server | time out | DISABLE |",
            tid,
        ),
    ]


@scenario
def link_error_info_table() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "node-plog")
    late = job.r(4)
    for r in job.world:
        job.screen[r.rank] = []
        if r.rank != late.rank:
            job.debug[r.rank] += link_error_info(r, 130 + 0.05 * r.rank, late)
    return job, _label(
        "collective_timeout", 4, job, "every LINK_ERROR_INFO table names 10.20.0.12(4) timed out"
    )


@scenario
def skewed_clocks_first_oom() -> tuple[Job, dict[str, object]]:
    """worker-1's clock is 120 s behind: rank 6's OOM prints an earlier time than rank
    2's, which came first. The iterations, printed at the same moments on every rank,
    show the skew."""
    job = Job(ranks(), "rank-dirs")
    for r in job.world:
        skew = -120.0 if r.node == 1 else 0.0
        job.screen[r.rank] = steps(r, upto=200, skew=skew)
    for rank, t in ((2, 330.0), (6, 345.0 - 120.0)):
        r = job.r(rank)
        job.screen[rank].append(
            f"[rank{rank}]: [PID: {r.pid}] {plog_time(at(t))} Memory_Allocation_Failure(EL0004): "
            "Failed to allocate memory."
        )
    return job, _label(
        "device_oom", 2, job, "rank 2's allocation failed first once the clocks are aligned"
    )


@scenario
def ring_rank_never_arrives_flat() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "flat")
    culprit = 3
    job.screen[culprit] = steps(job.r(culprit), upto=30)
    _ring_waits(job, culprit, 2000)
    return job, _label("hang", culprit, job, "flat layout: rank 3 stopped; the ring waits on it")


@scenario
def heartbeat_and_remote_rank() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "flat")
    culprit = job.r(6)
    for r in job.world:
        if r.rank == culprit.rank:
            continue
        job.screen[r.rank] += [
            ei0002(r, 1900 + 0.2 * r.rank, 6 if r.rank == 7 else (r.rank - 1) % 8)
        ]
        job.debug[r.rank] += [heartbeat_lost(r, 1900.1 + 0.2 * r.rank, culprit, job.r(7))]
    job.screen[culprit.rank] = []
    return job, _label(
        "collective_timeout", 6, job, "rank 7 waits for 6, the heartbeat lost 10.20.0.12/2"
    )


@scenario
def kbox_multibit_ecc() -> tuple[Job, dict[str, object]]:
    """The NPU's black box (hisi_logs) records the ECC; the rank only sees its task fail."""
    job = Job(ranks(), "rank-dirs")
    r = job.r(1)
    job.node_files[
        f"worker-0/hisi_logs/device-{r.device}/20251024113000-271713000/bbox/kbox.txt"
    ] = [
        "[2454.830692] {6}[Hardware Error] Hardware error from APEI Generic Hardware Error Source: 0",
        "[2454.830693] {6}[Hardware Error]event severity: recoverable",
        "[2454.830699] {6}[Hardware Error]  node: 2 card: 259 module: 51 rank: 1 bank: 10 row: 30691  column: 56",
        "[2454.830701] {6}[Hardware Error]  error_type: 3, multi-bit ECC",
    ]
    job.screen[1] += [
        f"[rank1]: [ERROR] {at(1200).strftime('%Y-%m-%d-%H:%M:%S')} (PID:{r.pid}, Device:{r.device}, "
        "RankID:1) ERR00100 PTA call acl api failed",
    ]
    _ring_waits(job, 1, 3100)
    return job, _label(
        "device_fault", 1, job, "kbox.txt of NPU 1 on worker-0 records a multi-bit ECC"
    )


@scenario
def memory_async_copy_failed() -> tuple[Job, dict[str, object]]:
    job = Job(ranks(), "flat")
    r = job.r(6)
    job.screen[6] += [
        f"[rank6]: EI9999: {plog_time(at(800))}  Memory async copy failed, device_id={r.device}, "
        "stream_id=3, task_id=703, flip_num=0, copy_type=2, memcpy_type=0, copy_data_type=0, "
        "length=40960[FUNC:GetError][FILE:stream.cc][LINE:1082]",
        "[rank6]:         rtStreamSynchronizeWithTimeout execute failed, reason=[sdma copy error]"
        "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
    ]
    _ring_waits(job, 6, 2700)
    return job, _label("device_fault", 6, job, "an SDMA copy failed on NPU 2 of worker-1")


@scenario
def fault_manager_event() -> tuple[Job, dict[str, object]]:
    """The device-os log's fault manager reports HBM patrol multi-bit ECC (0x80E01809)."""
    job = Job(ranks(), "node-plog")
    job.device[3] += [
        f"[EVENT] FM(-1,null):{plog_time(at(950))} [fault_manager] event_id: [0x80E01809], "
        "event_type: [fault], severity: [critical], device_id: [3], assertion: [occur]"
    ]
    job.screen[3] += ["[rank3]: RuntimeError: NPU function error: UCE ERROR., error code is 507053"]
    _ring_waits(job, 3, 2800)
    return job, _label(
        "device_fault", 3, job, "the fault manager of NPU 3 on worker-0 reports 0x80E01809"
    )


def key_info(r: Rank, world: int, phy: int) -> list[str]:
    """run/plog (CANN 8.x): the communicator's and this rank's key info, with the
    physical NPU id the heartbeat names ranks by."""
    return [
        hccl(
            "INFO",
            r,
            5.2,
            "hccl_communicator_attrs.cc:327",
            f"[Communicator Key Info]identifier[{GROUP}] rankSize[{world}] serverNum[2] moduleNum[2] "
            "superPodNum[0] multiModuleDiffDeviceNumMode[0] multiSuperPodDiffServerNumMode[0]",
        ),
        hccl(
            "INFO",
            r,
            5.2001,
            "hccl_communicator_attrs.cc:330",
            f"[LocalRank Key Info]userRank[{r.rank}] hostIp[{r.ip}] devicePhyId[{phy}] server[{r.ip}] "
            "deviceIp[0.0.0.0] superPodId[0] useSuperPodMode[0] isStandardCard[0]",
        ),
    ]


@scenario
def heartbeat_physical_ids() -> tuple[Job, dict[str, object]]:
    """worker-1's container maps NPUs 4-7 as 0-3: HCCL's heartbeat names the physical
    id, the rank knows its logical one."""
    job = Job(ranks(), "rank-dirs")
    for r in job.world:
        job.run[r.rank] += key_info(r, 8, r.device + 4 * r.node)
    culprit = job.r(6)  # logical NPU 2, physical NPU 6 of worker-1
    lost = Rank(culprit.rank, culprit.node, culprit.device + 4, culprit.pid, culprit.ip)
    for r in job.world:
        if r.rank != culprit.rank:
            job.screen[r.rank] += [ei0002(r, 1900 + 0.2 * r.rank, "unknown")]
            job.debug[r.rank] += [heartbeat_lost(r, 1900.1 + 0.2 * r.rank, lost, job.r(7))]
    job.screen[culprit.rank] = []
    return job, _label(
        "network_fault",
        6,
        job,
        "the heartbeat names 10.20.0.12/6, physical NPU 6: logical NPU 2, rank 6",
    )


@scenario
def root_lists_failed_agents() -> tuple[Job, dict[str, object]]:
    """2024-generation CANN: the root lists the agents that never connected; the agents
    that did report their socket waits and the failed topology detection."""
    job = Job(ranks(), "node-plog")
    root = job.r(0)
    for r in job.world:
        job.screen[r.rank] = []
    job.run[7] = []  # never created its communicator
    job.debug[0] += [
        hccl(
            "ERROR",
            root,
            125,
            "topoinfo_exchange_server.cc:91",
            "[Get][Connection]topo exchange server get socket timeout! timeout[120 s]",
            tid=root.pid + 20,
        ),
        hccl(
            "ERROR",
            root,
            125.4,
            "topoinfo_exchange_server.cc:115",
            "[TopoInfoExchangeServer][Setup]Broadcast Rank Basic Infos failed\uff0cconnectFailedAgentIdList[7,]",
            tid=root.pid + 20,
        ),
    ]
    for r in job.world[1:7]:
        job.debug[r.rank] += [
            hccl(
                "ERROR",
                r,
                128 + 0.01 * r.rank,
                "adapter_hccp.cc:872",
                "[Recv][RaSocket]errNo[0x0000000005000013] Wait timeout for sockets recv, "
                "data[0xffffe0d3837c], size[4], recvSize[0], The most common cause is that the "
                "firewall is incorrectly configured. Check the firewall configuration or try to "
                "disable the firewall.",
            ),
            hccl(
                "ERROR",
                r,
                128.1 + 0.01 * r.rank,
                "op_base.cc:434",
                "[Init][CommRootInfo]errNo[0x0000000005000004] setup topo detect error",
            ),
        ]
    return job, {
        "category": "collective_timeout",
        "rank": 7,
        "device": None,
        "host": None,
        "why": "the root lists rank 7 as never connected; rank 7 left no log at all",
    }


@scenario
def aicpu_notify_wait_device_log() -> tuple[Job, dict[str, object]]:
    """The device-side AICPU scheduler reports its notify wait with the remote rank."""
    job = Job(ranks(1, 4), "rank-dirs")
    culprit = 2
    job.screen[culprit] = steps(job.r(culprit), upto=20)
    for r in job.world:
        if r.rank == culprit:
            continue
        job.device[r.rank] += [
            f"[ERROR] HCCL(5375,aicpu_scheduler):{plog_time(at(1900 + r.rank))} [aicpu_communicator.cc:3083] "
            f"[5792][TaskException]base information is streamId:149, sqid:153, head:1488, tail:136, type:NOTIFY "
            f"WAIT, localRank:{r.rank}, remoteRank:{culprit}, taskId:26064, notifyId:760, addr1High:0x0, "
            "addr1Low:0x0, addr2High:0x0, addr2Low:0x0.",
        ]
    return job, _label(
        "hang", culprit, job, "rank 2 stopped; the AICPU notify waits of 0, 1, 3 name it"
    )


def main(out: Path = OUT) -> None:
    if out.exists():
        shutil.rmtree(out)
    for name, make in SCENARIOS.items():
        job, label = make()
        root = out / name
        for rel, lines in job.files().items():
            p = root / "logs" / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("\n".join(lines) + "\n")
        (root / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    print(f"{len(SCENARIOS)} bundles in {out}")


if __name__ == "__main__":
    main()
