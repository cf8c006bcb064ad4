"""A prefix the user declares in their own formats.yaml is honoured by every stage, exactly
as the equivalent built-in one: the reader strips it once, and correlation (findings and
their counts), the culprit rules (the rank's own file, the echo of a line) and the
verdict read the message it left, never the raw line again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import write_bundle

from analyzer import Settings, analyze
from analyzer.types import PatternError

USER_FORMATS = """\
prefixes:
  - id: site-worker-prefix
    what: "our launcher's console prefix: {HOST/LOCAL_RANK} before each line"
    regex: '\\{(?P<host>[a-z][\\w-]*)/(?P<local_rank>\\d{1,6})\\} '
    examples:
      - line: "{gpu-a/1} step 10"
        fields: {host: "gpu-a", local_rank: "1"}
        rest: "step 10"
    negatives:
      - "[gpu-a:1]: step 10"
"""

STEP = "2026-11-29 10:00:{s:02d},000 - train - INFO - step {s}/300 loss 1.0"
OOM = (
    "2026-11-29 10:00:{s:02d},500 - train - ERROR - torch.OutOfMemoryError: CUDA out of "
    "memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which "
    "1.20 GiB is free."
)
WATCHDOG = (
    "[E1129 10:30:{s:02d}.929096625 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=16384000, "
    "NumelOut=16384000, Timeout(ms)=1800000) ran for 1800065 milliseconds before timing out."
)
HOSTS = ("gpu-a", "gpu-b")


def _console(prefix: str) -> dict[str, list[str]]:
    """Two nodes of two ranks, each node's console merged; rank 3 (gpu-b, local 1) runs
    out of device memory and the other three time out waiting for it."""
    files: dict[str, list[str]] = {}
    for node, host in enumerate(HOSTS):
        lines = []
        for s in range(1, 6):
            for local in (0, 1):
                lines.append(prefix.format(host=host, local=local) + STEP.format(s=s))
        for local in (0, 1):
            rank = 2 * node + local
            p = prefix.format(host=host, local=local)
            lines.append(p + (OOM.format(s=6) if rank == 3 else WATCHDOG.format(s=rank, r=rank)))
        files[f"{host}/console.log"] = lines
    return files


def _taught(tmp_path: Path, formats_yaml: str) -> Settings:
    """Settings with a user pattern folder that holds `formats_yaml` as its formats.yaml."""
    patterns = tmp_path / "patterns"
    patterns.mkdir()
    (patterns / "formats.yaml").write_text(formats_yaml, encoding="utf-8")
    return Settings(model=False, patterns=(str(patterns),))


def _reading(v: Any) -> dict[str, Any]:
    d = v.to_dict()
    rc = d["root_cause"] or {}
    return {
        "category": d["category"],
        "recovery": d["recovery"],
        "culprit_rule": d["culprit_rule"],
        "root": (
            rc.get("file"),
            rc.get("line"),
            rc.get("rank"),
            rc.get("host"),
            rc.get("signature"),
        ),
        "message": rc.get("message"),
        "findings": [
            (f["signature"], f["count"], f["ranks"], f["files"], f["line"]) for f in d["findings"]
        ],
        "act_on": d["act_on"],
    }


def test_a_user_prefix_reads_as_the_builtin_one(tmp_path: Path) -> None:
    builtin = write_bundle(tmp_path / "builtin", _console("[{host}:{local}]:"))
    user = write_bundle(tmp_path / "user", _console("{{{host}/{local}}} "))
    want = _reading(analyze(builtin, Settings(model=False)))
    got = _reading(analyze(user, _taught(tmp_path, USER_FORMATS)))
    assert want["category"] == "device_oom" and want["root"][2:4] == (3, "gpu-b")
    assert got == want


USER_STAMP = """\
timestamps:
  - id: site-dotted-date
    what: "our trainer's stamp: [DD.MM.YYYY HH:MM:SS]"
    regex: '\\[(?P<D>\\d\\d)\\.(?P<M>\\d\\d)\\.(?P<Y>\\d{4}) (?P<h>\\d\\d):(?P<m>\\d\\d):(?P<s>\\d\\d)\\]'
    examples:
      - line: "[29.11.2026 10:00:07] step 7"
        time: "2026-11-29T10:00:07.000"
"""


def test_a_timestamp_form_is_one_yaml_entry(tmp_path: Path) -> None:
    """A stamp no built-in form reads is taught by one entry in the user's formats.yaml:
    the same bundle's root cause then has its time, with no engine change."""
    logs = write_bundle(
        tmp_path / "logs",
        {
            "rank_0.log": [
                "[29.11.2026 10:00:01] step 1 loss 1.0",
                "[29.11.2026 10:00:07] torch.OutOfMemoryError: CUDA out of memory. "
                "Tried to allocate 2.00 GiB",
            ]
        },
    )
    plain = analyze(logs, Settings(model=False))
    taught = analyze(logs, _taught(tmp_path, USER_STAMP))
    assert plain.root_cause is not None and plain.root_cause.time is None
    assert taught.root_cause is not None and taught.root_cause.time == "2026-11-29T10:00:07.000"


def test_vllm_stamps_are_read(tmp_path: Path) -> None:
    """vLLM's logger (`INFO 05-12 10:00:01 [file.py:N]`, no year) is a built-in form:
    its lines take the job's year."""
    logs = write_bundle(
        tmp_path,
        {
            "engine.log": [
                "2026-05-12 09:59:58,000 - launcher - INFO - starting",
                "INFO 05-12 10:00:01 [api_server.py:1090] Starting vLLM API server",
                "(VllmWorker rank=1 pid=50935) ERROR 05-12 10:00:09 [multiproc_executor.py:527] "
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            ]
        },
    )
    v = analyze(logs, Settings(model=False))
    assert v.category == "device_oom" and v.root_cause is not None
    assert v.root_cause.time == "2026-05-12T10:00:09.000"


USER_PATHS = """\
paths:
  - id: site-worker-file
    what: "our scheduler's per-rank files: w07.out is global rank 7"
    regex: '(?:^|/)w(?P<rank>\\d{2,5})\\.out$'
    examples:
      - path: "job-1/w07.out"
        fields: {rank: "07"}
    negatives:
      - "job-1/wrapper.out"
"""


def test_a_path_shape_is_one_yaml_entry(tmp_path: Path) -> None:
    """A layout no built-in path shape reads (rank files named w07.out) is taught by one
    `paths:` entry in the user's formats.yaml: the failing rank is then named."""
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    logs = write_bundle(
        tmp_path / "logs", {"w06.out": ["step 1 loss 1.0"], "w07.out": ["step 1 loss 1.0", oom]}
    )
    plain = analyze(logs, Settings(model=False))
    taught = analyze(logs, _taught(tmp_path, USER_PATHS))
    assert plain.root_cause is not None and plain.root_cause.rank is None
    assert taught.root_cause is not None and taught.root_cause.rank == 7


def test_a_host_shape_is_one_yaml_entry(tmp_path: Path) -> None:
    """A folder is a host only where a path shape says so: a cluster whose node folders
    are named rack7_slot4 (no built-in shape reads them) names no host to act on until
    the user's formats.yaml declares the shape; then the failing node's folder is it."""
    ecc = "[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered"
    logs = write_bundle(
        tmp_path / "logs",
        {"rack7_slot3/console.log": ["step 1 loss 1.0"], "rack7_slot4/console.log": [ecc]},
    )
    shape = """paths:
  - id: rack-slot-node
    what: "our node folders: rack7_slot4/"
    regex: '(?:^|/)(?P<host>rack\\d+_slot\\d+)/'
    examples:
      - path: "rack7_slot4/console.log"
        fields: {host: "rack7_slot4"}
"""
    plain = analyze(logs, Settings(model=False))
    taught = analyze(logs, _taught(tmp_path, shape))
    assert plain.category == taught.category == "device_fault"
    assert plain.act_on.hosts == () and taught.act_on.hosts == ("rack7_slot4",)


def test_the_classifier_reads_messages_without_a_user_prefix(tmp_path: Path) -> None:
    """The failure region's messages (what the classifier reads) are stripped of the
    prefixes the job's formats know, a user's too, like every other stage's."""
    from analyzer import Analyzer
    from analyzer.decide.verdict import model_region

    logs = write_bundle(
        tmp_path / "logs",
        {"node.log": ["{gpu-a/1} step 1 loss 1.0", "{gpu-a/1} RuntimeError: something broke"]},
    )
    job = Analyzer(_taught(tmp_path, USER_FORMATS))
    job.read_paths([str(logs)])
    region, _ = model_region(job.errors, job.evidence())
    formats = job.matcher.formats
    assert [x.message(formats) for x in region] == ["RuntimeError: something broke"]
    assert all(x.message().startswith("{gpu-a/1}") for x in region)  # the built-in ones


def test_validated_formats_are_cached_and_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The built-in formats file is validated once and read from the cache after; a
    damaged cache entry is validated again; a group named only in the text, or twice, is
    refused at validation (the cache trusts group names read from the regex's text)."""
    from analyzer.rules import formats

    monkeypatch.setenv("HA_ANALYZE_CACHE", str(tmp_path / "cache"))
    files = formats.format_files(True, ())
    first = formats._load_file(files[0])
    (entry,) = (tmp_path / "cache").glob("formats-*.json")
    second = formats._load_file(files[0])
    assert second == first
    assert [f.groups for f in second["prefixes"]] == [
        tuple(f.compiled.groupindex) for f in first["prefixes"]
    ]
    entry.write_text("not json")
    assert formats._load_file(files[0]) == first
    bad = tmp_path / "user" / "formats.yaml"
    bad.parent.mkdir()
    bad.write_text(
        "claims:\n  - id: mine\n    what: x\n    regex: 'rank \\(?P<rank>\\d+'\n"
        "    examples: [{line: 'rank P<rank>3', fields: {}}]\n"
    )
    with pytest.raises(PatternError, match="name each group"):
        formats._load_file(bad)
