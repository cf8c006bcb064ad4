"""Draft signatures from mined templates, for a person to finish.

A template says what an unknown failure looks like; a signature also says what it
means (category, role, blame), where the format comes from and why. The machine can do
the first half reliably and none of the second, so a draft is built to pass the
validator and its own examples (the regex provably matches the lines it came from and
stays inside the engines' regex subset) while every judgement is left visibly neutral:
category `unknown`, a placeholder reference, a description that says it is a draft.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

import yaml

from ..read.lines import clean, quoted, strip_prefix
from ..rules.lint import check_regex, compile_exact
from ..rules.signatures import _FAMILY, KEY_ORDER
from ..types import BLAMES
from .templates import OVERFLOW_PATTERN, PLACEHOLDER_RE, WILDCARD, Template

# What the raw text behind each placeholder may look like (analyzer.unknowns.masking's rules),
# as bounded classes: a draft must never carry an unbounded `.*`, and RE2 refuses
# counts above 1000.
_CLASS = {
    "<NUM>": r"\d[0-9.eE+-]{0,39}",
    "<HEX>": r"[0-9a-fA-Fx]{1,128}",
    "<IP>": r"[0-9.:]{7,40}",
    "<ID>": r"[0-9a-fA-F-]{36}",
    "<FILE>": r"\S{1,300}",
    "<PATH>": r"\S{1,1000}",
    WILDCARD: r"\S{1,1000}",
}
# Masking collapsed each whitespace run to one space. Beside a value the raw line may
# have padding (`%5d`, aligned columns), so a gap there is flexible; between two words
# it is the format's own single space, unless an example shows otherwise.
_GAP = r"\s{1,200}"
# Log levels and glog headers (`E0302 10:00:13.123 4567 file.cc:12]`) come from the
# logging setup, not from the message: a draft starts after them.
_HEADER = re.compile(
    r"(?i)\[?(?:debug|info|warn|warning|error|err|critical|fatal|[IWEF]<NUM>)\]?:?"
)
# A draft regex covers the head of the message: enough words to be specific, short
# enough for a person to read, and clear of the masker's 400-character cut.
_MAX_TOKENS = 24
_MAX_LITERALS = 3
_MAX_LITERAL_TOKENS = 6  # a phrase to grep for, not a whole sentence
_MAX_SLUG_WORDS = 6
# Lines every training log prints: a draft's negative example when no near miss fits.
_HEALTHY = (
    "step 1 loss 2.0",
    "INFO: training started",
    "epoch 1 finished",
    "-",
)
# The validator wants at least one reference; an obvious placeholder keeps a draft from
# passing for a reviewed signature.
REFERENCE_PLACEHOLDER = "TODO: URL of the source code or docs that print this message"
# BLAMES has no neutral value; `job` makes a controller act on the job as a whole (a
# restart), neither isolating a node nor blaming the user's code on a guess.
_BLAME = "unknown" if "unknown" in BLAMES else "job"


class _Rejected(Exception):
    pass


def _reject(field: str, msg: str) -> _Rejected:
    return _Rejected(f"{field}: {msg}")


def _escape(text: str) -> str:
    # re.escape, but a backslash or plus becomes a class: `\\n` or `}\+` in the regex
    # text would read as a newline or a possessive quantifier to the validator.
    out = []
    for ch in text:
        if ch == "\\":
            out.append("[\\\\]")
        elif ch == "+":
            out.append("[+]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _token_regex(token: str) -> str:
    parts: list[str] = []
    pos = 0
    for m in PLACEHOLDER_RE.finditer(token):
        parts.append(_escape(token[pos : m.start()]))
        parts.append(_CLASS[m.group()])
        pos = m.end()
    parts.append(_escape(token[pos:]))
    return "".join(parts)


def _constant(token: str) -> str:
    return PLACEHOLDER_RE.sub(" ", token)


def _is_word(token: str) -> bool:
    return re.search(r"[^\W\d_]{2}", _constant(token)) is not None and not _HEADER.fullmatch(token)


def _join(tokens: list[str], flexible: bool) -> str:
    out = _token_regex(tokens[0])
    for prev, tok in itertools.pairwise(tokens):
        rigid = not flexible and not PLACEHOLDER_RE.search(prev + tok)
        out += " " if rigid else _GAP
        out += _token_regex(tok)
    return out


def _hits(rx: Any, raw: str) -> bool:
    """Whether the engine's exact check would accept the line (same path as a scan)."""
    for segment in clean(raw):
        message = strip_prefix(segment).text.encode("utf-8", "replace").decode("utf-8")
        m = rx.search(message)
        if m is not None and not quoted(message, m.start(), m.end()):
            return True
    return False


def _touches(rx: Any, raw: str) -> bool:
    """Whether the regex finds anything in the line at all, quoted or not: a negative
    example must not depend on the quote rule."""
    return any(rx.search(strip_prefix(s).text) is not None for s in clean(raw))


def _build_match(tokens: list[str], examples: Sequence[str]) -> tuple[str, int, int]:
    """The first regex, from the most to the least preferred shape, that the engine
    accepts and that hits every example: (regex, first word token, end token).

    Preferred is the run from the first word, unanchored, so that a timestamp or level
    prefix of one logging setup is not baked in. Starting at the message's beginning (`^`)
    is the fallback for a line whose words sit inside a quote the quote rule discounts.
    Shorter runs are the last resort, for lines the masker cut mid-token.
    """
    first = next((i for i, t in enumerate(tokens) if _is_word(t)), None)
    if first is None:
        raise ValueError("the template has no constant word to anchor a signature on")
    shapes = [(first, "", False), (first, "", True), (0, "^", False), (0, "^", True)]
    for end in range(min(len(tokens), first + _MAX_TOKENS), first, -1):
        for start, anchor, flexible in shapes:
            rx = anchor + _join(tokens[start:end], flexible)
            try:
                check_regex(rx, _reject)
            except _Rejected:
                continue
            compiled = compile_exact(rx)
            if all(_hits(compiled, e) for e in examples):
                return rx, first, end
    raise ValueError("no regex built from the template matches all of its examples")


def _literals(tokens: list[str], examples: Sequence[str]) -> list[str]:
    """The longest constant stretches of the template that every example contains as
    written (case-sensitive, stricter than the validator), so a literal is a phrase a
    person can grep for."""
    runs: list[str] = []
    current: list[str] = []
    for t in [*tokens, WILDCARD]:
        if PLACEHOLDER_RE.search(t) is None:
            current.append(t)
            continue
        if current:
            runs.append(" ".join(current[:_MAX_LITERAL_TOKENS]))
            runs.extend(current if len(current) > 1 else [])
        current = []
        runs.extend(p for p in _constant(t).split() if p)
    # Longest first; among equals, the earlier in the template.
    ranked = sorted(dict.fromkeys(runs), key=lambda r: (-len(r), runs.index(r)))
    out: list[str] = []
    for r in ranked:
        if not any(c.isalpha() for c in r) or any(r in o for o in out):
            continue
        if all(r in e for e in examples):
            out.append(r)
        if len(out) == _MAX_LITERALS:
            break
    return out


def _slug(tokens: list[str]) -> str:
    words: list[str] = []
    for t in tokens:
        words += re.findall(r"[a-z0-9]+", _constant(t).lower())
    return "-".join(words[:_MAX_SLUG_WORDS])[:60].strip("-") or "template"


def draft_signature(
    t: Template,
    *,
    family: str = "local",
    category: str = "unknown",
    negatives: Sequence[str] = (),
) -> dict[str, Any]:
    """A signature draft from one template, in the canonical key order.

    `negatives`: near-miss lines (other templates' examples) to try as the negative
    example before the generic healthy lines; the first one the regex leaves alone is
    used. Raises ValueError for the overflow catch-all and for templates without any
    constant word, which cannot be told apart from other lines by a regex.
    """
    if t.pattern == OVERFLOW_PATTERN:
        raise ValueError("the overflow catch-all is not a template")
    if not _FAMILY.match(family):
        raise ValueError(f"family must be a lowercase name, got {family!r}")
    if not t.examples:
        raise ValueError("a template without examples cannot prove a draft")
    tokens = t.pattern.split()
    rx, first, end = _build_match(tokens, t.examples)
    window = tokens[first:end]
    literals = _literals(window, t.examples) or _literals(tokens, t.examples)
    if not literals:
        raise ValueError("no constant text of the template occurs in all its examples")
    compiled = compile_exact(rx)
    # One near miss (another template's line) when there is one, and one healthy line.
    near = next((n for n in negatives if n not in t.examples and not _touches(compiled, n)), None)
    healthy = next((n for n in _HEALTHY if not _touches(compiled, n)), None)
    chosen = [n for n in (near, healthy) if n is not None]
    if not chosen:
        raise ValueError("no negative example found that the draft regex leaves alone")
    text = " ".join(window)
    title = "Unrecognised message (draft): " + text.replace("{", "(").replace("}", ")")
    if len(title) > 120:
        title = title[:117].rstrip() + "..."
    jobs = ", ".join(t.jobs[:5]) + (", ..." if t.job_count > 5 else "")
    description = (
        "### What it matches\n"
        "Machine draft, to be completed by a person: mined from "
        f"{t.count} unmatched line(s) in {t.job_count} job(s) ({jobs}).\n"
        f"Template (`<*>` and `<NUM>`-style placeholders vary): `{t.pattern}`\n\n"
        "### Why it happens\n"
        "Not known yet. Find the code that prints this message and explain the failure; "
        "then set category, role, severity and blame accordingly.\n\n"
        "### What to do\n"
        "Not known yet. Replace the placeholder reference with the message's source, add "
        "near-miss negative examples, and run `ha-analyze patterns test DIR`.\n"
    )
    draft: dict[str, Any] = {
        "id": f"{family.replace('_', '-')}-{_slug(window)}",
        "title": title,
        "category": category,
        "role": "cause",
        "severity": "error",
        "blame": _BLAME,
        "literals": literals,
        "match": [rx],
        "description": description,
        "references": [REFERENCE_PLACEHOLDER],
        "examples": [
            *({"log": e, "match": True} for e in t.examples),
            *({"log": n, "match": False} for n in chosen),
        ],
    }
    return {k: draft[k] for k in KEY_ORDER if draft.get(k) not in (None, [], "")}


def draft_yaml(templates: Sequence[Template], family: str = "local") -> str:
    """A whole pattern file with one draft per template, ready for `patterns test DIR`.

    Drafts are tested together, so one draft's regex must not also fire on another's
    positive example: when it does, the other's regex becomes an `exclude` of the wider
    one (if that leaves the wider one's own examples alone), else both declare the
    other in `overlaps`. The overflow catch-all and templates without a constant word
    are skipped and named in the file's description.
    """
    drafts: list[dict[str, Any]] = []
    skipped: list[str] = []
    ids: set[str] = set()
    for i, t in enumerate(templates):
        # The best near miss is the template sharing the most words with this one.
        words = set(t.pattern.split())
        others = [
            o.examples[0]
            for _, _, o in sorted(
                (-len(words & set(o.pattern.split())), j, o)
                for j, o in enumerate(templates)
                if j != i and o.examples
            )
        ]
        try:
            d = draft_signature(t, family=family, negatives=others)
        except ValueError as e:
            skipped.append(f"{t.pattern[:80]!r} ({e})")
            continue
        base, n = d["id"], 2
        while d["id"] in ids:
            d["id"], n = f"{base}-{n}", n + 1
        ids.add(d["id"])
        drafts.append(d)
    if not drafts:
        raise ValueError("no template could be drafted: " + "; ".join(skipped))
    _separate(drafts)
    description = (
        "Machine-drafted signatures mined from log lines no signature matched. "
        "Review every field (category, role, blame, references) before relying on them."
    )
    if skipped:
        description += " Not drafted: " + "; ".join(skipped)
    doc = {"family": family, "description": description, "signatures": drafts}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def _separate(drafts: list[dict[str, Any]]) -> None:
    compiled = [compile_exact(d["match"][0]) for d in drafts]
    positives = [[e["log"] for e in d["examples"] if e["match"]] for d in drafts]
    for x, dx in enumerate(drafts):
        for y, dy in enumerate(drafts):
            if x == y or not any(_hits(compiled[x], p) for p in positives[y]):
                continue
            if not any(_touches(compiled[y], p) for p in positives[x]):
                dx.setdefault("exclude", []).append(dy["match"][0])
            else:
                dx.setdefault("overlaps", []).append(dy["id"])
    for i, d in enumerate(drafts):
        drafts[i] = {k: d[k] for k in KEY_ORDER if k in d}
