"""Load and validate signature files (patterns/signatures/*.yaml) into a PatternSet.

Validation is strict and names file, id and field, because a silently ignored typo in a
signature is a failure nobody notices until the verdict is wrong.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..job.stacks import CAPTURES as STACK_CAPTURES
from ..read.lines import clean, strip_prefix
from ..types import (
    BLAMES,
    PROGRESS_KINDS,
    ROLES,
    SETTING_KINDS,
    SEVERITIES,
    PatternError,
    Signature,
)
from . import cache
from .automaton import refusal
from .lint import GREEDY_BETWEEN, check_regex, compile_exact
from .taxonomy import CATEGORIES, RECOVERIES
from .yamlfile import YamlError, load_text, rule_files

# line formats too (analyzer.rules.formats): neither is a signature file
# Which stack a family belongs to, for coverage counts (`patterns doc`).
VENDORS = ("nvidia", "ascend", "framework", "system", "other")
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)+$")
_FAMILY = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_HEADINGS = ("### What it matches", "### Why it happens", "### What to do")
_REQUIRED = (
    "id",
    "title",
    "category",
    "role",
    "severity",
    "blame",
    "literals",
    "match",
    "description",
    "references",
    "examples",
)
# Every field a signature may have, in the canonical order the built-in files follow.
KEY_ORDER = (
    "id",
    "title",
    "category",
    "role",
    "severity",
    "blame",
    "recovery",
    "retryable",
    "overlaps",
    "override",
    "literals",
    "match",
    "exclude",
    "message",
    "message_zh",
    "evidence",
    "min_count",
    "completion",
    "final",
    "progress",
    "setting",
    "raised_in",
    "raised_between",
    "stack",
    "description",
    "references",
    "examples",
)
_OPTIONAL = tuple(k for k in KEY_ORDER if k not in _REQUIRED)

# Constructs outside the subset shared by Python re, RE2 and Hyperscan.


@dataclass(frozen=True)
class PatternSet:
    """Every loaded signature, in load order (built-ins first)."""

    signatures: tuple[Signature, ...]
    files: tuple[str, ...]

    def get(self, sig_id: str) -> Signature | None:
        return next((s for s in self.signatures if s.id == sig_id), None)


# Bounds on one pattern file, far above any real one (the largest built-in file holds
# 136 signatures; all 546 hold 80 KB of regex)
MAX_FILE_SIGNATURES = 2000
MAX_FILE_REGEX = 256 << 10
MAX_USER_REGEX = 1 << 20  # all user files together


# a signature's message: its length and placeholders (each renders a capture of up to
# 4 KiB), so that no message renders more than about 64 KiB per finding
MAX_MESSAGE = 2000
MAX_PLACEHOLDERS = 16


def load_patterns(extra: Sequence[str | Path] = (), *, builtin: bool = True) -> PatternSet:
    """Load the built-in signatures and the YAML files of each extra folder (or file).

    A user signature whose id clashes with a built-in one is an error unless it says
    `override: true`, so nobody shadows a built-in by accident.
    """
    for item in extra:
        if not Path(item).exists():
            raise PatternError(f"{item}: no such pattern file or folder")
    files = list(rule_files("signatures", builtin, ()))
    user_files = list(rule_files("signatures", False, extra))
    by_id: dict[str, Signature] = {}
    builtin_ids: set[str] = set()
    for f in files:
        for sig in _load_file(f):
            if sig.id in by_id:
                raise PatternError(f"{f}: {sig.id}: id: already defined in {by_id[sig.id].source}")
            by_id[sig.id] = sig
            builtin_ids.add(sig.id)
    user_regex = 0
    for f in user_files:
        for sig, override in _load_file_with_override(f):
            user_regex += sum(map(len, sig.match))
            if user_regex > MAX_USER_REGEX:
                raise PatternError(
                    f"{f}: the user pattern files hold more than {MAX_USER_REGEX:,} characters "
                    "of regex in all"
                )
            for rx in sig.match:
                why = refusal(rx)
                if why:
                    raise PatternError(f"{f}: {sig.id}: match: {why}")
            if sig.id in by_id:
                if sig.id in builtin_ids and override:
                    by_id[sig.id] = sig
                    continue
                raise PatternError(
                    f"{f}: {sig.id}: id: clashes with {by_id[sig.id].source}"
                    + (
                        "; add 'override: true' to replace the built-in"
                        if sig.id in builtin_ids
                        else ""
                    )
                )
            by_id[sig.id] = sig
    return PatternSet(tuple(by_id.values()), tuple(str(f) for f in files + user_files))


def _load_file(path: Path) -> list[Signature]:
    return [s for s, _ in _load_file_with_override(path)]


def _load_file_with_override(path: Path) -> list[tuple[Signature, bool]]:
    """A validated pattern file (each signature and whether it overrides a built-in one),
    from the cache when its bytes were validated before: validating ~600 signatures
    (regex parsing, example checks) costs 0.3 s per start."""
    return cache.validated(
        "patterns",
        path,
        ("rules/signatures.py", "rules/lint.py", "read/lines.py", "rules/taxonomy.py"),
        lambda raw: _parse_file(path, raw),
        lambda out: [(asdict(sig), o) for sig, o in out],
        lambda doc: [(_signature_from(d), bool(o)) for d, o in doc],
    )


def _signature_from(d: dict[str, Any]) -> Signature:
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    fields["raised_in"] = tuple(tuple(pair) for pair in fields.get("raised_in", ()))
    fields["raised_between"] = tuple(tuple(pair) for pair in fields.get("raised_between", ()))
    return Signature(**fields)


def _parse_file(path: Path, raw: bytes) -> list[tuple[Signature, bool]]:
    try:
        doc = load_text(raw.decode("utf-8"), str(path))
    except UnicodeDecodeError as e:
        raise PatternError(f"{path}: cannot read: {e}") from None
    except YamlError as e:
        raise PatternError(str(e)) from None
    if not isinstance(doc, dict):
        raise PatternError(f"{path}: expected a mapping with 'family' and 'signatures'")
    family = doc.get("family")
    if not isinstance(family, str) or not _FAMILY.match(family):
        raise PatternError(f"{path}: family: must be a lowercase name, got {family!r}")
    sigs = doc.get("signatures")
    if not isinstance(sigs, list) or not sigs:
        raise PatternError(f"{path}: signatures: must be a non-empty list")
    vendor = doc.get("vendor", "other")
    if vendor not in VENDORS:
        raise PatternError(f"{path}: vendor: must be one of {', '.join(VENDORS)}, got {vendor!r}")
    if len(sigs) > MAX_FILE_SIGNATURES:
        raise PatternError(f"{path}: signatures: more than {MAX_FILE_SIGNATURES:,} in one file")
    size = sum(_regex_size(e) for e in sigs)
    if size > MAX_FILE_REGEX:
        # compiling is checked per regex and engine: half a million alternatives would
        # take minutes before the set even starts (the built-ins total 80 KB)
        raise PatternError(
            f"{path}: match: {size:,} characters of regex, more than {MAX_FILE_REGEX:,}"
        )
    unknown_top = set(doc) - {"family", "vendor", "description", "signatures"}
    if unknown_top:
        raise PatternError(f"{path}: unknown top-level field(s): {', '.join(sorted(unknown_top))}")
    out: list[tuple[Signature, bool]] = []
    for i, entry in enumerate(sigs):
        if not isinstance(entry, dict):
            raise PatternError(f"{path}: signatures[{i}]: must be a mapping")
        sig, override = _parse_signature(path, family, entry, i)
        out.append((replace(sig, vendor=vendor), override))
    return out


def _regex_size(entry: Any) -> int:
    """Characters of regex an entry asks to compile (before it is validated)."""
    match = entry.get("match") if isinstance(entry, dict) else None
    rxs = match if isinstance(match, list) else [match]
    return sum(len(rx) for rx in rxs if isinstance(rx, str))


def _parse_signature(
    path: Path, family: str, d: dict[str, Any], index: int
) -> tuple[Signature, bool]:
    sid = d.get("id")
    where = f"{path}: {sid if isinstance(sid, str) else f'signatures[{index}]'}"

    def fail(field: str, msg: str) -> PatternError:
        return PatternError(f"{where}: {field}: {msg}")

    for k in _REQUIRED:
        if k not in d:
            raise fail(k, "missing")
    extra = set(d) - set(_REQUIRED) - set(_OPTIONAL)
    if extra:
        raise fail(", ".join(sorted(extra)), "unknown field")
    if not isinstance(sid, str) or not _ID.match(sid):
        raise fail("id", "must be kebab-case like 'nccl-watchdog-timeout'")
    if not sid.startswith(family.replace("_", "-") + "-"):
        raise fail("id", f"must start with the family prefix '{family.replace('_', '-')}-'")
    for k in ("title", "description"):
        if not isinstance(d[k], str) or not d[k].strip():
            raise fail(k, "must be a non-empty string")
    if not _one_of(d["category"], CATEGORIES):
        raise fail("category", f"{d['category']!r} is not a taxonomy category")
    if not _one_of(d["role"], ROLES):
        raise fail("role", f"must be one of {', '.join(ROLES)}")
    if not _one_of(d["severity"], SEVERITIES):
        raise fail("severity", f"must be one of {', '.join(SEVERITIES)}")
    if not _one_of(d["blame"], BLAMES):
        raise fail("blame", f"must be one of {', '.join(BLAMES)}")
    missing = [h for h in _HEADINGS if h not in d["description"]]
    if missing:
        raise fail("description", f"needs the heading(s) {', '.join(missing)}")
    literals = _str_list(d["literals"], fail, "literals")
    match = _str_list(d["match"], fail, "match")
    exclude = _str_list(d.get("exclude") or [], fail, "exclude", allow_empty=True)
    references = _str_list(d["references"], fail, "references")
    overlaps = _str_list(d.get("overlaps") or [], fail, "overlaps", allow_empty=True)
    for rx in match + exclude:
        check_regex(rx, fail)
    for rx in match:
        if GREEDY_BETWEEN.search(rx):
            raise fail("match", f"unbounded '.*' between two captures in {rx!r}")
    recovery = d.get("recovery")
    if recovery is not None and not _one_of(recovery, RECOVERIES):
        raise fail("recovery", f"{recovery!r} is not a recovery id")
    if "retryable" in d and d["retryable"] not in (True, False, None):
        raise fail("retryable", "must be true, false or null")
    min_count = d.get("min_count", 1)
    if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 1:
        raise fail("min_count", "must be a whole number >= 1")
    completion = d.get("completion", False)
    if completion not in (True, False):
        raise fail("completion", "must be true or false")
    if completion and d["severity"] != "info":
        raise fail("completion", "a completion marker must have severity info")
    final = d.get("final", False)
    if final not in (True, False):
        raise fail("final", "must be true or false")
    if final and d["category"] != "unknown":
        raise fail("final", "only an `unknown` reading can be final (others are already)")
    progress = _data_kind(d, "progress", PROGRESS_KINDS, fail)
    setting = _data_kind(d, "setting", SETTING_KINDS, fail)
    raised_in = _category_regexes(d, "raised_in", "a frame regex", fail)
    raised_between = _category_regexes(d, "raised_between", "a line regex", fail)
    stack = d.get("stack")
    if stack is not None and not _one_of(stack, ("first", "last")):
        raise fail("stack", "must be 'first' or 'last' (the printed end that is innermost)")
    evidence = d.get("evidence", "first")
    if not _one_of(evidence, ("first", "last")):
        raise fail("evidence", "must be 'first' or 'last'")
    message = d.get("message") or d["title"]
    message_zh = d.get("message_zh", "")
    compiled = [re.compile(rx, re.ASCII) for rx in match]
    for field, text in (("message", message), ("message_zh", message_zh)):
        if not isinstance(text, str):
            raise fail(field, "must be a string")
        if len(text) > MAX_MESSAGE:
            raise fail(field, f"longer than {MAX_MESSAGE:,} characters")
        try:
            fields = list(string.Formatter().parse(text))
        except ValueError as bad:
            raise fail(field, f"invalid placeholder: {bad}") from None
        if sum(1 for f in fields if f[1] is not None) > MAX_PLACEHOLDERS:
            # each may be a 4 KiB capture: `{n}` 500,000 times rendered a 1 GB verdict
            raise fail(field, f"more than {MAX_PLACEHOLDERS} placeholders")
        for _, name, spec, conversion in fields:
            if spec or conversion:  # `{n:>99999999}` would print 100 MB per finding
                raise fail(field, f"placeholder {{{name}}} takes no format spec or conversion")
            if stack and name in STACK_CAPTURES:
                continue  # the scan reads these from the frames under the header
            if name and any(name not in c.groupindex for c in compiled):
                raise fail(
                    field, f"placeholder {{{name}}} is not a named capture of every match regex"
                )
    examples = d["examples"]
    if not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples):
        raise fail("examples", "must be a list of mappings")
    for e in examples:
        if not isinstance(e.get("log"), str) or not isinstance(e.get("match"), bool):
            raise fail("examples", f"each example needs 'log' (string) and 'match' (bool): {e!r}")
        caps = e.get("captures", {})
        if not isinstance(caps, dict) or not all(
            isinstance(k, str) and isinstance(v, str | int | float) for k, v in caps.items()
        ):
            raise fail("examples", f"captures: a mapping of names to values: {e['log'][:80]!r}")
        if set(e) - {"log", "match", "captures"}:
            raise fail(
                "examples", f"unknown key(s) {sorted(set(e) - {'log', 'match', 'captures'})}"
            )
    if not any(e["match"] for e in examples) or all(e["match"] for e in examples):
        raise fail("examples", "needs at least one positive and one negative example")
    for e in examples:
        if e["match"] and not any(lit.lower() in e["log"].lower() for lit in literals):
            raise fail("literals", f"no literal occurs in the positive example {e['log'][:80]!r}")
    messages = [strip_prefix(seg).text for e in examples if e["match"] for seg in clean(e["log"])]
    for rx in match:  # RE2, as the scan runs it: linear in the example whatever the regex
        exact = compile_exact(rx)
        if not any(exact.search(m) for m in messages):
            raise fail("examples", f"no positive example exercises the regex {rx!r}")
    override = bool(d.get("override", False))
    sig = Signature(
        id=sid,
        family=family,
        title=d["title"].strip(),
        category=d["category"],
        role=d["role"],
        severity=d["severity"],
        blame=d["blame"],
        literals=tuple(literals),
        match=tuple(match),
        exclude=tuple(exclude),
        message=message.strip(),
        message_zh=message_zh.strip(),
        description=d["description"],
        references=tuple(references),
        examples=tuple(examples),
        source=str(path),
        recovery=recovery,
        retryable=d.get("retryable"),
        retryable_set="retryable" in d,
        evidence=evidence,
        overlaps=tuple(overlaps),
        min_count=min_count,
        completion=completion,
        final=final,
        progress=progress,
        setting=setting,
        raised_in=raised_in,
        raised_between=raised_between,
        stack=stack,
    )
    return sig, override


def section(description: str, heading: str) -> str:
    """The text under one `### heading` of a signature's description, as one paragraph
    (the text report quotes "What to do")."""
    marker = f"### {heading}"
    if marker not in description:
        return ""
    body = description.split(marker, 1)[1].split("\n### ", 1)[0]
    return " ".join(body.split())


def _data_kind(d: dict[str, Any], role: str, kinds: tuple[str, ...], fail: Any) -> Any:
    """The kind a data role's signature names (`progress: step`, `setting:
    restarts_allowed`): required with that role, refused without it, severity info."""
    kind = d.get(role)
    if (d["role"] == role) != (kind is not None):
        raise fail(role, f"role '{role}' and a '{role}' kind go together")
    if kind is not None:
        if not _one_of(kind, kinds):
            raise fail(role, f"must be one of {', '.join(kinds)}")
        if d["severity"] != "info":
            raise fail("severity", f"a {role} signature has severity info")
    return kind


def _category_regexes(
    d: dict[str, Any], key: str, what: str, fail: Any
) -> tuple[tuple[str, str], ...]:
    """`raised_in` / `raised_between: {category: regex}`: the more specific category a
    line has where its traceback says so (analyzer.decide.verdict.reading)."""
    value = d.get(key)
    if value is None:
        return ()
    if not isinstance(value, dict) or not value:
        raise fail(key, f"must be a mapping of category to {what}")
    out = []
    for cat, rx in value.items():
        if cat not in CATEGORIES:
            raise fail(key, f"{cat!r} is not a taxonomy category")
        if not isinstance(rx, str) or not rx:
            raise fail(key, f"{cat}: must be a non-empty regex")
        check_regex(rx, fail)
        out.append((cat, rx))
    return tuple(out)


def _one_of(value: Any, options: Iterable[str]) -> bool:
    """A string among `options` (a list or a number is not, and is no crash)."""
    return isinstance(value, str) and value in options


def _str_list(value: Any, fail: Any, field: str, allow_empty: bool = False) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise fail(field, "must be a list of non-empty strings")
    if not value and not allow_empty:
        raise fail(field, "must not be empty")
    return list(value)


def iter_regexes(sigs: Iterable[Signature]) -> Iterable[tuple[int, str]]:
    """(signature index, regex) for every match regex, the automaton's input."""
    for i, s in enumerate(sigs):
        for rx in s.match:
            yield i, rx
