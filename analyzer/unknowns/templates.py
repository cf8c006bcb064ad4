"""Template mining for failures no signature knows yet.

A fleet's unknown failures repeat: the same new driver message, on many ranks and
many jobs, with a different rank, address or path each time. Masking removes most of
that variation; a Drain-style clustering (He et al., ICWS 2017) removes the rest, so a
person reviewing unknown lines reads one template with a count instead of a thousand
near-identical lines, and `analyzer.unknowns.suggest` can draft a signature from it.

Drain is used rather than pairwise clustering because it is one pass, linear in the
lines and bounded in memory: a line is routed by its token count and first tokens to a
small leaf, and only compared with the few templates there.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..read.lines import message_of
from .masking import mask

WILDCARD = "<*>"
# The placeholders analyzer.unknowns.masking writes, plus the miner's own wildcard. A token that
# is exactly one of them stands for a value, not a word.
PLACEHOLDERS = ("<ID>", "<PATH>", "<FILE>", "<IP>", "<HEX>", "<NUM>", WILDCARD)
PLACEHOLDER_RE = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS))
# Once `max_templates` is reached, lines that fit no existing template are counted
# here rather than dropped: a reviewer must see that the table overflowed and how much
# it hid. It is not a token pattern; analyzer.unknowns.suggest refuses to draft from it.
OVERFLOW_PATTERN = "<overflow>"

MAX_EXAMPLES = 3
MAX_JOBS = 20
# A raw example is kept for drafting and review; a megabyte line kept three times per
# template would break the memory bound. The template itself only reflects the first
# 400 masked characters, so the cut never removes what the pattern describes.
MAX_EXAMPLE_CHARS = 8192

# Drain's tree shape: lines are routed by token count, then by this many leading
# tokens. Two is Drain's default depth of 4 (root and length levels included).
_PREFIX_DEPTH = 2
# A line is compared with every template of its leaf, so a leaf's size is the cost of
# a line. A leaf holding this many templates takes no new ones: further lines there that
# fit none are counted into the overflow catch-all. Real leaves stay far smaller (token
# count and two leading words already separate messages); this bounds the time an
# adversarial or pathological input (thousands of distinct messages sharing their length
# and first words) can cost. Drain's usual cap on children per node is not needed for
# memory: a node is only ever created together with a new template.
_MAX_LEAF = 128


@dataclass(frozen=True)
class Template:
    """One mined template, as a reviewer and the signature drafter need it."""

    pattern: str
    count: int
    examples: tuple[str, ...]
    jobs: tuple[str, ...]
    job_count: int


@dataclass
class _Cluster:
    """Mutable state of one template while mining; frozen into a Template at the end."""

    tokens: list[str]
    order: int
    # Comparison keys: "" for a masked value, WILDCARD for `<*>`, else the token.
    keys: list[str] = field(default_factory=list)
    wild: int = 0  # how many keys are WILDCARD
    count: int = 0
    examples: list[str] = field(default_factory=list)
    # Interned job numbers rather than strings: one job id string is shared by every
    # template it appears in.
    jobs: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        keys = _line_keys(self.tokens)
        self.keys = [
            WILDCARD if t == WILDCARD else k for t, k in zip(self.tokens, keys, strict=True)
        ]
        self.wild = self.keys.count(WILDCARD)

    def merge(self, tokens: list[str]) -> None:
        for i, (a, b) in enumerate(zip(self.tokens, tokens, strict=True)):
            if a != b:
                self.tokens[i] = self.keys[i] = WILDCARD
        self.wild = self.keys.count(WILDCARD)

    def add(self, raw: str, job: int) -> None:
        self.count += 1
        self.jobs.add(job)
        if len(self.examples) < MAX_EXAMPLES:
            example = raw.rstrip("\r\n")[:MAX_EXAMPLE_CHARS]
            if example not in self.examples:
                self.examples.append(example)


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    clusters: list[_Cluster] = field(default_factory=list)


def _is_value(token: str) -> bool:
    return PLACEHOLDER_RE.fullmatch(token) is not None


def _route_key(token: str) -> str:
    # A token carrying a value (`rank<NUM>:`) is as variable as the value: routing on it
    # would split one message into as many leaves as the value has spellings.
    return WILDCARD if PLACEHOLDER_RE.search(token) else token


def _line_keys(tokens: list[str]) -> list[str]:
    # Comparison keys, computed once per line: every masked value compares as "" so
    # that the inner loop is plain string equality.
    return ["" if _is_value(t) else t for t in tokens]


def _similarity(c: _Cluster, line: list[str], threshold: float) -> tuple[float, int]:
    """(share of equal positions, constant positions equal): the second breaks ties so
    a line prefers the template that keeps more of its words.

    A template's `<*>` equals any token, and any two masked values are equal (a `<NUM>`
    where the template saw a `<HEX>`): both are values, which is what the position
    holds. A value against a word is a difference. `line` holds comparison keys
    (_line_keys), so the count runs as C-level string comparisons: every line is
    compared with every template of its leaf, and this is the miner's hot loop.
    """
    n = len(line)
    equal = sum(map(operator.eq, c.keys, line)) + c.wild  # a line key is never WILDCARD
    if equal < threshold * n:
        return 0.0, 0
    return equal / n, sum(1 for a, b in zip(c.keys, line, strict=True) if a == b and a)


def mine(
    lines: Iterable[tuple[str, str]], *, similarity: float = 0.5, max_templates: int = 5000
) -> list[Template]:
    """Cluster (job_id, raw_line) pairs into templates, most frequent first.

    The caller chooses which lines are worth mining (typically error-looking lines no
    signature matched); every line given is masked with analyzer.unknowns.masking.mask and
    clustered. Lines that mask to nothing are skipped.

    At most `max_templates` templates are returned, so that a flood of distinct lines
    cannot exhaust memory. When the table (or the line's leaf, see _MAX_LEAF) is full,
    a line that fits no existing template is counted into one catch-all template whose
    pattern is OVERFLOW_PATTERN (with examples and jobs like the others), never dropped
    silently; the catch-all takes one of the `max_templates` places, so there are at
    most `max_templates - 1` real templates. No tree node is created once the table is
    full. Per template, examples are capped (3 lines, MAX_EXAMPLE_CHARS each); the job
    ids are kept exactly (as small ints) so that `job_count` is true.

    Same input in the same order gives the same output: the tree, tie-breaks and the
    final sort (count descending, then pattern, then creation order) are deterministic.
    """
    if not 0.0 <= similarity <= 1.0:
        raise ValueError(f"similarity must be within [0, 1], got {similarity}")
    if max_templates < 1:
        raise ValueError(f"max_templates must be at least 1, got {max_templates}")
    root: dict[int, _Node] = {}
    clusters: list[_Cluster] = []
    overflow: _Cluster | None = None
    job_ids: dict[str, int] = {}

    for job_id, raw in lines:
        tokens = mask(message_of(raw)).split()
        if not tokens:
            continue
        keys = _line_keys(tokens)
        job = job_ids.setdefault(job_id, len(job_ids))
        can_grow = len(clusters) < max_templates - 1
        leaf = _find_leaf(root, tokens, create=can_grow)
        best: _Cluster | None = None
        best_score = (-1.0, -1)
        if leaf is not None:
            for c in leaf.clusters:
                score = _similarity(c, keys, similarity)
                if score[0] >= similarity and score > best_score:
                    best, best_score = c, score
        if best is not None:
            best.merge(tokens)
            best.add(raw, job)
        elif leaf is not None and can_grow and len(leaf.clusters) < _MAX_LEAF:
            c = _Cluster(list(tokens), len(clusters))
            c.add(raw, job)
            leaf.clusters.append(c)
            clusters.append(c)
        else:
            if overflow is None:
                overflow = _Cluster([OVERFLOW_PATTERN], max_templates)
            overflow.add(raw, job)

    names = sorted(job_ids, key=job_ids.__getitem__)
    done = [*clusters, *([overflow] if overflow is not None else [])]
    done.sort(key=lambda c: (-c.count, " ".join(c.tokens), c.order))
    out: list[Template] = []
    for c in done:
        jobs = sorted(names[j] for j in c.jobs)
        out.append(
            Template(
                pattern=" ".join(c.tokens),
                count=c.count,
                examples=tuple(c.examples),
                jobs=tuple(jobs[:MAX_JOBS]),
                job_count=len(jobs),
            )
        )
    return out


def _find_leaf(root: dict[int, _Node], tokens: list[str], *, create: bool) -> _Node | None:
    """The leaf for a line, made on the way when `create`; None if absent and not made."""
    node = root.get(len(tokens))
    if node is None:
        if not create:
            return None
        node = root[len(tokens)] = _Node()
    for token in tokens[:_PREFIX_DEPTH]:
        key = _route_key(token)
        child = node.children.get(key)
        if child is None:
            if not create:
                return None
            child = node.children[key] = _Node()
        node = child
    return node
