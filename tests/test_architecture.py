"""The shape of the code base, checked so it stays true: stage packages one level deep,
and an import graph without cycles (a cycle is two stages that cannot be read, tested or
replaced apart)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "analyzer"
STAGES = {"read", "rules", "job", "decide", "unknowns", "ops", "batch", "sinks"}
TOP = {"__init__", "__main__", "cli", "analysis", "types"}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING",
        "typing.TYPE_CHECKING",
    )


def _imports(source: str, here: str, package: str, modules: set[str]) -> set[str]:
    """Every analyzer module that module `here` (of `package`) imports when it runs:
    inside functions too, since a deferred import still ties the two modules; not under
    `if TYPE_CHECKING`."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if _type_checking(node):
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return {m for m in found if m in modules and m != here}


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {_module(p) for p in files}
    graph = {}
    for p in files:
        here = _module(p)
        package = here if p.name == "__init__.py" else here.rpartition(".")[0]
        graph[here] = _imports(p.read_text(encoding="utf-8"), here, package, modules)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_a_deferred_import_is_an_edge_and_type_checking_is_not() -> None:
    code = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..job import model\n"
        "def f():\n    from ..rules import lint\n    from . import scan\n"
    )
    modules = {"analyzer.read.x", "analyzer.read.scan", "analyzer.job.model", "analyzer.rules.lint"}
    got = _imports(code, "analyzer.read.x", "analyzer.read", modules)
    assert got == {"analyzer.rules.lint", "analyzer.read.scan"}


def test_stage_packages_one_level_deep() -> None:
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) == 1:
            assert path.stem in TOP, f"{path.name}: a module belongs in a stage package"
        else:
            assert len(parts) == 2, f"{path}: packages are one level deep"
            assert parts[0] in STAGES, f"{parts[0]}: not a stage (README, architecture)"


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_every_stage_says_what_it_holds(stage: str) -> None:
    init = PACKAGE / stage / "__init__.py"
    assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))


# Who a line is about (rank, host, device) is written by the job model alone: the reader
# records what a line claims (LogLine.who), a hit's `rank` and `host` are read from its
# resolved identity, and the culprit rules blame through the job model's `blamed` and
# `placed`. A module outside job/ that writes one re-derives identity and disagrees.
_WRITES_IDENTITY = ("job",)
# Reading a line (its prefixes, its time, its segments, its decoding) is the reader's;
# rules/ runs its examples through the reader's functions. The two modules listed here
# still read raw lines a user hands them (the template miner and the signature drafter);
# this list must only shrink (the test fails on a module that no longer needs its entry).
_READS_LINES = ("read", "rules")
_STILL_READING = {
    "analyzer.unknowns.templates": {"message_of"},  # it mines raw lines of any source
    "analyzer.unknowns.suggest": {"clean", "strip_prefix"},  # it tries drafts on raw lines
}
_READERS = {"clean", "strip_prefix", "parse_time", "has_year", "decode", "message_of"}
_IDENTITY_FIELDS = {"rank", "host", "identity", "local_rank"}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else ""


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def identity_writes(source: str) -> list[int]:
    """Lines that write who a hit is about: `replace(x, rank=...)` and friends, and an
    `Identity(...)` made."""
    out = []
    for call in _calls(ast.parse(source)):
        name = _name(call)
        keys = {k.arg for k in call.keywords}
        if name == "Identity" or (name == "replace" and keys & _IDENTITY_FIELDS):
            out.append(call.lineno)
    return out


def line_readers(source: str) -> set[str]:
    """The reader's functions a module imports from analyzer.read.lines."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("read.lines"):
            found |= {a.name for a in node.names} & _READERS
    return found


def _modules() -> list[tuple[str, str]]:
    return [(_module(p), p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]


def test_only_the_job_model_and_the_reader_write_who_a_line_is_about() -> None:
    bad = [
        f"{m}:{line}"
        for m, src in _modules()
        if _stage(m) not in _WRITES_IDENTITY
        for line in identity_writes(src)
    ]
    assert bad == []


def test_only_the_reader_reads_lines() -> None:
    found = {
        m: readers
        for m, src in _modules()
        if _stage(m) not in _READS_LINES and (readers := line_readers(src))
    }
    assert found == _STILL_READING


def test_the_source_checks_can_fail() -> None:
    assert identity_writes("x = replace(hit, rank=3)\ny = Identity(1, None, 'h', None)") == [1, 2]
    assert identity_writes("x = replace(stall, reason='together')") == []
    src = "from ..read.lines import clean, TEXT_CAP\nfrom ..read.lines import parse_time"
    assert line_readers(src) == {"clean", "parse_time"}
