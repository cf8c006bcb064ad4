"""The public dev set's figures, per category, against what README says of them.

    python3 benchmarks/accuracy.py [CASES] [--write]

Runs the shared scorer (`CASES/../score.py`: `ha-analyze <case>/logs --format json` per
case, `--failed` where the label says the job failed) on this checkout with
`--by-category --show-misses`, and compares its per-category table, its summary and
its misses with README's "Accuracy" section (between the `accuracy:begin` and
`accuracy:end` markers). Exit 1 when README drifted; `--write` rewrites the section
from the run instead. The dev set lives outside the repository (`../shared/eval/dev`
by default); without it there is nothing to measure (exit 2).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DEFAULT_CASES = REPO.parent / "shared" / "eval" / "dev"
BEGIN, END = "<!-- accuracy:begin -->", "<!-- accuracy:end -->"
_ROW = re.compile(r"^  (\w+) +(\d+)/(\d+)$")
_SUMMARY = re.compile(r"^cases \d+ \| .*$")
_MISS = re.compile(r"^(dev-\d+): want (\w+)/(\w+), got (\w+)/(\w+)")


def measure(cases: Path) -> str:
    """The README section's body, from one run of the scorer."""
    cmd = [sys.executable, str(cases.parent / "score.py"), str(cases), "--by-category"]
    cmd += ["--show-misses", "--cmd", f"{sys.executable} -m analyzer"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=REPO).stdout
    rows = [m.groups() for m in map(_ROW.match, out.splitlines()) if m]
    summary = next((line for line in out.splitlines() if _SUMMARY.match(line)), "")
    misses = [m.groups() for m in map(_MISS.match, out.splitlines()) if m]
    summary = re.sub(r" \| median [\d.]+s/case", "", summary)  # machine-dependent
    lines = ["| category | cases | right |", "|---|---|---|"]
    lines += [f"| `{cat}` | {total} | {ok} |" for cat, ok, total in rows]
    lines += ["", f"`{summary}`", ""]
    if misses:
        lines.append("Misses:")
        lines += [f"- {case}: `{wc}/{wr}` read as `{gc}/{gr}`" for case, wc, wr, gc, gr in misses]
    else:
        lines.append("Misses: none.")
    return "\n".join(lines)


def said() -> str:
    """The section's body as README has it now."""
    text = README.read_text(encoding="utf-8")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("cases", nargs="?", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--write", action="store_true", help="rewrite README's section")
    args = ap.parse_args(argv)
    if not (args.cases / "../score.py").resolve().is_file():
        print(f"accuracy: no dev set with a score.py beside it at {args.cases}", file=sys.stderr)
        return 2
    body = measure(args.cases)
    print(body)
    if args.write:
        text = README.read_text(encoding="utf-8")
        head, rest = text.split(BEGIN, 1)
        README.write_text(f"{head}{BEGIN}\n{body}\n{END}{rest.split(END, 1)[1]}", "utf-8")
        return 0
    if body != said():
        print("accuracy: README's Accuracy section differs from this run", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
