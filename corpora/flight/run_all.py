"""Record real Flight Recorder dump sets: job.py under a real torchrun (gloo, CPU) once per
scenario, its console output and every rank's dump kept with a label.

    python corpora/flight/run_all.py [SCENARIO...]

Each scenario's bundle goes to ``runs/<scenario>/`` beside this file: ``console.log``
(torchrun's and the ranks' output, exactly as printed but for this machine's paths),
``dumps/`` (the dumps byte for byte as torch wrote them, their stacks' paths included,
then damaged where the scenario says),
``label.json``. ``tests/test_flight.py`` checks the verdict on each.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"
JOB = HERE / "job.py"


@dataclass(frozen=True)
class Scenario:
    name: str
    category: str
    culprits: tuple[int, ...]  # the ranks the verdict must name (first: the one cited)
    about: str
    nproc: int = 4
    env: dict[str, str] = field(default_factory=dict)
    # what is done to the dumps afterwards: ("keep", ranks) deletes the others' dumps,
    # ("truncate", ranks) cuts them in half, ("empty", ranks) empties them
    damage: tuple[tuple[str, tuple[int, ...]], ...] = ()
    flight_blames: tuple[int, ...] | None = None  # the ranks the dumps blame, if not `culprits`


SCENARIOS = [
    Scenario(
        "hang-compute",
        "hang",
        (2,),
        "rank 2 is stuck outside any collective; the others time out in all_reduce",
        env={"FAULT_RANK": "2"},
    ),
    Scenario(
        "hang-dataloader",
        "hang",
        (3,),
        "rank 3 hangs reading data; faulthandler prints its stack before it dumps",
        env={"SCENARIO": "hang-dataloader", "FAULT_RANK": "3"},
    ),
    Scenario(
        "uneven-inputs",
        "user_code_error",
        (1,),
        "rank 1's data runs out: it calls the final barrier where the others all_reduce",
        env={"FAULT_RANK": "1"},
    ),
    Scenario(
        "mismatch-op",
        "user_code_error",
        (1,),
        "rank 1 calls all_gather where the others call all_reduce",
        env={"FAULT_RANK": "1"},
    ),
    Scenario(
        "mismatch-size",
        "user_code_error",
        (3,),
        "rank 3 all_reduces a tensor twice as long",
        env={"FAULT_RANK": "3"},
    ),
    Scenario(
        "mismatch-dtype",
        "user_code_error",
        (2,),
        "rank 2 all_reduces float64 where the others use float32",
        env={"FAULT_RANK": "2"},
    ),
    Scenario(
        "two-groups",
        "hang",
        (3,),
        "rank 3 stalls; rank 2 waits for it in their subgroup's broadcast, ranks 0 and 1 wait for both in the default group",
        env={"FAULT_RANK": "3"},
    ),
    Scenario(
        "incomplete",
        "hang",
        (2,),
        "rank 2 hangs; only the dumps of ranks 0 and 2 were collected",
        env={"FAULT_RANK": "2"},
        damage=(("keep", (0, 2)),),
    ),
    Scenario(
        "culprit-dump-missing",
        "hang",
        (2,),
        "rank 2 hangs and its dump was not collected: the other dumps agree and blame no rank; its stack (faulthandler) names it",
        env={"SCENARIO": "hang-compute", "FAULT_RANK": "2"},
        damage=(("keep", (0, 1, 3)),),
        flight_blames=(),
    ),
    Scenario(
        "corrupt-dump",
        "hang",
        (1,),
        "rank 1 hangs; rank 0's dump is cut in half and rank 3's is empty",
        env={"SCENARIO": "hang-compute", "FAULT_RANK": "1"},
        damage=(("truncate", (0,)), ("empty", (3,))),
    ),
    Scenario(
        "wrapped-buffer",
        "hang",
        (1,),
        "a 6-entry buffer over 40 steps: no dump starts at sequence 1; rank 1 hangs at step 30",
        env={"FAULT_RANK": "1", "FAULT_STEP": "30", "STEPS": "40", "TORCH_FR_BUFFER_SIZE": "6"},
    ),
    Scenario(
        "json-dumps",
        "user_code_error",
        (2,),
        "the JSON form of the dumps (no stacks); rank 2 calls all_gather",
        env={"SCENARIO": "mismatch-op", "FAULT_RANK": "2", "DUMP_JSON": "1"},
    ),
    Scenario(
        "hostnames",
        "hang",
        (1,),
        "dumps named with the host (nccl_trace_rank_<host>_<rank>), in the node's folder",
        env={
            "SCENARIO": "hang-compute",
            "FAULT_RANK": "1",
            "DUMP_NAME": "node-{node}/nccl_trace_rank_node-{node}_{rank}",
        },
    ),
    Scenario(
        "real-size",
        "hang",
        (1,),
        "dumps at a real job's size: an 8,000-entry buffer of 40-frame stacks over 8,000 steps (over 1 MB per rank); rank 1 hangs at step 7,990",
        env={
            "SCENARIO": "hang-compute",
            "FAULT_RANK": "1",
            "FAULT_STEP": "7990",
            "STEPS": "8000",
            "DEPTH": "40",
            "TORCH_FR_BUFFER_SIZE": "8000",
        },
    ),
    Scenario(
        "healthy",
        "none",
        (),
        "every rank dumps after a run that finished: all collectives match",
        env={"STEPS": "4"},
    ),
]


def _damage(dumps: Path, damage: tuple[tuple[str, tuple[int, ...]], ...]) -> None:
    for kind, ranks in damage:
        for p in sorted(dumps.rglob("nccl_trace_rank_*")):
            mine = int(p.name.rsplit("_", 1)[-1]) in ranks
            if kind == "keep" and not mine:
                p.unlink()
            elif kind == "truncate" and mine:
                p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
            elif kind == "empty" and mine:
                p.write_bytes(b"")


def _scrub(text: str) -> str:
    text = text.replace(str(HERE), "/work/job")
    return re.sub(r"/root/\.pyenv/versions/[\d.]+/", "/usr/", text)


def run(s: Scenario, torchrun: str) -> None:
    out = RUNS / s.name
    shutil.rmtree(out, ignore_errors=True)
    dumps = out / "dumps"
    dumps.mkdir(parents=True)
    env = {**os.environ, "SCENARIO": s.name, "DUMPS": str(dumps), "TORCH_FR_BUFFER_SIZE": "64"}
    env.update(s.env)
    if "{node}" in env.get("DUMP_NAME", ""):
        env["DUMP_NAME"] = env["DUMP_NAME"].replace("{node}", "a")  # one node
    started = time.time()
    cmd = [torchrun, f"--nproc-per-node={s.nproc}", "--tee", "3", str(JOB)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    (out / "console.log").write_text(_scrub(proc.stdout + proc.stderr))
    _damage(dumps, s.damage)
    label = {
        "category": s.category,
        "culprits": list(s.culprits),
        "about": s.about,
        "torch": "2.13.0",
        "exit": proc.returncode,
        "command": " ".join(f"{k}={v}" for k, v in s.env.items())
        + f" torchrun --nproc-per-node={s.nproc} --tee 3 job.py",
        "damage": [[kind, list(ranks)] for kind, ranks in s.damage],
        **({} if s.flight_blames is None else {"flight_blames": list(s.flight_blames)}),
        "recorded": time.strftime("%Y-%m-%d"),
        "seconds": round(time.time() - started, 1),
    }
    (out / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    print(
        f"{s.name}: exit {proc.returncode}, {len(list(dumps.rglob('*')))} dump files, {label['seconds']} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--torchrun", default=shutil.which("torchrun") or "torchrun")
    args = ap.parse_args()
    for s in SCENARIOS:
        if not args.names or s.name in args.names:
            run(s, args.torchrun)


if __name__ == "__main__":
    sys.exit(main())
