"""Write generated long-running large-model jobs with known settings, for `ha-analyze readiness`.

    python corpora/readiness/generate_large.py [--out DIR]

A 70B-parameter model on 4 nodes for 4 days cannot be run here, so these jobs are
generated: Megatron-LM (and MindSpeed-LLM on Ascend) lines in the formats of
corpora/readiness/FORMATS.md (the arguments block, per-shard parameter counts, iteration
lines, checkpoint saves and loads, torchrun's launch config, CANN's ``[HCCL_ENV]`` plog
lines), one console per node (``<host>/console.log``, as a platform collects pod logs),
a later attempt in ``attempt_N/``. Each job's ``label.json`` names the state every row
must have; tests/test_readiness.py checks them and that this script writes exactly the
files kept in ``generated/``. Deterministic: no clock, no randomness.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "generated"
START = datetime(2026, 11, 20, 0, 0, 0)
HOSTS = ("dgx-012", "dgx-013", "dgx-014", "dgx-015")
TP, PP = 8, 4  # 8 ranks per node: tensor parallel inside a node, 4 pipeline stages
SHARD = 2_189_541_376  # parameters per (tensor, pipeline) shard: 70.1B in all
ITER_S = 10.0  # seconds per iteration
LOG_EVERY = 100


def table(checkpoint: str, restart: str, hang: str, retry: str = "cannot_tell") -> dict[str, str]:
    """A job's whole expected table: the rows its logs decide, and the three they never
    can (the platform's own settings say, the logs were read)."""
    return {
        "checkpoint_resume": checkpoint,
        "auto_restart": restart,
        "unconditional_restart": "cannot_tell",
        "hang_detection": hang,
        "operator_retry": retry,
        "rescheduling": "cannot_tell",
        "failure_analysis": "in_place",
    }


@dataclass(frozen=True)
class Job:
    name: str
    about: str
    rows: dict[str, str]
    save: str = "/lustre/ckpt/gpt-70b"
    save_interval: int = 1000
    timeout_minutes: int = 10
    args: dict[str, str] = field(default_factory=dict)  # more rows of the arguments block
    iterations: int = 34_560  # 4 days at ITER_S
    max_restarts: int | None = None  # torchrun's launch config at LOGLEVEL=INFO
    # a second attempt: "resume" (loads the newest checkpoint), "fresh" (finds none)
    again: str | None = None
    ascend: bool = False  # MindSpeed-LLM on Ascend: CANN plog lines with HCCL's settings
    hccl: dict[str, str] = field(default_factory=dict)


JOBS = (
    Job(
        "large-ready",
        "70B on 4 nodes for 4 days, checkpoints every 1000 iterations to Lustre, a "
        "10-minute distributed timeout, torchrun allowing 3 restarts",
        table("in_place", "in_place", "in_place"),
        max_restarts=3,
    ),
    Job(
        "large-no-optimizer-state",
        "the same job saving with --no-save-optim --no-save-rng: its checkpoints cannot "
        "resume the optimizer, which a large-model job needs",
        table("missing", "cannot_tell", "in_place"),
        args={"no_save_optim": "True", "no_save_rng": "True"},
    ),
    Job(
        "large-local-checkpoints",
        "the same job saving to each node's local NVMe (/local_disk0)",
        table("missing", "cannot_tell", "in_place"),
        save="/local_disk0/ckpt/gpt-70b",
    ),
    Job(
        "large-long-timeout",
        "the same job with --distributed-timeout-minutes 120: every hang costs two hours",
        table("in_place", "cannot_tell", "missing"),
        timeout_minutes=120,
    ),
    Job(
        "large-restart-from-scratch",
        "the job fails at iteration 12,345 and is launched again; its --load points at an "
        "empty folder, so the second attempt starts from random weights",
        table("missing", "in_place", "in_place"),
        iterations=12_345,
        again="fresh",
    ),
    Job(
        "large-restart-resumed",
        "the job fails at iteration 12,345 and is launched again; the second attempt "
        "loads the checkpoint of iteration 12,000 from Lustre",
        table("in_place", "in_place", "in_place"),
        iterations=12_345,
        again="resume",
    ),
    Job(
        "large-ascend-retry",
        "MindSpeed-LLM on Ascend, 4 nodes: CANN's plog shows HCCL_EXEC_TIMEOUT at its "
        "default 1836 s and operator retry enabled on the inter-node levels",
        table("in_place", "cannot_tell", "missing", "in_place"),
        ascend=True,
        hccl={"HCCL_EXEC_TIMEOUT": "default to [1836]s", "retry": "[L0:0,L1:1,L2:1]"},
    ),
    Job(
        "large-ascend-no-retry",
        "the same Ascend job with HCCL_EXEC_TIMEOUT set to 600 s and operator retry off",
        table("in_place", "cannot_tell", "in_place", "missing"),
        ascend=True,
        hccl={"HCCL_EXEC_TIMEOUT": "environment to [600]s", "retry": "[L0:0,L1:0,L2:0]"},
    ),
)


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S")


def arguments(job: Job) -> list[str]:
    """Megatron's arguments block: every row dotted to one width, sorted by name."""
    rows = {
        "distributed_backend": "hccl" if job.ascend else "nccl",
        "distributed_timeout_minutes": str(job.timeout_minutes),
        "load": job.save,
        "no_save_optim": "None",
        "no_save_rng": "None",
        "pipeline_model_parallel_size": str(PP),
        "save": job.save,
        "save_interval": str(job.save_interval),
        "tensor_model_parallel_size": str(TP),
        "world_size": str(TP * PP),
        **job.args,
    }
    out = ["------------------------ arguments ------------------------"]
    out += [f"  {k} {'.' * (48 - len(k))} {v}" for k, v in sorted(rows.items())]
    return [*out, "-------------------- end of arguments ---------------------"]


def launch_config(job: Job, t: datetime, pid: int) -> list[str]:
    if job.max_restarts is None:
        return []
    head = f"I{t:%m%d %H:%M:%S}.000000 {pid} site-packages/torch/distributed/launcher/api.py:254]"
    rows = {
        "entrypoint": "pretrain_gpt.py",
        "min_nodes": str(len(HOSTS)),
        "max_nodes": str(len(HOSTS)),
        "nproc_per_node": str(TP),
        "run_id": "gpt-70b",
        "rdzv_backend": "c10d",
        "max_restarts": str(job.max_restarts),
        "monitor_interval": "0.1",
    }
    return [f"{head} Starting elastic_operator with launch configs:"] + [
        f"{head}   {k:<24} : {v}" for k, v in rows.items()
    ]


def plog(job: Job, t: datetime, pid: int) -> list[str]:
    """CANN's run/plog lines of HCCL's settings, as the HCCL guide quotes them."""
    ts = f"{t:%Y-%m-%d-%H:%M:%S}.881.877"
    head = f"[INFO] HCCL({pid},python3):{ts}"
    by, value = job.hccl["HCCL_EXEC_TIMEOUT"].split(" to ")
    return [
        f"{head} [externalinput.cc:598] [{pid}][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by default "
        "to [120]s",
        f"{head} [externalinput.cc:558] [{pid}][HCCL_ENV] HCCL_EXEC_TIMEOUT set by {by} to {value}",
        f"{head} [externalinput.cc:1724] [{pid}][HCCL_ENV][ParseRetryEnable] HCCL_OP_RETRY_ENABLE "
        f"set by environment variable to {job.hccl['retry']}.",
    ]


def attempt(job: Job, index: int, start: datetime) -> dict[str, list[str]]:
    """Every node's console of one attempt: node 0 has rank 0's prints (arguments,
    saves), the last node the last rank's iteration lines, each node its shards' counts."""
    consoles: dict[str, list[str]] = {h: [] for h in HOSTS}
    first = consoles[HOSTS[0]]
    last = consoles[HOSTS[-1]]
    for n, host in enumerate(HOSTS):
        consoles[host] += launch_config(job, start, 4100 + n)
    first += arguments(job)
    for n, host in enumerate(HOSTS):  # node n holds pipeline stage n
        consoles[host] += [
            f" > number of parameters on (tensor, pipeline) model parallel rank ({t}, {n}): {SHARD}"
            for t in range(TP)
        ]
    begin = 1
    t = start + timedelta(seconds=60)
    if index > 0 and job.again == "fresh":
        first += [
            f"WARNING: could not find the metadata file {job.save}/latest_checkpointed_iteration.txt",
            "    will not load any checkpoints and will start from random",
        ]
    elif index > 0 and job.again == "resume":
        resumed = (job.iterations // job.save_interval) * job.save_interval
        first += [
            f" loading distributed checkpoint from {job.save} at iteration {resumed}",
            f"  successfully loaded checkpoint from {job.save} [ t 1/{TP}, p 1/{PP} ] at "
            f"iteration {resumed}",
        ]
        begin = resumed + 1
    end = job.iterations if index == 0 or job.again == "fresh" else job.iterations + 5000
    if index > 0 and job.again == "fresh":
        end = 3000  # the repeated work, until this log was taken
    for it in range(begin, end + 1):
        if it % LOG_EVERY == 0:
            when = t + timedelta(seconds=ITER_S * (it - begin))
            last.append(
                f" [{stamp(when)}] iteration {it:8d}/  500000 | consumed samples: "
                f"{it * 1024:12d} | elapsed time per iteration (ms): {ITER_S * 1000 + it % 7:.1f} "
                f"| learning rate: 2.999E-04 | global batch size:  1024 | lm loss: "
                f"{2.0 + 10.0 / (1 + it / 1000):.6E} | loss scale: 1.0 | grad norm: 0.812 | "
                "number of skipped iterations:   0 | number of nan iterations:   0 |"
            )
        if it % job.save_interval == 0:
            when = t + timedelta(seconds=ITER_S * (it - begin))
            first += [
                f"[{stamp(when)}] saving checkpoint at iteration {it:7d} to {job.save} in "
                "torch_dist format",
                f"  [{stamp(when + timedelta(seconds=40))}] successfully saved checkpoint from "
                f"iteration {it:7d} to {job.save} [ t 1/{TP}, p 1/{PP} ]",
            ]
    if index == 0 and job.again:
        when = t + timedelta(seconds=ITER_S * (end - begin + 1))
        last += [
            "Traceback (most recent call last):",
            '  File "/workspace/Megatron-LM/pretrain_gpt.py", line 276, in <module>',
            "RuntimeError: CUDA error: an illegal memory access was encountered",
            f"E{when:%m%d %H:%M:%S}.000000 4103 site-packages/torch/distributed/elastic/"
            "multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 7 (pid: 5131) of "
            "binary: /usr/bin/python",
        ]
    return consoles


def write_job(job: Job, out: Path) -> None:
    dest = out / job.name
    shutil.rmtree(dest, ignore_errors=True)
    attempts = 2 if job.again else 1
    start = START
    for index in range(attempts):
        base = dest / "logs" / (f"attempt_{index}" if job.again else "")
        for host, lines in attempt(job, index, start).items():
            (base / host).mkdir(parents=True, exist_ok=True)
            (base / host / "console.log").write_text("\n".join(lines) + "\n")
            if job.ascend:
                pid = 200_000 + HOSTS.index(host)
                plog_dir = base / host / "ascend" / "log" / "run" / "plog"
                plog_dir.mkdir(parents=True)
                name = f"plog-{pid}_{start:%Y%m%d%H%M%S}000.log"
                (plog_dir / name).write_text("\n".join(plog(job, start, pid)) + "\n")
        start += timedelta(seconds=ITER_S * job.iterations + 600)
    label = {
        "about": job.about,
        "scenario": None,
        "rows": job.rows,
        "generated": "corpora/readiness/generate_large.py",
        "hosts": list(HOSTS),
        "parameters": SHARD * TP * PP,
    }
    (dest / "label.json").write_text(json.dumps(label, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    for job in JOBS:
        write_job(job, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
