"""The job model (analyzer.job.model): who logged each line, from real-format evidence.

Each test is a small bundle laid out as a platform collects it, with lines in the formats
real launchers print (torchrun 2.x, Slurm, kubectl, NCCL, the kernel); the assertion is
the global rank, host and device the verdict names.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import torchelastic_table, write_bundle

from analyzer import Analyzer, Settings, analyze
from analyzer.job.model import normal_busid, path_hosts, path_who
from analyzer.rules.formats import builtin, run_examples

KEYERROR = [
    "[rank{g}]: Traceback (most recent call last):",
    '[rank{g}]:   File "/workspace/job/train.py", line 137, in main',
    "[rank{g}]: KeyError: 'input'",
]


def test_the_formats_file_passes_its_examples() -> None:
    checked, failures = run_examples(builtin())
    assert checked > 50 and failures == []


def test_the_builtin_facts_are_in_the_engines_shared_subset() -> None:
    """A user's facts are checked at load; the built-in ones here (not at start-up)."""
    from analyzer.rules.lint import check_regex

    def fail(_field: str, msg: str) -> AssertionError:
        return AssertionError(msg)

    facts = builtin().facts
    assert len(facts) > 10
    for fact in facts:
        check_regex(fact.regex, fail)


def test_a_tee_prefix_is_a_local_rank_mapped_by_the_failuretorchelastic_table(
    tmp_path: Path,
) -> None:
    """Node 1's console says [default1]:; its table says that is global rank 3."""
    node1 = [f"[default1]:{line.format(g=3)}" for line in KEYERROR] + torchelastic_table(
        "gpu-b03", 3, 1, 4242
    )
    node0 = ["[default1]:2026-12-01 20:45:30,000 - train - INFO - step 10 loss 1.0"]
    logs = write_bundle(tmp_path, {"gpu-b03/console.log": node1, "gpu-a17/console.log": node0})
    v = analyze(logs)
    assert v.category == "user_code_error"
    assert v.root_cause is not None and (v.root_cause.rank, v.root_cause.host) == (3, "gpu-b03")
    assert v.act_on.hosts == ("gpu-b03",) and v.act_on.ranks == (3,)


def test_a_local_rank_of_a_multi_node_job_is_never_reported_as_global(tmp_path: Path) -> None:
    """Two nodes and nothing that maps node 1's local ranks: the rank stays unknown."""
    crash = "[default1]:RuntimeError: CUDA error: an illegal memory access was encountered"
    logs = write_bundle(
        tmp_path, {"gpu-b03/console.log": [crash], "gpu-a17/console.log": ["[default0]:hi"]}
    )
    v = analyze(logs)
    assert v.root_cause is not None and v.root_cause.rank is None
    assert v.root_cause.host == "gpu-b03"


def test_in_a_one_node_job_a_local_rank_is_global(tmp_path: Path) -> None:
    crash = "[default2]:RuntimeError: CUDA error: an illegal memory access was encountered"
    v = analyze(write_bundle(tmp_path, {"console.log": [crash]}))
    assert v.root_cause is not None and v.root_cause.rank == 2


def test_the_agent_rendezvous_result_maps_local_to_global(tmp_path: Path) -> None:
    """torchrun at LOGLEVEL=INFO prints its rank assignment behind a glog header."""
    head = "I1201 20:44:34.196000 12053 site-packages/torch/distributed/elastic/agent/server/api.py:553]"
    agent = [
        f"{head} [default] Rendezvous complete for workers. Result:",
        f"{head}   restart_count=0",
        f"{head}   master_addr=gpu-a17",
        f"{head}   group_rank=1",
        f"{head}   group_world_size=2",
        f"{head}   local_ranks=[0, 1]",
        f"{head}   role_ranks=[2, 3]",
        f"{head}   global_ranks=[2, 3]",
        "[default0]:RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    v = analyze(
        write_bundle(tmp_path, {"node-b/launcher.log": agent, "node-a/launcher.log": ["x"]})
    )
    assert v.root_cause is not None and v.root_cause.rank == 2


def test_a_line_naming_both_ranks_gives_the_node_its_offset(tmp_path: Path) -> None:
    """Node 1's local 0 prints [rank 2]: its local 1 is global 3, though no line says so."""
    lines = [
        "[default0]:2026-12-01 20:45:30,000 - train - INFO - [rank 2] step 10 loss 1.0",
        "[default1]:RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    logs = write_bundle(tmp_path, {"gpu-b03/console.log": lines, "gpu-a17/console.log": ["x"]})
    v = analyze(logs)
    assert v.root_cause is not None and (v.root_cause.rank, v.root_cause.host) == (3, "gpu-b03")


def test_srun_labels_before_tee_prefixes_are_nodes(tmp_path: Path) -> None:
    """srun --label with one torchrun per node: `1: [default0]:` is node 1, local 0."""
    lines = [
        "0: [default0]:2026-12-01 20:45:30,000 - train - INFO - [rank 0] step 10 loss 1.0",
        "1: [default0]:2026-12-01 20:45:30,000 - train - INFO - [rank 2] step 10 loss 1.0",
        "1: [default1]:2026-12-01 20:45:30,000 - train - INFO - [rank 3] step 10 loss 1.0",
        "1: [default1]:RuntimeError: CUDA error: an illegal memory access was encountered",
        "srun: error: dgx-013: task 1: Exited with exit code 1",
    ]
    v = analyze(write_bundle(tmp_path, {"slurm-48240.out": lines}))
    assert v.root_cause is not None and (v.root_cause.rank, v.root_cause.host) == (3, "dgx-013")


def test_an_srun_label_alone_is_a_rank(tmp_path: Path) -> None:
    lines = ["0: step 1", "3: RuntimeError: CUDA error: an illegal memory access was encountered"]
    v = analyze(write_bundle(tmp_path, {"slurm-1.out": lines}))
    assert v.root_cause is not None and v.root_cause.rank == 3


def test_kubectl_timestamps_stand_before_the_rank_prefix(tmp_path: Path) -> None:
    lines = [
        "2026-12-01T20:45:36.640123456Z [default1]:[rank3]: KeyError: 'input'",
    ]
    v = analyze(write_bundle(tmp_path, {"llama-pretrain-worker-1.log": lines}))
    assert v.root_cause is not None
    assert (v.root_cause.rank, v.root_cause.host) == (3, "llama-pretrain-worker-1")
    assert v.root_cause.time == "2026-12-01T20:45:36.640Z"


def test_nccl_lines_tie_pid_device_and_bus_to_a_rank_and_an_xid_to_it(tmp_path: Path) -> None:
    """The Xid names pid 4242 and a PCI bus; NCCL's comm line says pid 4242 is rank 3."""
    rank_log = [
        "gpu-b03:4242:4290 [1] NCCL INFO comm 0x55d0c80 rank 3 nranks 4 cudaDev 1 nvmlDev 1 busId 3b000 commId 0x7c8a - Init COMPLETE",
    ]
    kern = [
        "Dec  1 20:45:40 gpu-b03 kernel: [ 1804951.402127] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python3, GPU has fallen off the bus.",
    ]
    v = analyze(write_bundle(tmp_path, {"gpu-b03/train.log": rank_log, "gpu-b03/kern.log": kern}))
    assert v.category == "device_fault"
    assert v.root_cause is not None and (v.root_cause.rank, v.root_cause.host) == (3, "gpu-b03")
    assert v.act_on.hosts == ("gpu-b03",) and v.act_on.ranks == (3,)
    assert any("0000:3b:00" in d for d in v.act_on.devices)


def test_an_srun_tasks_lines_are_a_nodes_not_one_ranks(tmp_path: Path) -> None:
    """`srun --label` prefixes each node's agent output with its task: task 1 holds ranks
    2 and 3, so a line of task 1 that names only a pid is not the one rank some other line
    of task 1 named; the kernel's OOM kill of pid 1530 is rank 3 as the failure table
    says (b11 first look, run-03: read as rank 2)."""
    api = "site-packages/torch/distributed/elastic/multiprocessing/api.py"
    console = [
        "1: [rank2]: step 40 loss 0.52",
        f"1: E1207 17:05:42.765000 1452 {api}:1002] failed (exitcode: -9) local_rank: 1 (pid: 1530) of binary: /usr/bin/python3",
        *(f"1: {x}" for x in torchelastic_table("node-b", 3, 1, 1530, "-9")),
    ]
    kmsg = [
        "[37143.717572] Memory cgroup out of memory: Killed process 1530 (python3) total-vm:1141688kB, anon-rss:446836kB, file-rss:99932kB, shmem-rss:0kB, UID:0 pgtables:1484kB oom_score_adj:0",
    ]
    v = analyze(write_bundle(tmp_path, {"console.log": console, "node-b.kmsg.log": kmsg}))
    assert v.category == "host_oom" and v.root_cause is not None, v.summary
    assert v.root_cause.rank == 3, v.root_cause


def test_a_device_without_a_comm_line_takes_its_hosts_rank_offset(tmp_path: Path) -> None:
    """An excerpt holds the comm lines of devices 0, 3 and 6 of a host (rank = device + 8)
    but not of device 2, whose process then reports the fault: it is rank 10 (b6 first
    look, gpu-01's class); one device alone, or offsets that disagree, give none."""
    comm = "node-b:{pid}:{tid} [{d}] NCCL INFO comm 0x55{d}e rank {r} nranks 16 cudaDev {d} busId {d}000 - Init COMPLETE"
    warn = "node-b:24141:24296 [2] ib_plugin.c:978 NCCL WARN NET/IB : Got completion from peer 10.226.98.98<48598> with error 12, opcode 0, len 0, vendor err 129"

    def rank(devices: dict[int, int]) -> int | None:
        lines = [comm.format(pid=24100 + d, tid=24200 + d, d=d, r=r) for d, r in devices.items()]
        out = tmp_path / "-".join(f"{d}.{r}" for d, r in devices.items())
        v = analyze(write_bundle(out, {"console.log": [*lines, warn]}), model=False)
        assert v.category == "network_fault" and v.root_cause is not None
        return v.root_cause.rank

    assert rank({0: 8, 3: 11, 6: 14}) == 10
    assert rank({3: 11}) is None
    assert rank({0: 8, 3: 12}) is None


def test_the_oom_victim_pid_names_the_rank(tmp_path: Path) -> None:
    """dmesg's `Killed process 12877` and torchelastic's `exitcode: -9 (pid: 12877)`."""
    dmesg = [
        "[ 1171.834830] python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
        "[ 1171.835489] Memory cgroup out of memory: Killed process 12877 (python3) total-vm:1942808kB, anon-rss:1200852kB, file-rss:94112kB, shmem-rss:0kB, UID:0 pgtables:2864kB oom_score_adj:0",
    ]
    launcher = torchelastic_table("gpu-b03", 3, 1, 12877, "-9")
    v = analyze(
        write_bundle(tmp_path, {"gpu-b03/dmesg.txt": dmesg, "gpu-b03/launcher.log": launcher})
    )
    assert v.category == "host_oom"
    assert v.root_cause is not None and "Killed process 12877" in v.root_cause.text
    assert (v.root_cause.rank, v.root_cause.host) == (3, "gpu-b03")


def test_deepspeed_rank_mapping_and_pdsh_host_prefixes(tmp_path: Path) -> None:
    lines = [
        "worker-0: [2022-09-08 12:02:16,518] [INFO] [launch.py:146:main] global_rank_mapping=defaultdict(<class 'list'>, {'worker-0': [0, 1], 'worker-1': [2, 3]})",
        "worker-1: [default1]:RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    v = analyze(write_bundle(tmp_path, {"launcher.log": lines}))
    assert v.root_cause is not None and (v.root_cause.rank, v.root_cause.host) == (3, "worker-1")


def test_torchrun_role_prefix_names_host_and_local_rank(tmp_path: Path) -> None:
    lines = [
        "[dojo-a3-ghpc-9:1]:RuntimeError: CUDA error: an illegal memory access was encountered"
    ]
    v = analyze(write_bundle(tmp_path, {"all.log": lines, "other.log": ["[dojo-a3-ghpc-8:0]:ok"]}))
    assert v.root_cause is not None and v.root_cause.host == "dojo-a3-ghpc-9"


def test_a_fully_qualified_table_host_is_the_folder_host(tmp_path: Path) -> None:
    node = [f"[default1]:{line.format(g=9)}" for line in KEYERROR[:0]]
    node += ["[default1]:RuntimeError: CUDA error: an illegal memory access was encountered"]
    node += torchelastic_table("gpu187.cluster.local", 9, 1, 777)
    v = analyze(write_bundle(tmp_path, {"gpu187/console.log": node, "gpu186/console.log": ["x"]}))
    assert v.root_cause is not None and v.root_cause.rank == 9
    assert v.root_cause.host == "gpu187"


@pytest.mark.parametrize(
    ("name", "hosts"),
    [
        ("worker-3.log", ["worker-3"]),
        ("node_logs/train.log", []),
        ("slurm-12345.out", []),
        ("gpu-b03/console.log", ["gpu-b03"]),
        ("dmesg-dgx-013.txt", ["dgx-013"]),
        ("dgx-013.kern.log", ["dgx-013"]),
    ],
)
def test_path_hosts(name: str, hosts: list[str]) -> None:
    assert path_hosts(name) == hosts
    assert path_who(name).path_rank is None  # worker-N is a node, never a rank


def test_worker_n_is_a_node_on_ascend_and_device_n_an_npu(tmp_path: Path) -> None:
    plog = [
        "[ERROR] RUNTIME(2717288,python3):2025-07-23-03:49:57.177.194 [device_error_proc.cc:1] EE9999: Inner Error!",
    ]
    logs = write_bundle(tmp_path, {"worker-1/device-5/plog-2717288_20250723034757070.log": plog})
    job = Analyzer(Settings())
    job.read_paths([str(logs)])
    model = job.model()
    who = next(iter(job.builder.whos[0]))
    ident = model.identity(0, who)
    assert ident.host == "worker-1" and ident.device == "5" and ident.rank is None


def test_bus_ids_in_nccl_and_xid_forms_are_one() -> None:
    assert normal_busid("3b000") == normal_busid("0000:3b:00") == normal_busid("0000:3B:00.0")
    assert normal_busid("e7000") == "0000:e7:00"


def test_year_less_stamps_take_the_year_of_the_job_not_of_the_clock(tmp_path: Path) -> None:
    """A glog-stamped launcher read before the 2025 trainer logs: its times are 2025.

    Before, the year came from the first line of the first block read, else today's: the
    launcher's teardown in `today` looked like a year-long stall of the 2025 steps.
    """
    launcher = [
        "W0217 04:06:41.331000 40820 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 40916 closing signal SIGTERM",
    ]
    steps = [f"2025-02-17 04:0{i}:00,000 - INFO - step {i} loss 0.5" for i in range(6)]
    logs = write_bundle(tmp_path, {"a_launcher.log": launcher, "b_rank0.log": steps})
    v = analyze(logs)
    assert v.category != "hang"
    assert all(p.stalled_seconds is None for p in v.progress)


def test_a_link_fault_names_both_ends_when_the_logs_name_the_peer(tmp_path: Path) -> None:
    """NCCL's IB error names the peer's address; the peer's bootstrap line names its host."""
    b03 = [
        "gpu-b03:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.0.0.12<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid fd00:1148:9000:5000",
    ]
    a17 = ["gpu-a17:1465:1465 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.12<0>"]
    logs = write_bundle(tmp_path, {"gpu-b03/train.log": b03, "gpu-a17/train.log": a17})
    v = analyze(logs)
    assert v.category == "network_fault"
    assert v.act_on.hosts == ("gpu-b03", "gpu-a17")
    # without the peer's bootstrap line the address itself is the other end
    (tmp_path / "gpu-a17" / "train.log").write_text("hello\n")
    assert analyze(logs).act_on.hosts == ("gpu-b03", "10.0.0.12")


def test_an_exception_inside_the_failure_table_is_the_tables_rank(tmp_path: Path) -> None:
    """The worker's traceback printed inside torchelastic's Root Cause table: the
    exception line, however far below `rank : 4`, is rank 4's on the table's host."""
    tb = [
        "Traceback (most recent call last):",
        '  File "/workspace/finetune.py", line 88, in main',
        "    batch = next(it)",
        "KeyError: 'input_ids'",
    ]
    logs = write_bundle(
        tmp_path, {"console.log": torchelastic_table("finetune-job-96q2q", 4, 4, 10, traceback=tb)}
    )
    v = analyze(logs, model=False)
    assert v.root_cause is not None and "KeyError" in v.root_cause.text
    assert (v.root_cause.rank, v.root_cause.host) == (4, "finetune-job-96q2q")


def test_a_file_named_after_its_host_is_that_hosts() -> None:
    """b14 run-08 (first-look corpus): `node-b.log` beside `node-a.log`, a torchelastic
    table in it naming host node-b. The file and its stem are one name (its short form
    cut the suffix, and both had counted as two hosts, so the file had none); the local
    rank of its lines maps to the global rank the table gives: `[default1]` is rank 3."""
    from conftest import REPO

    case = REPO / "corpora" / "firstlook" / "b14-2026-12-07" / "run-08" / "logs"
    v = analyze(case, model=False, failed=True)
    assert v.root_cause is not None and v.root_cause.file == "node-b.log"
    assert (v.root_cause.rank, v.root_cause.host) == (3, "node-b"), v.summary
