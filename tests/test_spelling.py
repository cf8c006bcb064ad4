"""One verdict per job whatever the spelling (taxonomy: "Whatever the spelling"): the same
bytes read as a folder or an archive, by a relative or an absolute path, or as a batch's
job, give the same JSON but for the paths shown.

The bundles are the real multi-node torchrun jobs and Flight Recorder runs of corpora/
(a verdict that moved with the spelling used to blame a different host: a top folder
holding two node files made them one node).
"""

from __future__ import annotations

import json
import os
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from analyzer import analyze
from analyzer.batch.run import Job, analyse_job

_BUNDLES = sorted(
    p.parent.relative_to(REPO)
    for p in [
        *(REPO / "corpora" / "torchrun" / "multinode").glob("*/label.json"),
        *(REPO / "corpora" / "flight" / "runs").glob("*/label.json"),
        *(REPO / "corpora" / "torchrun" / "runs").glob("*/label.json"),
    ]
    if p.parent.name != "real-size"  # its spellings are checked in test_flight
)


def _json(v: Any, *prefixes: str) -> str:
    d = v.to_dict()
    d["stats"] = {k: d["stats"][k] for k in ("lines", "bytes", "truncated_lines")}
    text = json.dumps(d, sort_keys=True, ensure_ascii=False)
    for p in prefixes:
        text = text.replace(json.dumps(p)[1:-1], "")
    return text


@pytest.mark.parametrize("bundle", _BUNDLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_same_bytes_give_the_same_verdict_however_they_are_named(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = REPO / bundle
    top = src.name
    tgz, zpath = tmp_path / f"{top}.tar.gz", tmp_path / f"{top}.zip"
    with tarfile.open(tgz, "w:gz") as tf:
        tf.add(src, arcname=top)
    with zipfile.ZipFile(zpath, "w") as zf:
        for f in sorted(src.rglob("*")):
            if f.is_file():
                zf.write(f, f"{top}/{f.relative_to(src)}")
    want = _json(analyze(src))
    monkeypatch.chdir(REPO)
    assert _json(analyze(str(bundle))) == want, "relative folder"
    monkeypatch.chdir(tmp_path)
    for archive in (tgz, zpath):
        for spelled in (archive.name, str(archive), f"./{archive.name}"):
            got = _json(analyze(spelled), f"{spelled}!{top}/")
            assert got == want, spelled
    monkeypatch.chdir(REPO.parent)
    up = os.path.relpath(src)
    assert _json(analyze(up)) == want, up
    row, _ = analyse_job(Job(top, tgz))
    v = json.loads(want)
    rc = v["root_cause"] or {}
    assert (row["category"], row["recovery"], row["root_rank"], row["root_host"]) == (
        v["category"], v["recovery"], rc.get("rank"), rc.get("host"),
    )  # fmt: skip


def _bundle(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


_XID = "Dec  1 10:00:05 {host} kernel: [1804951.402127] NVRM: Xid (PCI:0000:3b:00): 79, pid=48213, name=python, GPU has fallen off the bus.\n"
_STEP = "2026-12-01 10:00:0{s},000 - train - INFO - step {s}/100 loss 1.2\n"


@pytest.mark.parametrize("top", ["exp-17", "train-r2", "job-2026-12-01"])
def test_a_top_folder_that_looks_like_a_host_is_not_one(tmp_path: Path, top: str) -> None:
    """The folder holding every file of the job is the bundle's, never a host to cordon;
    a node's file inside it names its host where a host shape says so (a mechanism test:
    the lines are real forms, the bundle is made)."""
    cuda = "[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
    _bundle(
        tmp_path / top,
        {
            "console-a.log": "".join(_STEP.format(s=s) for s in range(1, 9)),
            "console-b.log": "".join(_STEP.format(s=s) for s in range(1, 5)) + cuda,
        },
    )

    def packed() -> Any:
        with tarfile.open(tmp_path / "job.tar.gz", "w:gz") as tf:
            tf.add(tmp_path / top, arcname=top)
        return analyze(tmp_path / "job.tar.gz")

    v = packed()
    assert v.category == "device_fault" and v.act_on.hosts == (), v.act_on
    (tmp_path / top / "dmesg-node-b.txt").write_text(_XID.format(host="node-b"))
    v = packed()
    assert v.category == "device_fault" and v.act_on.hosts == ("node-b",), v.act_on


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "3f9c2a7d81be"])
def test_loopback_and_container_names_are_never_hosts_to_cordon(tmp_path: Path, host: str) -> None:
    _bundle(tmp_path, {"kern.log": _XID.format(host=host), "train.log": _STEP.format(s=1)})
    v = analyze(tmp_path)
    assert v.category == "device_fault" and v.act_on.hosts == (), v.act_on
