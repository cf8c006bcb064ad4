"""The classifier: plain-Python inference equals scikit-learn, the shipped model is safe
and small, and the verdict uses it only when signatures do not decide."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import analyze, classifier
from analyzer.classifier import Model, region_text

ROOT = Path(__file__).resolve().parent.parent
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3"


def _small_corpus() -> tuple[list[str], list[str]]:
    texts, labels = [], []
    for sources in sorted((ROOT / "corpora" / "failures").glob("*/SOURCES.yaml")):
        for log in sorted(sources.parent.glob("*.log"))[:4]:
            lines = log.read_text(encoding="utf-8").splitlines()
            texts.append(region_text(lines[-40:]))
            labels.append(sources.parent.name)
    return texts, labels


def test_plain_python_inference_equals_scikit_learn() -> None:
    pytest.importorskip("sklearn")
    from analyzer.train import _pipeline, _softmax, export

    texts, labels = _small_corpus()
    pipe = _pipeline().fit(texts[1::2], labels[1::2])
    model = Model(json.loads(json.dumps(export(pipe, 0.5, {}))))
    held = texts[::2]
    for text, row in zip(held, pipe.decision_function(held), strict=True):
        want = _softmax([float(x) for x in row], 0.5)
        got = model.probabilities(text)
        assert max(abs(a - b) for a, b in zip(want, got, strict=True)) < 1e-4
    assert model.classes == list(pipe.classes_)


def test_export_is_deterministic() -> None:
    pytest.importorskip("sklearn")
    from analyzer.train import _pipeline, export

    texts, labels = _small_corpus()
    a = export(_pipeline().fit(texts, labels), 0.5, {})
    b = export(_pipeline().fit(texts, labels), 0.5, {})
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_the_shipped_model_is_small_safe_and_loads_without_sklearn_or_numpy() -> None:
    assert classifier.MODEL_PATH.stat().st_size < 10 << 20
    code = (
        "import sys; from analyzer import classifier; m = classifier.load(); "
        f"p = m.predict([{OOM!r}]); "
        "print(p.category, 'sklearn' in sys.modules, 'numpy' in sys.modules, 'pickle' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert out == ["device_oom", "False", "False", "False"]


def test_a_broken_model_file_means_no_model(tmp_path: Path) -> None:
    bad = tmp_path / "m.json.gz"
    bad.write_bytes(b"\x1f\x8b not gzip")
    assert classifier.load(bad) is None
    assert classifier.load(tmp_path / "missing.json.gz") is None


def test_probabilities_are_a_distribution() -> None:
    model = classifier.load()
    assert model is not None
    probs = model.probabilities(region_text([OOM]))
    assert math.isclose(sum(probs), 1.0) and min(probs) >= 0.0


def test_signatures_off_leaves_the_classifier_to_decide(tmp_path: Path) -> None:
    (tmp_path / "rank3.log").write_text(
        "step 1 loss 2.0\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        f"{OOM}\n"
    )
    v = analyze(tmp_path, signatures=False)
    assert v.decided_by == "model" and v.category == "device_oom"
    assert v.model is not None and v.model.decided and v.model.probability >= 0.6
    assert v.root_cause is not None and "out of memory" in v.root_cause.text
    assert v.to_dict()["model"]["category"] == "device_oom"
    off = analyze(tmp_path, signatures=False, model=False)
    assert off.category == "none" and off.model is None
    with_signatures = analyze(tmp_path)
    assert with_signatures.decided_by == "signature" and with_signatures.model is None


def test_an_unsure_model_never_decides(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text("something odd failed somewhere\n")
    v = analyze(tmp_path, signatures=False)
    assert v.decided_by != "model"
    assert v.model is not None and not v.model.decided


def test_cli_flags(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(OOM + "\n")
    run = [sys.executable, "-m", "analyzer", str(tmp_path), "--format", "json"]
    got = json.loads(
        subprocess.run([*run, "--no-signatures"], capture_output=True, check=True).stdout
    )
    assert got["decided_by"] == "model" and got["category"] == "device_oom"
    got = json.loads(
        subprocess.run(
            [*run, "--no-signatures", "--no-model"], capture_output=True, check=True
        ).stdout
    )
    assert got["category"] == "none" and got["model"] is None


def test_unknowns_lists_and_drafts_templates(tmp_path: Path) -> None:
    for job in ("job1", "job2"):
        (tmp_path / job).mkdir()
        (tmp_path / job / "rank0.log").write_text(
            "step 1 loss 2.0\n"
            f"FooCollective: peer 10.0.0.{len(job)} lost sync at epoch 4 (code=0x1f)\n"
        )
    base = [
        sys.executable,
        "-m",
        "analyzer",
        "unknowns",
        str(tmp_path / "job1"),
        str(tmp_path / "job2"),
    ]
    out = subprocess.run(base, capture_output=True, text=True, check=True).stdout
    assert "x2" in out and "FooCollective: peer <IP> lost sync" in out
    draft = subprocess.run([*base, "--suggest"], capture_output=True, text=True, check=True).stdout
    assert "FooCollective" in draft and "category: unknown" in draft
