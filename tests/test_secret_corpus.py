"""The secret corpus (tests/hostile/secrets.yaml: 223 forms from the providers' documented
formats, 58 look-alikes that must stay): no form reaches any output by default, every
one does with --no-redact (so the check is not vacuous), and no look-alike is damaged.

Each form is logged as a line of a traceback before a CUDA OOM, so it is context of
the root cause; a wrapped form's second half follows on the next line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from analyzer import analyze
from analyzer.batch.report import load_rows, render
from analyzer.batch.run import run_batch
from analyzer.cli import main
from analyzer.ops.watch import Watcher
from analyzer.read.lines import TEXT_CAP
from analyzer.read.redact import redact, redact_lines

CORPUS = yaml.safe_load((Path(__file__).parent / "hostile" / "secrets.yaml").read_text())
FORMS: list[dict[str, Any]] = CORPUS["forms"]
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.32 GiB of which 1.00 GiB is free.\n"
)


def _secrets(form: dict[str, Any]) -> list[str]:
    """What must not be shown: each secret as far as it lies within the TEXT_CAP
    characters of its line that are ever shown (a long line's tail is cut)."""
    out = []
    for secret in [form["secret"], *form.get("also", [])]:
        line = next(x for x in form["line"].split("\n") if secret in x)
        visible = secret[: max(0, TEXT_CAP - line.find(secret))]
        out.append(visible if len(visible) >= 6 else secret)
    return out


def _log(form: dict[str, Any]) -> str:
    return (
        "2026-12-01 10:00:00,000 - INFO - step 1 loss 2.0\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        f"{form['line']}\n{OOM}"
    )


def test_the_corpus_is_what_it_claims() -> None:
    assert len(FORMS) >= 120 and len(CORPUS["harmless"]) >= 40
    assert len({f["id"] for f in FORMS}) == len(FORMS)
    for f in FORMS:
        assert all(len(s) >= 6 and s in f["line"] for s in _secrets(f)), f["id"]
    kinds = {f["id"] for f in FORMS}
    assert sum("\x1b" in f["line"] for f in FORMS) >= 6  # coloured lines
    assert sum("\n" in f["line"] for f in FORMS) >= 3  # wrapped over two lines
    assert sum(f["line"].find(f["secret"]) >= 4090 for f in FORMS) >= 3  # past the cut
    assert kinds


@pytest.mark.parametrize("form", FORMS, ids=[f["id"] for f in FORMS])
def test_the_redactor_masks_every_form(form: dict[str, Any]) -> None:
    shown = "\n".join(redact_lines(form["line"].split("\n")))
    for secret in _secrets(form):
        assert secret not in shown


@pytest.mark.parametrize(
    "item", CORPUS["harmless"], ids=[h["line"][:40] for h in CORPUS["harmless"]]
)
def test_look_alikes_stay(item: dict[str, str]) -> None:
    assert item["keep"] in redact(item["line"])


def _outputs(folder: Path, raw: bool) -> str:
    """Every output of one job: the library's JSON, the CLI's text, JSON, timeline and
    Chinese text, unknowns with drafts, the readiness table (text and JSON) and a
    restart decision."""
    extra = ["--no-redact"] if raw else []
    out = [json.dumps(analyze(folder, redact=not raw).to_dict(), ensure_ascii=False)]
    runner = CliRunner()
    for args in (
        ["--format", "text"],
        ["--format", "json"],
        ["--format", "timeline"],
        ["--lang", "zh"],
        ["unknowns", "--suggest"],
        ["readiness"],
        ["readiness", "--format", "json"],
        ["decide", "--format", "json"],
    ):
        if args[0] in ("unknowns", "readiness", "decide"):
            cmd = [args[0], str(folder), *args[1:], *extra]
        else:
            cmd = [str(folder), *args, *extra]
        r = runner.invoke(main, cmd)
        assert r.exception is None or isinstance(r.exception, SystemExit), r.output
        out.append(r.stdout)
    return "\n".join(out)


@pytest.mark.slow
def test_no_form_in_any_output_and_every_form_with_no_redact(tmp_path: Path) -> None:
    leaked, missing = [], []
    for i, form in enumerate(FORMS):
        job = tmp_path / f"job{i:03d}"
        job.mkdir()
        (job / "rank_0.log").write_text(_log(form), encoding="utf-8")
        shown = _outputs(job, raw=False)
        leaked += [form["id"] for s in _secrets(form) if s in shown]
        # the traceback's context holds the line as logged (escapes stripped)
        raw = _outputs(job, raw=True)
        shown_raw = [s for s in _secrets(form) if form["line"].find(s) < TEXT_CAP - 6]
        missing += [form["id"] for s in shown_raw if s not in raw]
    assert not leaked, leaked
    assert not missing, missing


def test_batch_tables_the_report_and_watch_events(tmp_path: Path) -> None:
    root = tmp_path / "jobs"
    watched = tmp_path / "watched"
    watched.mkdir()
    for i, form in enumerate(FORMS):
        (root / f"job{i:03d}").mkdir(parents=True)
        (root / f"job{i:03d}" / "rank_0.log").write_text(_log(form), encoding="utf-8")
        (watched / f"rank_{i}.log").write_text(_log(form), encoding="utf-8")
    texts = []
    for suffix in (".csv", ".jsonl"):
        out = tmp_path / f"table{suffix}"
        findings = tmp_path / f"findings{suffix}"
        run_batch([root], out, findings_out=findings, workers=1)
        texts += [out.read_text(encoding="utf-8"), findings.read_text(encoding="utf-8")]
    texts.append(render(load_rows(tmp_path / "table.jsonl")))
    watcher = Watcher([watched])
    texts += [json.dumps(e.to_dict(), ensure_ascii=False) for e in watcher.poll()]
    texts.append(json.dumps(watcher.verdict().to_dict(), ensure_ascii=False))
    blob = "\n".join(texts)
    leaked = [f["id"] for f in FORMS for s in _secrets(f) if s in blob]
    assert not leaked, leaked


NAMED = [
    "report.log?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20261201&X-Amz-Signature="
    "0d9a1e92f90f5a3b4f6d048af3cab24cae68abfce559568b7ae6b861886a3b76",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789.log",
    "dump password=hunter2-very-secret.log",
]


def test_names_are_redacted_in_notes_and_file_fields(tmp_path: Path) -> None:
    """A presigned URL saved as a file name holds its signature: names are redacted
    wherever they are shown (file fields, notes), and shown with --no-redact."""
    for name in NAMED:
        (tmp_path / name).write_text(OOM)
        (tmp_path / (name + ".bin")).write_bytes(b"\x7fELF" + bytes(100))  # a note names it
    for raw in (False, True):
        v = analyze(tmp_path, redact=not raw)
        blob = json.dumps(v.to_dict(), ensure_ascii=False)
        for secret in (
            "AKIAIOSFODNN7EXAMPLE",
            "0d9a1e92f90f5a3b4f6d048af3cab24c",
            "hf_AbCdEf",
            "hunter2",
        ):
            assert (secret in blob) == raw, (secret, raw)


def test_ha_run_files_hold_no_secret_of_the_command(tmp_path: Path) -> None:
    """ha-run's supervisor.json records the command, which takes tokens and passwords
    as arguments: redacted like every other output."""
    import subprocess
    import sys

    secrets = ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "hunter2-very-secret"]
    cmd = [sys.executable, "-m", "analyzer.ops.torchrun", "--log-dir", str(tmp_path / "logs")]
    cmd += ["--", sys.executable, "-c", "print('step 1 loss 2.0')"]
    cmd += ["--hf-token", secrets[0], f"--password={secrets[1]}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    written = [p.read_text() for p in (tmp_path / "logs").rglob("*.json")]
    assert written and any("--hf-token" in w for w in written), done.stderr
    for text in [*written, done.stderr]:
        assert not any(s in text for s in secrets)


CHECKPOINTS = [f for f in FORMS if f["family"] == "checkpoint"]


@pytest.mark.parametrize("form", CHECKPOINTS, ids=[f["id"] for f in CHECKPOINTS])
def test_credentials_in_a_checkpoint_path_are_in_no_output(
    form: dict[str, Any], tmp_path: Path
) -> None:
    """A checkpoint saved or loaded at a URL that carries its credentials, logged as the
    framework logs it (not inside a traceback): the path reaches the verdict's
    checkpoint, the advice, the readiness rows, the batch tables and the report."""
    job = tmp_path / "jobs" / "job"
    job.mkdir(parents=True)
    (job / "rank_0.log").write_text(
        "2026-12-01 10:00:00,000 - INFO - step 100/1000 loss 2.0\n"
        f"{form['line']}\n"
        "2026-12-01 10:00:10,000 - INFO - step 101/1000 loss 2.0\n" + OOM,
        encoding="utf-8",
    )
    texts = [_outputs(job, raw=False)]
    out = tmp_path / "table.jsonl"
    run_batch([tmp_path / "jobs"], out, findings_out=tmp_path / "findings.jsonl", workers=1)
    texts += [out.read_text(encoding="utf-8"), render(load_rows(out))]
    blob = "\n".join(texts)
    assert not [s for s in _secrets(form) if s in blob]
    assert [s for s in _secrets(form) if s in _outputs(job, raw=True)]
