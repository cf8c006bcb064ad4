"""Lints of every regex in the rule data (signatures, formats, user folders alike).

A regex must run the same in the automaton engines (Hyperscan, RE2) and in Python's re,
stay within one line, and never backtrack catastrophically: a pattern file is input
that users write, and a bad regex must be refused with its field named, not discovered
as a hang on a customer's logs.
"""

from __future__ import annotations

import re
from typing import Any

import re2

try:  # the parser behind `re`; its tree shows nested repeats exactly
    import re._parser as _sre  # type: ignore[import-not-found]
except ImportError:  # Python 3.10
    import sre_parse as _sre

FORBIDDEN = (
    (re.compile(r"\(\?<?[=!]"), "lookaround"),
    (re.compile(r"\(\?>"), "atomic group"),
    (re.compile(r"\(\?P="), "backreference"),
    (re.compile(r"\\[1-9]"), "backreference"),
    (re.compile(r"(?<!\\)[*+?}]\+"), "possessive quantifier"),
    (re.compile(r"\(\?\("), "conditional"),
    (re.compile(r"\\n"), "newline (a match must stay within one line)"),
)
INLINE_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
GREEDY_BETWEEN = re.compile(r"\(\?P<\w+>.*?\)[^(]*?(?<!\\)\.[*+].*?\(\?P<")


def check_regex(rx: str, fail: Any) -> None:
    """Refuse regexes outside the subset the automaton engines and Python's re share."""
    try:
        compiled = re.compile(rx)
    except re.error as e:
        raise fail("match", f"invalid regex {rx!r}: {e}") from None
    if compiled.search(""):
        raise fail("match", f"matches the empty string, so it would hit every line: {rx!r}")
    if backtracks(rx):
        raise fail("match", f"nested quantifiers can backtrack catastrophically: {rx!r}")
    for pat, what in FORBIDDEN:
        if pat.search(rx):
            raise fail("match", f"{what} is not allowed (automaton engines lack it): {rx!r}")
    for m in INLINE_FLAGS.finditer(rx):
        if m.start() != 0 or m.group() != "(?i)":
            raise fail("match", f"only a leading '(?i)' inline flag is allowed: {rx!r}")
    try:
        compile_exact(rx)
    except re2.error as e:
        why = e.args[0].decode() if e.args and isinstance(e.args[0], bytes) else str(e)
        raise fail("match", f"RE2 cannot run {rx!r}: {why}") from None


def compile_exact(rx: str | bytes) -> Any:
    """A signature regex as the engine's exact check runs it: RE2, linear in the line."""
    options = re2.Options()
    options.log_errors = False
    return re2.compile(rx, options)


def backtracks(rx: str) -> bool:
    """A regex with a repeat inside a repeat: catastrophic backtracking in Python's re."""
    return _nested_repeat(_sre.parse(rx))


def _nested_repeat(items: Any, inside: bool = False) -> bool:
    """A repeat inside a repeat (`(a+)+`, `(\\w*,)*`): the shape of catastrophic backtracking."""
    for op, av in items:
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            _, hi, sub = av
            if inside and hi > 1:
                return True
            children, nested = [sub], inside or hi > 1
        elif op == _sre.SUBPATTERN:
            children, nested = [av[-1]], inside
        elif op == _sre.BRANCH:
            children, nested = av[1], inside
        else:
            continue
        if any(_nested_repeat(c, nested) for c in children):
            return True
    return False
