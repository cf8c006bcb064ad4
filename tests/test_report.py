"""The HTML report: self-contained, every section, no secret, no script."""

from __future__ import annotations

import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner
from conftest import FIXTURES
from test_batch import _jobs
from test_redact import SECRETS

from analyzer.batch.report import lemon_nodes, load_rows, render, repeated_causes
from analyzer.batch.run import run_batch
from analyzer.cli import main

SECTIONS = (
    "Failures by category",
    "Recovery that would apply",
    "Failures over time",
    "Top root-cause signatures",
    "Lemon nodes",
    "Restarts that hit the same cause again",
    "Top unknown templates",
    "Jobs",
)


class _Strict(HTMLParser):
    """Collects tags and any attribute that would load something from elsewhere."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.remote: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"):
                self.remote.append(f"{tag} {k}={v}")


def test_report_from_a_batch_has_every_section_and_loads_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _jobs(root, 6)
    shutil.copytree(FIXTURES / "secrets", root / "job-with-secrets")
    table = tmp_path / "v.parquet"
    run_batch([root], table, workers=1)
    out = tmp_path / "report.html"
    r = CliRunner().invoke(main, ["report", str(table), "--html", str(out)])
    assert r.exit_code == 0, r.output
    page = out.read_text(encoding="utf-8")
    for s in SECTIONS:
        assert s in page, s
    parser = _Strict()
    parser.feed(page)
    assert "script" not in parser.tags and not parser.remote
    assert "svg" in parser.tags and "device_oom" in page and "job-archived.tar.gz" in page
    for secret in SECRETS:
        assert secret not in page, secret
    assert "[REDACTED]" in page


def test_lemon_nodes_and_repeated_causes() -> None:
    rows = [
        {
            "job_id": "j1/attempt_0",
            "category": "device_fault",
            "root_host": "node-7",
            "root_signature": "xid-79",
        },
        {
            "job_id": "j1/attempt_1",
            "category": "device_fault",
            "root_host": "node-7",
            "root_signature": "xid-79",
        },
        {"job_id": "j2", "category": "device_oom", "root_host": "node-2", "root_signature": "oom"},
        {"job_id": "j3", "category": "none", "root_host": "node-2"},
    ]
    assert lemon_nodes(rows) == [("node-7", 2, "device_fault x2")]
    assert repeated_causes(rows) == [("j1", "xid-79", 2)]
    page = render(rows)
    assert "node-7" in page and "xid-79" in page


def test_hostile_text_is_escaped() -> None:
    rows = [
        {
            "job_id": "<script>alert(1)</script>",
            "category": "unknown",
            "root_text": "<img src=x onerror=1>",
        }
    ]
    page = render(rows)
    assert "<script>" not in page and "<img" not in page and "&lt;img" in page


def test_the_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    """Debian's chromium loads the page offline, logs no console error, takes a screenshot."""
    import subprocess

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        import pytest

        pytest.skip("chromium is not installed (.ci/run installs Debian's package)")
    root = tmp_path / "root"
    _jobs(root, 6)
    table = tmp_path / "v.parquet"
    run_batch([root], table, workers=1)
    page = tmp_path / "report.html"
    CliRunner().invoke(main, ["report", str(table), "--html", str(page)])
    shot = tmp_path / "report.png"
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", "--window-size=1280,2000", f"--screenshot={shot}", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    console = [ln for ln in done.stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, console
    assert shot.exists() and shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_time_chart_reads_with_one_day_and_has_a_legend(tmp_path: Path) -> None:
    """Issue 17, point 10: with one day of data the date is drawn whole inside the
    chart (not clipped at its left edge, not twice on top of itself), and every category
    drawn has a legend entry in its colour."""
    _jobs(tmp_path / "root")
    run_batch([tmp_path / "root"], tmp_path / "v.jsonl", workers=1)
    page = render(load_rows(tmp_path / "v.jsonl"))
    chart = page.split('aria-label="failures per day"', 1)[1].split("</svg>", 1)[0]
    width = float(chart.split('width="', 1)[1].split('"', 1)[0])
    dates = re.findall(r'<text x="([\d.]+)"[^>]*>(\d{4}-\d\d-\d\d)</text>', chart)
    assert len(dates) == 1 and float(dates[0][0]) > 0 and float(dates[0][0]) + 70 < width
    legend = re.findall(r'class="legend"[^>]*fill="([^"]+)"></rect><text[^>]*>(\w+)</text>', chart)
    assert {name for _, name in legend} == {"device_oom", "device_fault"}
    for colour, name in legend:
        assert re.search(rf'fill="{re.escape(colour)}"><title>[\d-]+ {name}: \d+', chart)


def test_a_survivor_that_reported_its_peer_lost_is_no_lemon_node() -> None:
    """The lemon table counts the host a verdict points at, not the root line's writer:
    two jobs whose survivor node-a reported losing node-b list node-b, never node-a; a
    table written before `act_on_host` counts its root hosts as before."""
    reported = {"category": "network_fault", "root_host": "node-a", "act_on_host": "node-b"}
    silent = {"category": "unknown", "root_host": "node-a", "act_on_host": None}
    assert [h for h, _, _ in lemon_nodes([reported, reported])] == ["node-b"]
    assert lemon_nodes([silent, silent]) == []
    old = {"category": "device_oom", "root_host": "node-2"}
    assert [h for h, _, _ in lemon_nodes([old, old])] == ["node-2"]
