"""Exact signature checks on the few lines the automaton hit.

The automaton says which signatures *may* match a line; here the full regex, its named
captures and its excludes decide. The example runner uses the same path, so a
signature's examples test exactly what the engine does.

The check runs on RE2, not Python's re: log lines are untrusted and up to a MiB long,
and a backtracking engine takes minutes on `.*a.*a.*b` over a thousand-character line
although the pattern has no nested quantifier for a load-time check to refuse. RE2 is
linear in the line, so no pattern can hang a scan. Its per-call cost (~4-8 us against
~1 us for re) is paid only on automaton hits: about 2,000 lines in a 100 MiB log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..read.lines import clean, quoted, strip_prefix
from ..types import DATA_ROLES, SERIES, PatternError, Signature
from ..unknowns.region import ERROR_LINE
from . import automaton
from .formats import Formats
from .formats import builtin as builtin_formats
from .lint import compile_exact
from .signatures import PatternSet, iter_regexes


@dataclass(frozen=True)
class ExampleFailure:
    signature: str
    log: str
    problem: str


class Matcher:
    """Compiled signatures: one automaton for the prefilter, Python regexes for the check."""

    def __init__(
        self, patterns: PatternSet, engine: str | None = None, formats: Formats | None = None
    ) -> None:
        self.signatures = patterns.signatures
        self.formats = formats or builtin_formats()
        # Compiled on first use: most signatures never see a candidate line in a given
        # job, and compiling a thousand regexes up front would double start-up time.
        # Per signature, its regexes on str, and on bytes for an ASCII line (most are):
        # google-re2's wrapper takes 9 us a search on bytes, 23 on str (it converts
        # offsets between characters and bytes), and a console's step lines are many.
        self._compiled: list[tuple[tuple[Any, ...], tuple[Any, ...]] | None]
        self._compiled = [None] * len(self.signatures)
        self._compiled_bytes: list[tuple[tuple[Any, ...], tuple[Any, ...]] | None]
        self._compiled_bytes = [None] * len(self.signatures)
        # A failure message inside quotes is someone talking about the failure (a print,
        # a retry rule), not the failure; a progress line is data wherever it sits.
        self._events = [s.role not in DATA_ROLES for s in self.signatures]
        # One more automaton pattern, past the last signature: error-looking lines, kept
        # for the classifier and the template miner (analyzer.unknowns.region).
        self.error_index = len(self.signatures)
        # Then the facts of the line formats (who is who: analyzer.job.model), found whatever
        # the signatures say about their lines.
        self.fact_base = self.error_index + 1
        regexes = [
            *iter_regexes(self.signatures),
            (self.error_index, ERROR_LINE),
            *((self.fact_base + k, f.regex) for k, f in enumerate(self.formats.facts)),
        ]
        # Sampled: step and work-bar lines (a timeline needs a block's first and last
        # ones) and error lines (the region keeps a file's first 20 and last 40, which the
        # head and tail samples of its blocks still give exactly).
        steps = [i for i, s in enumerate(self.signatures) if s.progress in SERIES]
        # what every automaton must find: each signature's and each fact's examples
        probes = [
            (i, ex["log"].encode("utf-8", "surrogateescape"))
            for i, sig in enumerate(self.signatures)
            for ex in sig.examples
            if ex["match"]
        ]
        probes += [
            (self.fact_base + k, ex["line"].encode("utf-8", "surrogateescape"))
            for k, f in enumerate(self.formats.facts)
            for ex in f.examples
            if ex.get("fields")
        ]
        try:
            self.automaton = automaton.build(
                regexes, engine, [steps, [self.error_index]], [self.formats.key, None], probes
            )
        except automaton.AutomatonError as e:
            sig = self.signatures[e.index]
            raise PatternError(f"{sig.source}: {sig.id}: match: {e}") from None
        except Exception as e:  # the set as a whole: past RE2's memory budget, Hyperscan's limits
            raise PatternError(
                f"the {len(self.signatures):,} signatures cannot be compiled together "
                f"({len(regexes):,} regexes): {type(e).__name__}: {e}"
            ) from None

    def _regexes(self, index: int, on_bytes: bool) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Signature `index`'s match and exclude regexes, compiled on first use."""
        table = self._compiled_bytes if on_bytes else self._compiled
        compiled = table[index]
        if compiled is None:
            sig = self.signatures[index]

            def exact(rx: str) -> Any:
                return compile_exact(rx.encode() if on_bytes else rx)

            compiled = table[index] = (
                tuple(exact(rx) for rx in sig.match),
                tuple(exact(rx) for rx in sig.exclude),
            )
        return compiled

    def verify(self, index: int, message: str) -> dict[str, str] | None:
        """Captures if signature `index` matches the message (excludes applied), else None."""
        on_bytes = message.isascii()  # then byte offsets are character offsets
        match, exclude = self._regexes(index, on_bytes)
        if not on_bytes:
            # RE2 takes UTF-8; a lone surrogate (from a caller's surrogateescape) cannot be.
            message = message.encode("utf-8", "replace").decode("utf-8")
        text: str | bytes = message.encode() if on_bytes else message
        for rx in match:
            m = rx.search(text)
            if m is None or (
                self._events[index]
                and (quoted(message, m.start(), m.end()) or self.formats.data_line(message))
            ):
                continue
            if any(x.search(text) for x in exclude):
                return None
            found = m.groupdict().items()
            if on_bytes:  # names as bytes too: the wrapper gives them as it got them
                return {k.decode(): v.decode() for k, v in found if v is not None}
            return {k: v for k, v in found if v is not None}
        return None

    def match_line(self, raw: str) -> tuple[list[tuple[Signature, dict[str, str]]], bool]:
        """Every signature matching one raw line, through the same path as a scan; and
        whether a signature's text is in it but was refused there (quoted, printed as
        data, a kernel message inside another line's words)."""
        block = raw.encode("utf-8", "surrogateescape") + b"\n"
        out: list[tuple[Signature, dict[str, str]]] = []
        refused = False
        for _, _, candidates in self.automaton.scan(block):
            for segment in clean(raw):
                message = strip_prefix(segment, self.formats).text
                for i in candidates:
                    if i >= self.error_index:
                        continue
                    caps = self.verify(i, message)
                    if caps is None:
                        refused = refused or self._matches(i, message)
                    elif all(self.signatures[i] is not s for s, _ in out):
                        out.append((self.signatures[i], caps))
        return out, refused

    def _matches(self, index: int, message: str) -> bool:
        """Whether signature `index`'s text is in the message but quoted or printed as
        data there (what `verify` refused for its place, not for an `exclude`)."""
        if not self._events[index]:
            return False
        match, exclude = self._regexes(index, False)
        if any(x.search(message) for x in exclude):
            return False
        return any(rx.search(message) for rx in match)


def context_only(matcher: Matcher, raw: str) -> bool:
    """Whether a line is one that signatures know as context only (every signature that
    matches it has severity info: a progress line, a benign notice; or is a wrapper's
    summary, a confirmation of category unknown that says the cause is elsewhere:
    `ChildFailedError`, Ray Train's `TrainingFailedError`), or one where a signature's
    text was refused as quoted or data: such a line is never evidence, for the
    classifier either."""
    found, refused = matcher.match_line(raw)
    return (bool(found) and all(_context(sig) for sig, _ in found)) or (refused and not found)


def _context(sig: Signature) -> bool:
    return sig.severity == "info" or (sig.role == "confirmation" and sig.category == "unknown")


def run_examples(matcher: Matcher) -> tuple[int, list[ExampleFailure]]:
    """Check every signature's examples through the real scan path; (checked, failures)."""
    failures: list[ExampleFailure] = []
    checked = 0
    by_id = {s.id: s for s in matcher.signatures}
    for sig in matcher.signatures:
        for ex in sig.examples:
            checked += 1
            got = dict((s.id, caps) for s, caps in matcher.match_line(ex["log"])[0])
            if ex["match"] and sig.id not in got:
                failures.append(ExampleFailure(sig.id, ex["log"], "should match but does not"))
            elif not ex["match"] and sig.id in got:
                failures.append(ExampleFailure(sig.id, ex["log"], "matches but should not"))
            elif ex["match"]:
                # A progress or setting line may also be a failure line (a NaN loss in a
                # step line): the kinds never compete, so only collisions within one count.
                others = sorted(
                    other
                    for other in set(got) - {sig.id} - set(sig.overlaps)
                    if kind_of(by_id[other]) == kind_of(sig)
                )
                if others:
                    failures.append(
                        ExampleFailure(
                            sig.id,
                            ex["log"],
                            f"also matches {', '.join(others)}: make one more specific, or "
                            "declare 'overlaps' if both readings are right",
                        )
                    )
                unasserted = sorted(set(got[sig.id]) - set(ex.get("captures") or {}))
                if unasserted:
                    failures.append(
                        ExampleFailure(
                            sig.id,
                            ex["log"],
                            f"captures {', '.join(unasserted)} not asserted: list every "
                            "capture the example produces under 'captures'",
                        )
                    )
                for k, v in (ex.get("captures") or {}).items():
                    if got[sig.id].get(k) != str(v):
                        failures.append(
                            ExampleFailure(
                                sig.id,
                                ex["log"],
                                f"capture {k!r}: expected {v!r}, got {got[sig.id].get(k)!r}",
                            )
                        )
    return checked, failures


def kind_of(sig: Signature) -> str:
    """Which kind of line a signature reads: an event, a progress point or a setting."""
    return sig.role if sig.role in DATA_ROLES else "event"
