"""The `ha-analyze` command: thin wrappers over the public API.

`ha-analyze PATH...` is short for `ha-analyze analyze PATH...`, the command people type
right after a failure. Exit codes: 0 analysed (whatever the verdict), 1 a `patterns test`
failed, 2 usage error (bad option, bad pattern file), 3 no input could be read at all,
4/5/6 `watch --exit-on` saw a failure / a hang / ran out of --timeout, 7 the output could
not be written, 141 the reader of the output went away.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO, TypeVar

import click

from .analysis import Analyzer, Settings, analyze
from .job.timeline import HANG_FACTOR, HANG_MIN_GAP
from .rules.automaton import available_engines
from .rules.formats import run_examples as run_format_examples
from .rules.matcher import run_examples
from .rules.signatures import load_patterns
from .rules.taxonomy import CATEGORIES
from .sinks import SINKS
from .types import AnalyzerError, PatternError, Stats, Verdict

EXIT_UNREADABLE = 3
EXIT_UNWRITABLE = 7  # the output could not be written (a full disk, /dev/full)
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for `| head`


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what could not be
    written does not print a traceback of its own."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


_NOTES_ON_STDERR = 10  # the JSON holds them all; a folder of binaries must not flood stderr


class _DefaultGroup(click.Group):
    """A group whose first argument, when it is not a subcommand, is a path to analyse;
    a word that is no path but close to a subcommand is a typo (`analyse`), not a log.
    Output that cannot be written ends in one line, not a traceback."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            try:
                return super().main(*args, **kwargs)
            finally:
                sys.stdout.flush()
        except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as grep does
            _discard_stdout()
            sys.exit(EXIT_BROKEN_PIPE)
        except OSError as e:  # a full disk, /dev/full, an I/O error on the output
            _discard_stdout()
            where = f" ({e.filename})" if e.filename else ""
            click.echo(f"ha-analyze: cannot write the output{where}: {e.strerror or e}", err=True)
            sys.exit(EXIT_UNWRITABLE)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        head, args = _global_options(args)
        if head[-1:] == ["--color"]:
            raise click.UsageError("--color needs a value: auto, always or never", ctx)
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            first = args[0]
            if first != "-" and not first.startswith("-") and not Path(first).exists():
                close = difflib.get_close_matches(first, list(self.commands), n=1, cutoff=0.75)
                if close:
                    raise click.UsageError(
                        f"no such command or path: {first!r}; did you mean {close[0]!r}?", ctx
                    )
            args = ["analyze", *args]
        return super().parse_args(ctx, [*head, *args])


def _global_options(args: list[str]) -> tuple[list[str], list[str]]:
    """The group's `--color` taken out of the arguments (anywhere before a `--`:
    `ha-analyze logs/ --color never`, as kubectl takes its global flags), and the rest:
    the group parses the first, the command the second."""
    end = args.index("--") if "--" in args else len(args)
    head: list[str] = []
    rest: list[str] = []
    i = 0
    while i < end:
        if args[i] == "--color":
            head += args[i : min(i + 2, end)]
            i += 2
        else:
            (head if args[i].startswith("--color=") else rest).append(args[i])
            i += 1
    return head, [*rest, *args[end:]]


class _Progress:
    """A sign of life on a terminal's stderr while a long analysis reads: one line,
    redrawn in place, from the second second on, and gone before the verdict prints."""

    AFTER = 2.0  # seconds: a quick analysis shows nothing

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._shown = False

    def __call__(self, st: Stats) -> None:
        if st.seconds < self.AFTER:
            return
        self._out.write(
            f"\rha-analyze: read {st.bytes / 1e6:,.1f} MB, {st.files:,} files, "
            f"{st.lines:,} lines in {st.seconds:.0f} s ...\x1b[K"
        )
        self._out.flush()
        self._shown = True

    def clear(self) -> None:
        if self._shown:
            self._out.write("\r\x1b[K")
            self._out.flush()


def _has(module: str) -> bool:
    """Whether an optional dependency is installed (pyarrow comes with the batch extra)."""
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _colour(ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """`--color` as ripgrep and ls take it; `auto` honours NO_COLOR (no-color.org: set
    and not empty turns colour off) and otherwise colours only a terminal (click's own
    test). Subcommands inherit the context's choice."""
    if value == "always":
        ctx.color = True
    elif value == "never" or os.environ.get("NO_COLOR"):
        ctx.color = False
    return value


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ha-analyze")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=_colour,
    help="Colour the text report: auto (a terminal, unless NO_COLOR is set), always, never.",
)
def main() -> None:
    """Find the root cause of a failed GPU/NPU training job in its logs.

    \b
    ha-analyze logs/                 analyse a job's logs (files, folders, archives, -)
    ha-analyze logs/ --format json   the verdict as one JSON object
    ha-analyze patterns list         the signatures the engine knows
    ha-analyze explain ID            what one signature means and what to do
    """


F = TypeVar("F", bound=Callable[..., Any])


class _Seconds(click.FloatRange):
    """A finite number of seconds above 0 (`nan` and `inf` pass FloatRange's bounds)."""

    name = "seconds"

    def __init__(self, zero: bool = False) -> None:
        super().__init__(min=0, min_open=not zero)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        got = super().convert(value, param, ctx)
        if not math.isfinite(got):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        return got


# The Settings options, declared once: analyze, watch, decide, batch and unknowns take
# them (each less the ones that mean nothing to it), and _settings() turns them into the
# one Settings object the library takes.
_OPTIONS: dict[str, Callable[[F], F]] = {
    "patterns": click.option(
        "--patterns",
        "pattern_dirs",
        multiple=True,
        type=click.Path(exists=True),
        help="Extra signature folder or file (repeatable).",
    ),
    "no_builtin": click.option(
        "--no-builtin",
        is_flag=True,
        help="Use only the signatures given with --patterns, not the built-in catalogue.",
    ),
    "no_signatures": click.option(
        "--no-signatures",
        is_flag=True,
        help="Turn every signature off (built-in and --patterns): the classifier alone decides.",
    ),
    "no_model": click.option(
        "--no-model", is_flag=True, help="Do not ask the classifier when no signature decides."
    ),
    "engine": click.option(
        "--engine",
        type=click.Choice(["hyperscan", "re2"]),
        default=None,
        help="Automaton backend (default: hyperscan where installed and it finds every "
        "signature example, else re2).",
    ),
    "lang": click.option(
        "--lang",
        type=click.Choice(["en", "zh"]),
        default="en",
        show_default=True,
        help="Language of the headline and summary; ids stay English.",
    ),
    "now": click.option(
        "--now",
        type=click.DateTime(["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S%z"]),
        default=None,
        help="The current time, for live logs: progress that stopped long before it is a "
        "hang (default: the latest timestamp in the logs).",
    ),
    "hang_factor": click.option(
        "--hang-factor",
        type=click.FloatRange(min=0, min_open=True),
        default=HANG_FACTOR,
        show_default=True,
        help="A hang is progress stopped for this many times the rank's median step...",
    ),
    "hang_min_gap": click.option(
        "--hang-min-gap",
        type=click.FloatRange(min=0),
        default=HANG_MIN_GAP,
        show_default=True,
        help="...and at least this many seconds (longer during checkpoint saves).",
    ),
    "failed": click.option(
        "--failed",
        is_flag=True,
        help="The job is known to have failed (its exit status says so): logs that show "
        "no cause give `unknown`, never `none`.",
    ),
    "no_redact": click.option(
        "--no-redact",
        is_flag=True,
        help="Show lines as logged: do not replace tokens, keys and passwords with [REDACTED].",
    ),
    "deadline": click.option(
        "--deadline",
        type=_Seconds(),
        default=None,
        help="Answer within about this many seconds: tails of large files first, then the "
        "rest while time remains (stats.complete says whether all was read).",
    ),
}


def _echo_notes(notes: tuple[str, ...]) -> None:
    """The first of a verdict's notes on stderr (the JSON holds them all)."""
    for note in notes[:_NOTES_ON_STDERR]:
        click.echo(f"ha-analyze: {note}", err=True)
    if len(notes) > _NOTES_ON_STDERR:
        more = len(notes) - _NOTES_ON_STDERR
        click.echo(f"ha-analyze: ... {more} more notes in stats.notes", err=True)


def _analysis_options(*skip: str) -> Callable[[F], F]:
    """Decorate a command with the shared options, less `skip`."""

    def decorate(f: F) -> F:
        for name, option in reversed(_OPTIONS.items()):
            if name not in skip:
                f = option(f)
        return f

    return decorate


def _settings(options: dict[str, Any], workers: int = 1) -> Settings:
    """The Settings of a command's shared options (see _OPTIONS)."""
    try:
        return Settings(
            patterns=tuple(options.get("pattern_dirs", ())),
            builtin_patterns=not options.get("no_builtin", False),
            signatures=not options.get("no_signatures", False),
            model=not options.get("no_model", False),
            engine=options.get("engine"),
            lang=options.get("lang", "en"),
            now=options.get("now"),
            hang_factor=options.get("hang_factor", HANG_FACTOR),
            hang_min_gap=options.get("hang_min_gap", HANG_MIN_GAP),
            failed=options.get("failed", False),
            redact=not options.get("no_redact", False),
            deadline=options.get("deadline"),
            workers=workers,
        )
    except AnalyzerError as e:
        raise click.UsageError(str(e)) from None


@main.command("analyze")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(SINKS)),
    default="text",
    show_default=True,
)
@_analysis_options()
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="Exit with the recovery decision's code (0 none, 10 fix and resubmit, 200 restart, "
    "201 pod reschedule, 202 isolate and reschedule; see README).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Processes that read the files of a large job (default: all cores; one for a "
    "single file, a small job or --deadline). Same verdict whatever the number.",
)
def analyze_cmd(
    paths: tuple[str, ...], fmt: str, exit_code: bool, workers: int | None, **options: Any
) -> None:
    """Analyse the logs of one job and print its root-cause verdict."""
    settings = _settings(options, workers or os.cpu_count() or 1)
    shown = _Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        verdict = analyze(list(paths), settings, progress=shown)
    except PatternError as e:
        raise click.UsageError(str(e)) from None
    finally:
        if shown is not None:
            shown.clear()
    unreadable = not verdict.stats.lines  # a missing path, an empty folder, only binaries
    if unreadable and fmt != "json":
        # nothing was read: an error, not a verdict headline (the JSON keeps its object,
        # the partial result a program reads)
        click.echo("ha-analyze: nothing to analyse in " + ", ".join(paths), err=True)
        _echo_notes(verdict.stats.notes or tuple(verdict.stats.unreadable))
        sys.exit(EXIT_UNREADABLE)
    sink = SINKS[fmt]
    click.echo(sink.render(verdict, settings.lang))
    if sink.notes_apart:
        _echo_notes(verdict.stats.notes)
    if unreadable:
        sys.exit(EXIT_UNREADABLE)
    if exit_code:
        from .ops.history import Attempt
        from .ops.policy import decide

        sys.exit(decide(Attempt.of(verdict)).exit_code)


@main.command("readiness")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--scenario",
    type=click.Choice(["single_node", "multi_node", "large_model"]),
    default=None,
    help="The job's scenario (default: inferred from its node count and run length).",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@_analysis_options("no_signatures", "no_model", "now", "hang_factor", "hang_min_gap", "failed")
def readiness_cmd(paths: tuple[str, ...], scenario: str | None, fmt: str, **options: Any) -> None:
    """Is this job set up so that recovery can work? One row per recovery feature: what
    the logs show, with the evidence line, and in place / missing / cannot tell."""
    from .analysis import readiness
    from .sinks import readiness as sink

    settings = _settings(options)
    try:
        table = readiness(list(paths), scenario, settings)  # type: ignore[arg-type]
    except PatternError as e:
        raise click.UsageError(str(e)) from None
    if table.row("failure_analysis").state == "missing" and fmt != "json":
        # nothing was read: an error, as for analyze (the JSON keeps its table)
        click.echo("ha-analyze: nothing to analyse in " + ", ".join(paths), err=True)
        _echo_notes(table.notes)
        sys.exit(EXIT_UNREADABLE)
    click.echo(sink.render_json(table) if fmt == "json" else sink.render(table, settings.lang))
    _echo_notes(table.notes)


EXIT_FAILURE_SEEN = 4
EXIT_HANG = 5
EXIT_WATCH_TIMEOUT = 6  # watch --timeout ran out before an --exit-on event


@main.command("watch")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option(
    "--interval", type=_Seconds(), default=2.0, show_default=True, help="Seconds between polls."
)
@click.option(
    "--exit-on",
    default="",
    help="Comma-separated: failure, hang, finished. "
    "Exit at the first such event (exit code 4, 5 or 0).",
)
@click.option(
    "--timeout", type=_Seconds(zero=True), default=None, help="Stop after this many seconds."
)
@_analysis_options("now", "deadline", "failed")
def watch_cmd(
    paths: tuple[str, ...], interval: float, exit_on: str, timeout: float | None, **options: Any
) -> None:
    """Follow growing logs; print one JSON line per event (failure, hang_suspected,
    hang_confirmed, finished). Exit codes with --exit-on: 4 failure, 5 hang, 0 finished;
    6 when --timeout ran out first; 0 on Ctrl-C."""
    import time

    from .ops.watch import Watcher

    wanted = {w.strip() for w in exit_on.split(",") if w.strip()}
    unknown = wanted - {"failure", "hang", "finished"}
    if unknown:
        raise click.UsageError(f"--exit-on: unknown event(s) {', '.join(sorted(unknown))}")
    try:
        watcher = Watcher(list(paths), _settings(options))
    except PatternError as e:
        raise click.UsageError(str(e)) from None
    started = time.monotonic()
    codes = {"failure": EXIT_FAILURE_SEEN, "hang_confirmed": EXIT_HANG, "finished": 0}
    try:
        while timeout is None or time.monotonic() - started < timeout:
            for event in watcher.poll():
                click.echo(json.dumps(event.to_dict(), ensure_ascii=False), nl=True)
                group = "hang" if event.kind == "hang_confirmed" else event.kind
                if group in wanted and event.kind in codes:
                    sys.exit(codes[event.kind])
            sys.stdout.flush()
            time.sleep(interval)
    except KeyboardInterrupt:
        return
    sys.exit(EXIT_WATCH_TIMEOUT)


@main.group("patterns")
def patterns_grp() -> None:
    """List and test signatures."""


def _load(dirs: tuple[str, ...]) -> Any:
    try:
        return load_patterns(dirs)
    except PatternError as e:
        raise click.UsageError(str(e)) from None


@patterns_grp.command("list")
@click.option("--patterns", "pattern_dirs", multiple=True, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def patterns_list(pattern_dirs: tuple[str, ...], fmt: str) -> None:
    """One line per signature: id, category, role, severity, title."""
    pset = _load(pattern_dirs)
    if fmt == "json":
        rows = [
            {
                "id": s.id,
                "family": s.family,
                "vendor": s.vendor,
                "category": s.category,
                "role": s.role,
                "severity": s.severity,
                "blame": s.blame,
                "recovery": s.recovery or CATEGORIES[s.category].recovery,
                "title": s.title,
                "source": s.source,
            }
            for s in pset.signatures
        ]
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    for s in pset.signatures:
        click.echo(f"{s.id:<44} {s.category:<19} {s.role:<12} {s.severity:<8} {s.title}")
    click.echo(f"{len(pset.signatures)} signatures from {len(pset.files)} files", err=True)


@patterns_grp.command("test")
@click.argument("directory", required=False, type=click.Path(exists=True))
@click.option(
    "--engine",
    type=click.Choice(["hyperscan", "re2"]),
    default=None,
    help="One automaton engine (default: every installed one).",
)
def patterns_test(directory: str | None, engine: str | None) -> None:
    """Run the examples of the built-in signatures, or of the ones in DIRECTORY, on every
    installed automaton engine: a signature one engine cannot compile is refused there."""
    # A folder is tested on its own: its examples concern its own signatures, and loading
    # it beside the built-ins would turn every override (or the built-in folder itself)
    # into an id clash.
    dirs = (directory,) if directory else ()
    failed = False
    for name in [engine] if engine else available_engines():
        try:
            matcher = Settings(patterns=dirs, builtin_patterns=not directory, engine=name).matcher()
        except PatternError as e:
            click.echo(click.style(f"INVALID ({name}) {e}", fg="red"))
            failed = True
            continue
        checked, failures = run_examples(matcher)
        for f in failures:
            click.echo(click.style("FAIL ", fg="red") + f"{f.signature}: {f.problem}\n     {f.log}")
        n, bad = len(matcher.signatures), len({f.signature for f in failures})
        click.echo(f"{n - bad} passed, {bad} failed ({checked} examples, engine {name})")
        failed = failed or bool(bad)
        formats = matcher.formats
    if not failed:  # the formats (prefixes, claims, facts, timestamps, paths): no engine
        checked, problems = run_format_examples(formats)
        for problem in problems:
            click.echo(click.style("FAIL ", fg="red") + problem)
        kinds = (formats.prefixes, formats.claims, formats.facts, formats.timestamps)
        entries = sum(map(len, kinds)) + len(formats.paths)
        click.echo(f"formats: {entries} entries, {checked} examples, {len(problems)} failed")
        failed = bool(problems)
    if failed:
        sys.exit(1)


@patterns_grp.command("export")
@click.option("--patterns", "pattern_dirs", multiple=True, type=click.Path(exists=True))
@click.option("--ere", is_flag=True, required=True, help="POSIX ERE, one per line (grep -E -f).")
@click.option("--output", type=click.Path(dir_okay=False), default=None)
def patterns_export(pattern_dirs: tuple[str, ...], ere: bool, output: str | None) -> None:
    """The signatures' match regexes in another dialect, for `grep -E -f` and friends."""
    from .rules.export import to_ere

    regexes = [rx for s in _load(pattern_dirs).signatures for rx in s.match]
    eres = [e for rx in regexes if (e := to_ere(rx)) is not None]
    text = "".join(e + "\n" for e in eres)
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    click.echo(f"{len(eres)} of {len(regexes)} regexes exported", err=True)


@patterns_grp.command("doc")
@click.option("--patterns", "pattern_dirs", multiple=True, type=click.Path(exists=True))
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write here (e.g. patterns/CATALOGUE.md) instead of stdout.",
)
def patterns_doc(pattern_dirs: tuple[str, ...], output: str | None) -> None:
    """The catalogue as Markdown: coverage per vendor and category, one row per signature."""
    from .rules.catalogue import render

    text = render(_load(pattern_dirs)) + "\n"
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


@main.command("explain")
@click.argument("signature_id")
@click.option("--patterns", "pattern_dirs", multiple=True, type=click.Path(exists=True))
def explain(signature_id: str, pattern_dirs: tuple[str, ...]) -> None:
    """What one signature matches, why it happens and what to do."""
    pset = _load(pattern_dirs)
    s = pset.get(signature_id)
    if s is None:
        close = [x.id for x in pset.signatures if signature_id.split("-")[0] in x.id][:8]
        raise click.UsageError(
            f"no signature {signature_id!r}"
            + (f"; did you mean: {', '.join(close)}" if close else "")
        )
    click.echo(click.style(f"{s.id}: {s.title}", bold=True))
    click.echo(
        f"category {s.category} | role {s.role} | severity {s.severity} | blame {s.blame}"
        + (f" | recovery {s.recovery}" if s.recovery else "")
    )
    click.echo(f"defined in {Path(s.source).name}\n")
    click.echo(s.description.strip() + "\n")
    click.echo("Regex:")
    for rx in s.match:
        click.echo(f"  {rx}")
    for rx in s.exclude:
        click.echo(f"  not: {rx}")
    click.echo("Examples:")
    for ex in s.examples:
        click.echo(f"  {'match' if ex['match'] else 'no   '}  {ex['log']}")
    click.echo("References:")
    for ref in s.references:
        click.echo(f"  {ref}")


@main.command("unknowns")
@click.argument("jobs", nargs=-1, required=True)
@click.option(
    "--top", type=click.IntRange(min=1), default=20, show_default=True, help="Templates to list."
)
@click.option(
    "--suggest",
    is_flag=True,
    help="Print a draft signature file (YAML) for the listed templates instead.",
)
@click.option("--family", default="local", show_default=True, help="Family of the drafts.")
@_analysis_options(
    "no_signatures", "no_model", "lang", "now", "hang_factor", "hang_min_gap", "failed"
)
def unknowns_cmd(
    jobs: tuple[str, ...], top: int, suggest: bool, family: str, **options: Any
) -> None:
    """Error-looking lines no signature knows, clustered into templates.

    Each JOB (a file, folder or archive) is one job. Lines are masked (numbers, paths,
    ids) and grouped Drain-style; the commonest templates come first, with example lines
    and the jobs they appear in. With --suggest, a YAML signature is drafted per template:
    set its category (and check its regex), then pass the file with --patterns.
    """
    from .unknowns.suggest import draft_yaml
    from .unknowns.templates import mine

    settings = _settings(options)
    try:
        settings.matcher()
    except PatternError as e:
        raise click.UsageError(str(e)) from None

    def unmatched() -> Iterator[tuple[str, str]]:
        for job in jobs:
            reading = Analyzer(settings)
            reading.read_paths([job])
            for line in reading.errors.all():
                if not line.matched:
                    yield job, line.text

    templates = mine(unmatched())[:top]
    if not templates:
        click.echo("No unmatched error-looking lines.")
        return
    if suggest:
        try:
            click.echo(draft_yaml(templates, family=family), nl=False)
        except ValueError as e:  # every template too generic to draft from
            raise click.ClickException(str(e)) from None
        return
    for i, t in enumerate(templates, 1):
        click.echo(click.style(f"{i:>3}. x{t.count}  {t.pattern}", bold=True))
        for ex in t.examples[:2]:
            click.echo(f"       e.g. {ex[:200]}")
        more = f" (+{t.job_count - len(t.jobs)} more)" if t.job_count > len(t.jobs) else ""
        click.echo(f"       jobs: {', '.join(t.jobs[:5])}{more}")


@main.command("decide")
@click.argument("path")
@click.option("--policy", "policy_file", type=click.Path(exists=True), help="Policy YAML.")
@click.option(
    "--history",
    "history_file",
    type=click.Path(exists=True),
    help="Verdicts of earlier attempts, one JSON object per line, oldest first.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@_analysis_options("failed")
def decide_cmd(
    path: str,
    policy_file: str | None,
    history_file: str | None,
    fmt: str,
    **options: Any,
) -> None:
    """What a restart controller should do now, and exit with its code.

    PATH holds the logs of the attempt that just failed, or `attempt_N/` folders of
    several attempts of one job (each analysed on its own, the last one is current).
    """
    from .ops.history import Attempt, attempt_dirs, load_history
    from .ops.policy import decide, load_policy

    try:
        policy = load_policy(policy_file) if policy_file else None
        history_notes: list[str] = []
        history = load_history(history_file, history_notes) if history_file else []
        _echo_notes(tuple(history_notes))
        attempts = attempt_dirs(path) or [Path(path)]
        settings = replace(_settings(options), failed=True)  # the attempt just failed
        verdicts = _within(settings, attempts)
    except AnalyzerError as e:
        raise click.UsageError(str(e)) from None
    if verdicts[-1].stats.lines == 0:
        # a controller must not restart (or pass) a job on logs it could not read
        click.echo(f"ha-analyze: no log line could be read in {path}", err=True)
        _echo_notes(verdicts[-1].stats.notes)
        sys.exit(EXIT_UNREADABLE)
    history += [Attempt.of(v) for v in verdicts[:-1]]
    decision = decide(Attempt.of(verdicts[-1]), history, policy)
    if fmt == "json":
        click.echo(json.dumps({"decision": decision.to_dict(), "verdict": verdicts[-1].to_dict()}))
    else:
        click.echo(f"{decision.action.upper()}: {decision.recovery}  (exit {decision.exit_code})")
        click.echo(decision.reason)
        click.echo(verdicts[-1].summary)
    sys.exit(decision.exit_code)


def _within(settings: Settings, attempts: list[Path]) -> list[Verdict]:
    """Each attempt's verdict, the deadline one budget for them all: the current (last)
    attempt gets at least half of it, the earlier ones share the rest. An earlier attempt
    that overruns its share (each gets at least `_LEAST_DEADLINE`, and a reading stops a
    little after its deadline) takes from the total, never from the current attempt's half:
    its verdict is the one the controller acts on."""
    if settings.deadline is None:
        return [analyze(str(a), settings) for a in attempts]
    start = time.monotonic()
    ends, half = start + settings.deadline, start + settings.deadline / 2
    out = []
    for i, a in enumerate(attempts):
        earlier = len(attempts) - 1 - i  # this one and the earlier ones after it
        if earlier:
            left = (half - time.monotonic()) / earlier
        else:
            left = max(ends - time.monotonic(), settings.deadline / 2)
        out.append(analyze(str(a), replace(settings, deadline=max(left, _LEAST_DEADLINE))))
    return out


# the least time an attempt gets under a spent deadline: its verdict says it was cut short
_LEAST_DEADLINE = 0.05


@main.command("batch")
@click.argument("roots", nargs=-1, required=True)
@click.option(
    "--out",
    required=True,
    type=click.Path(),
    help="verdicts.parquet (or .csv, .jsonl): one row per job (a folder with --engine spark).",
)
@click.option(
    "--findings",
    "findings_out",
    type=click.Path(),
    help="Also a table of findings, one row per finding of each job.",
)
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Processes (default: all cores)."
)
@click.option(
    "--depth",
    type=click.IntRange(min=0, max=64),
    default=1,
    show_default=True,
    help="Levels below ROOT where jobs are (0: ROOT is the job).",
)
@_analysis_options("engine", "now")
@click.option(
    "--engine",
    "batch_engine",
    type=click.Choice(["local", "spark"]),
    default="local",
    show_default=True,
    help="local: a process pool; spark: Apache Spark (pip install pyspark; Java 17).",
)
@click.option("--master", default="local[*]", show_default=True, help="Spark master URL.")
def batch_cmd(
    roots: tuple[str, ...],
    out: str,
    findings_out: str | None,
    workers: int | None,
    depth: int,
    batch_engine: str,
    master: str,
    **options: Any,
) -> None:
    """Analyse every job under ROOT (a folder or archive per job) into one table.

    Re-running skips jobs already analysed whose logs did not change; an interrupted
    run resumes where it stopped. Schema: README, "Batch analysis".
    """
    from .batch.run import TABLE_SUFFIXES, BatchLocked, print_progress, run_batch, run_batch_spark

    findings = Path(findings_out) if findings_out else None
    for name, path in (("--out", out), ("--findings", findings_out)):
        if path is not None and Path(path).suffix.lower() not in TABLE_SUFFIXES:
            raise click.UsageError(
                f"{name} {path}: the table's format comes from its suffix, one of "
                + ", ".join(TABLE_SUFFIXES)
            )
        if path is not None and Path(path).suffix.lower() == ".parquet" and not _has("pyarrow"):
            raise click.UsageError(
                f"{name} {path}: Parquet needs pyarrow: pip install 'ha-analyze[batch]' "
                "(or write .csv or .jsonl)"
            )
    settings = _settings(options)
    if batch_engine == "spark":
        if Path(out).suffix.lower() != ".parquet":
            raise click.UsageError("--engine spark writes Parquet: --out must end in .parquet")
        res = run_batch_spark(
            list(roots), Path(out), findings_out=findings, master=master, depth=depth,
            settings=settings,
        )  # fmt: skip
    else:
        try:
            res = run_batch(
                list(roots),
                Path(out),
                findings_out=findings,
                workers=workers,
                depth=depth,
                settings=settings,
                progress=print_progress if sys.stderr.isatty() else None,
            )
        except BatchLocked as e:
            click.echo(f"ha-analyze: {e}", err=True)
            sys.exit(2)
        except OSError as e:  # a full disk, an unwritable folder: the journal keeps what was done
            click.echo(f"ha-analyze: cannot write {out}: {e.strerror or e}", err=True)
            sys.exit(EXIT_UNWRITABLE)
    click.echo(
        f"{res.jobs} jobs: {res.analysed} analysed, {res.skipped} unchanged, "
        f"{res.errors} with errors, in {res.seconds:.1f}s -> {out}"
    )


@main.command("report")
@click.argument("table", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--html", "html_out", required=True, type=click.Path(dir_okay=False), help="report.html"
)
def report_cmd(table: str, html_out: str) -> None:
    """One self-contained HTML report from a batch table (verdicts.parquet, .csv, .jsonl)."""
    from .batch.report import TableError, write_report

    try:
        n = write_report(Path(table), Path(html_out))
    except TableError as e:
        click.echo(f"ha-analyze: {e}", err=True)
        sys.exit(EXIT_UNREADABLE)
    except OSError as e:
        click.echo(f"ha-analyze: cannot write {html_out}: {e.strerror or e}", err=True)
        sys.exit(EXIT_UNREADABLE)
    click.echo(f"{n} jobs -> {html_out}")
