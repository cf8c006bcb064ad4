"""A batch table -> one self-contained HTML report (inline CSS and SVG, no network).

For a platform team looking at thousands of jobs: what fails and how often, what it
would take to recover, over time; which signatures dominate; which hosts keep being the
root cause ("lemon nodes"); which restarts hit the same cause again; what nobody has a
signature for yet; and every job with its evidence line. Charts are plain SVG drawn
here, so the file opens anywhere, offline, and holds no script at all.
"""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..decide.readiness import FEATURES
from ..job.model import cordonable
from ..sinks.prose import category_name, recovery_name, say
from ..types import AnalyzerError
from ..unknowns.templates import mine

_PALETTE = (
    "#d62728", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#843c39",
)  # fmt: skip
_ATTEMPT = re.compile(r"^(?P<base>.+?)[/_-]+(?:attempt|retry|restart)[_-]?(?P<n>\d+)$", re.I)
_MAX_JOB_ROWS = 5000


class TableError(AnalyzerError):
    """A file that is not a batch table: unreadable, corrupt, or without the columns a
    batch writes. The message is one line naming the file and what is wrong."""


# the columns every batch table has (analyzer.batch.run.COLUMNS), by which one is recognised
_REQUIRED = ("job_id", "category")


def load_rows(path: Path) -> list[dict[str, Any]]:
    """A batch table (Parquet, CSV or JSON lines) as row dicts; TableError when the file
    cannot be read as one."""
    try:
        rows, columns = _read_rows(path)
    except (OSError, UnicodeDecodeError, ValueError, TypeError) as e:
        # pyarrow's ArrowInvalid and json's JSONDecodeError are ValueErrors
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise TableError(f"{path}: not a readable batch table ({reason})") from None
    if any(not isinstance(r, dict) for r in rows):
        raise TableError(f"{path}: not a batch table (a line is not a JSON object)")
    missing = [c for c in _REQUIRED if c not in columns]
    if missing:
        raise TableError(f"{path}: not a batch table (no {' or '.join(missing)} column)")
    return rows


def _read_rows(path: Path) -> tuple[list[Any], set[str]]:
    """The rows and the column names of a table (an empty JSON-lines file has none)."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise TableError(
                f"{path}: Parquet needs pyarrow: pip install 'ha-analyze[batch]'"
            ) from None
        table = pq.read_table(path)
        return list(table.to_pylist()), set(table.column_names)
    if suffix == ".csv":
        import csv

        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            return [dict(r) for r in reader], set(reader.fieldnames or ())
    import json

    text = path.read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    if not rows:  # a batch of no jobs
        return rows, set(_REQUIRED)
    return rows, set(rows[0]) if isinstance(rows[0], dict) else set()


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _bars(counts: Sequence[tuple[str, int]], colours: dict[str, str], label: str) -> str:
    """A horizontal bar chart as inline SVG."""
    if not counts:
        return "<p class=dim>none</p>"
    top = max(n for _, n in counts)
    row, width = 22, 420
    parts = [
        f'<svg role="img" aria-label="{_e(label)}" width="{width + 260}" '
        f'height="{row * len(counts) + 8}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (name, n) in enumerate(counts):
        w = max(2, int(width * n / top))
        y = i * row + 4
        parts.append(
            f'<text x="0" y="{y + 14}" font-size="12">{_e(name)}</text>'
            f'<rect x="200" y="{y}" width="{w}" height="16" fill="{colours.get(name, "#888")}">'
            f"<title>{_e(name)}: {n}</title></rect>"
            f'<text x="{204 + w}" y="{y + 13}" font-size="12">{n}</text>'
        )
    return "".join(parts) + "</svg>"


def _timeline(rows: Sequence[dict[str, Any]], colours: dict[str, str]) -> str:
    """Failed jobs per day, stacked by category, as inline SVG."""
    per_day: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        when = r.get("root_time") or r.get("analyzed_at") or ""
        if r.get("category") not in (None, "none") and len(when) >= 10:
            per_day[when[:10]][r["category"]] += 1
    if not per_day:
        return "<p class=dim>no dated failures</p>"
    days = sorted(per_day)[-90:]
    top = max(sum(per_day[d].values()) for d in days)
    bar, height = max(4, min(24, 720 // len(days))), 160
    cats = sorted({c for d in days for c in per_day[d]})
    # wide enough for two dates side by side and the legend, however few the days
    width = max(bar * len(days) + 60, _MIN_CHART, 40 + _LEGEND_ITEM * min(len(cats), 6))
    legend_rows = -(-len(cats) // 6)
    parts = [
        f'<svg role="img" aria-label="failures per day" width="{width}" '
        f'height="{height + 48 + 18 * legend_rows}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, d in enumerate(days):
        y = height
        for cat, n in sorted(per_day[d].items()):
            h = max(1, int(height * n / top))
            y -= h
            parts.append(
                f'<rect x="{40 + i * bar}" y="{y + 10}" width="{bar - 1}" height="{h}" '
                f'fill="{colours.get(cat, "#888")}"><title>{_e(d)} {_e(cat)}: {n}</title></rect>'
            )
    parts.append(f'<text x="0" y="{height + 10}" font-size="11">0</text>')
    parts.append(f'<text x="0" y="20" font-size="11">{top}</text>')
    first_x = 40 + bar / 2
    if len(days) == 1:  # one date, under its bar
        parts.append(f'<text x="{first_x}" y="{height + 30}" font-size="11">{_e(days[0])}</text>')
    else:  # the first and last dates, under their bars, never over each other
        last_x = max(40 + bar * (len(days) - 1) + bar / 2, first_x + 150)
        parts.append(f'<text x="{first_x}" y="{height + 30}" font-size="11">{_e(days[0])}</text>')
        parts.append(
            f'<text x="{last_x}" y="{height + 30}" font-size="11" text-anchor="end">'
            f"{_e(days[-1])}</text>"
        )
    for k, cat in enumerate(cats):  # the legend: a swatch and a name per category
        x, y = 40 + _LEGEND_ITEM * (k % 6), height + 44 + 18 * (k // 6)
        parts.append(
            f'<rect class="legend" x="{x}" y="{y}" width="10" height="10" '
            f'fill="{colours.get(cat, "#888")}"></rect>'
            f'<text x="{x + 14}" y="{y + 9}" font-size="11">{_e(cat)}</text>'
        )
    return "".join(parts) + "</svg>"


# the time chart's least width (px) and the room one legend entry takes
_MIN_CHART, _LEGEND_ITEM = 360, 150


def _table(head: Sequence[str], body: Sequence[Sequence[object]], cls: str = "") -> str:
    if not body:
        return "<p class=dim>none</p>"
    h = "".join(f"<th>{_e(c)}</th>" for c in head)
    rows = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in body)
    return f'<table class="{cls}"><thead><tr>{h}</tr></thead><tbody>{rows}</tbody></table>'


def lemon_nodes(rows: Sequence[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """Hosts the verdicts of two or more failed jobs point at (`act_on_host`; a table
    written before that column: the root line's host), with their categories. A survivor
    that reported losing its peer is the root line's host, never the one pointed at."""
    by_host: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        host = r.get("act_on_host") if "act_on_host" in r else r.get("root_host")
        if isinstance(host, str) and cordonable(host) and r.get("category") not in (None, "none"):
            by_host[host].append(r["category"])
    return sorted(
        (
            (h, len(c), ", ".join(f"{k} x{n}" for k, n in Counter(c).most_common()))
            for h, c in by_host.items()
            if len(c) >= 2
        ),
        key=lambda x: (-x[1], x[0]),
    )


def repeated_causes(rows: Sequence[dict[str, Any]]) -> list[tuple[str, str, int]]:
    """Jobs whose attempts (`.../attempt_N`, `-retry2`) failed with the same root
    signature more than once: restarts that did not help."""
    seen: dict[tuple[str, str], int] = Counter()
    for r in rows:
        m = _ATTEMPT.match(str(r.get("job_id", "")))
        sig = r.get("root_signature") or r.get("category")
        if m and sig and r.get("category") not in (None, "none"):
            seen[(m.group("base"), str(sig))] += 1
    return sorted(((b, s, n) for (b, s), n in seen.items() if n >= 2), key=lambda x: (-x[2], x[0]))


def _hours(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for r in rows:
        h = r.get("gpu_hours")
        if h not in (None, ""):
            out[str(r["category"])] += float(h)
    return out


def readiness_counts(rows: Sequence[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    """Per readiness row: jobs in place, missing, cannot tell (tables without the
    columns, written before them, count nowhere)."""
    out = []
    for feature in FEATURES:
        states = Counter(r.get(f"ready_{feature}") for r in rows)
        out.append((feature, states["in_place"], states["missing"], states["cannot_tell"]))
    return out


def not_resumable(failed: Sequence[dict[str, Any]]) -> tuple[int, int, float]:
    """Failed jobs that could not have been resumed (their checkpoint resume row is
    missing: no checkpoint, a node-local one, a script that refuses to start again),
    those the logs cannot tell about, and the accelerator hours the first group's
    restart from scratch repeats."""
    missing = [r for r in failed if r.get("ready_checkpoint_resume") == "missing"]
    unknown = sum(1 for r in failed if r.get("ready_checkpoint_resume") == "cannot_tell")
    hours = sum(float(r["gpu_hours"]) for r in missing if r.get("gpu_hours") not in (None, ""))
    return len(missing), unknown, hours


def _readiness(rows: Sequence[dict[str, Any]], failed: Sequence[dict[str, Any]]) -> str:
    missing, unknown, hours = not_resumable(failed)
    share = f"{missing / len(failed):.0%}" if failed else "-"
    return (
        f"<p>{missing} of {len(failed)} failed jobs ({share}) could not have been resumed "
        f"from a checkpoint; their restart from scratch repeats {hours:,.0f} accelerator "
        f"hours. The logs of {unknown} more cannot tell.</p>"
        + _table(
            ["feature", "in place", "missing", "cannot tell"],
            [(say(f"feature.{f}"), *n) for f, *n in readiness_counts(rows)],
        )
    )


def render(rows: Sequence[dict[str, Any]], title: str = "ha-analyze batch report") -> str:
    failed = [r for r in rows if r.get("category") not in (None, "none")]
    cats = Counter(r["category"] for r in failed)
    colours = {c: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(sorted(cats))}
    recs = Counter(r.get("recovery") or "?" for r in failed)
    sigs = Counter(r["root_signature"] for r in failed if r.get("root_signature"))
    errors = [r for r in rows if r.get("error")]
    unknown = [
        (str(r["job_id"]), str(r["root_text"]))
        for r in failed
        if r.get("root_text") and (r.get("category") == "unknown" or r.get("decided_by") == "model")
    ]
    templates = mine(unknown)[:20]
    jobs = sorted(rows, key=lambda r: (r.get("category") in (None, "none"), str(r.get("job_id"))))
    sections = [
        f"<h1>{_e(title)}</h1>",
        f"<p>{len(rows)} jobs, {len(failed)} failed, {len(errors)} could not be analysed.</p>",
        "<h2>Failures by category</h2>",
        _bars([(f"{c}", n) for c, n in cats.most_common()], colours, "failures by category"),
        "<p class=dim>"
        + "; ".join(f"{_e(c)}: {_e(category_name(c, 'en'))}" for c in sorted(cats))
        + "</p>",
        "<h2>Recovery that would apply</h2>",
        _bars(recs.most_common(), {}, "failures by recovery"),
        "<p class=dim>"
        + "; ".join(f"{_e(r)}: {_e(recovery_name(r, 'en'))}" for r in sorted(recs) if r != "?")
        + "</p>",
        "<h2>Accelerator hours spent in failed jobs, by category</h2>",
        _bars(
            sorted(
                ((c, round(h)) for c, h in _hours(failed).items() if h >= 0.5),
                key=lambda x: -x[1],
            ),
            colours,
            "accelerator hours by category",
        ),
        "<p class=dim>ranks x steps reached x median step time, where the logs show steps "
        "and their times; a restart from scratch repeats these hours, one from the newest "
        "checkpoint only the steps past it.</p>",
        "<h2>HA readiness</h2>",
        _readiness(rows, failed),
        "<h2>Failures over time</h2>",
        _timeline(rows, colours),
        "<h2>Top root-cause signatures</h2>",
        _table(["signature", "jobs"], sigs.most_common(25)),
        "<h2>Lemon nodes (root cause of several jobs)</h2>",
        _table(["host", "jobs", "categories"], lemon_nodes(rows)[:25]),
        "<h2>Restarts that hit the same cause again</h2>",
        _table(["job", "root cause", "attempts"], repeated_causes(rows)),
        "<h2>Top unknown templates</h2>",
        _table(
            ["template", "jobs", "example"],
            [(t.pattern, t.job_count, t.examples[0] if t.examples else "") for t in templates],
        ),
        "<h2>Jobs</h2>",
        _table(
            ["job", "category", "recovery", "confidence", "root cause", "evidence", "error"],
            [
                (
                    r.get("job_id"),
                    r.get("category"),
                    r.get("recovery"),
                    f"{float(r['confidence']):.2f}"
                    if r.get("confidence") not in (None, "")
                    else "",
                    f"{r.get('root_file')}:{r.get('root_line')}" if r.get("root_file") else "",
                    (r.get("root_text") or "")[:300],
                    r.get("error") or "",
                )
                for r in jobs[:_MAX_JOB_ROWS]
            ],
            "jobs",
        ),
    ]
    if len(jobs) > _MAX_JOB_ROWS:
        sections.append(
            f"<p class=dim>{len(jobs) - _MAX_JOB_ROWS} more jobs in the table file.</p>"
        )
    style = (
        "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
        "padding:3px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}"
        ".jobs td:nth-child(6){font-family:monospace;white-space:pre-wrap}.dim{color:#666}"
    )
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f"<title>{_e(title)}</title><style>{style}</style></head><body>"
        + "\n".join(sections)
        + "</body></html>\n"
    )


def write_report(table: Path, out: Path) -> int:
    """Render `table` to `out` atomically; the number of jobs in it."""
    rows = load_rows(table)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(render(rows), encoding="utf-8")
    tmp.replace(out)
    return len(rows)
