"""The rule data's loader: which file holds which kind of rule, and user YAML (pattern,
format, cascade and policy files) read with its size bounded and aliases refused.

A kind is told by its place: the built-in files sit in `patterns/<kind>/`; in a user's
`--patterns` folder a file belongs to the kind its folder is named after, else to the
kind its name says (`formats.yaml`, `cascades.yaml`), else it holds signatures. Each
kind has its own schema (analyzer.rules.signatures, .formats, .cascade).

A YAML alias repeats a node by reference: nine nested levels of ten aliases are a
billion strings to whoever walks the result (a validation message, a comparison), from a
file of a few hundred bytes. No file of ours needs an alias, so none is accepted; and a
file larger than MAX_BYTES is not a configuration.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 10x faster at start-up
MAX_BYTES = 16 << 20
MAX_DEPTH = 64


class YamlError(ValueError):
    """A file that is not YAML we accept; the message names the file and why."""


def load_text(text: str, where: str) -> Any:
    """The document in `text`; YamlError for invalid YAML, an alias, or nesting deeper
    than MAX_DEPTH (the composer recurses per level: 100,000 levels crash it)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent | yaml.CollectionStartEvent):
                depth += isinstance(event, yaml.CollectionStartEvent)
                mark = event.start_mark
                line = f" (line {mark.line + 1})" if mark is not None else ""
                if isinstance(event, yaml.AliasEvent):
                    raise YamlError(f"{where}: YAML aliases are not allowed{line}")
                if depth > MAX_DEPTH:
                    raise YamlError(f"{where}: nested deeper than {MAX_DEPTH} levels{line}")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as e:
        raise YamlError(f"{where}: invalid YAML: {e}") from None


def load_file(path: Path) -> Any:
    """The document in the file at `path`; YamlError when it cannot be read or is not
    YAML we accept."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise YamlError(f"{path}: cannot read: {e.strerror or e}") from None
    return load_bytes(raw, str(path))


def load_bytes(raw: bytes, where: str) -> Any:
    """The document in a file's bytes (read already, as a cache key); YamlError as
    load_file's."""
    if len(raw) > MAX_BYTES:
        raise YamlError(f"{where}: larger than {MAX_BYTES >> 20} MiB, not a configuration file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise YamlError(f"{where}: cannot read: {e}") from None
    return load_text(text, where)


@lru_cache(maxsize=1)
def builtin_dir() -> Path:
    """Where the built-in pattern files live: inside the installed package, or the
    repository's patterns/ folder when running from a checkout (editable install).
    Asked per hit line (the default formats): resolved once."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "builtin_patterns"
    return installed if installed.is_dir() else package.parent / "patterns"


Kind = Literal["signatures", "formats", "cascades"]
KINDS: tuple[Kind, ...] = ("signatures", "formats", "cascades")
_SUFFIXES = (".yaml", ".yml")


def kind_of(path: Path) -> Kind:
    """The kind of rule a file holds, by its place (a path inside a pattern folder)."""
    for part in reversed(path.parts[:-1]):
        for kind in KINDS:
            if part == kind:
                return kind
    for kind in KINDS:
        if path.name in (f"{kind}.yaml", f"{kind}.yml"):
            return kind
    return "signatures"


def rule_files(kind: Kind, builtin: bool, extra: Iterable[str | Path]) -> tuple[Path, ...]:
    """The files of one kind: the built-in ones (when `builtin`), then each extra folder's
    (recursively, by place) or each extra file of that kind. A missing path is left to the
    signature loader to report, once."""
    files = sorted((builtin_dir() / kind).glob("*.yaml")) if builtin else []
    for item in extra:
        p = Path(item)
        if p.is_dir():
            found = (f for f in p.rglob("*") if f.suffix in _SUFFIXES and f.is_file())
            files += sorted(f for f in found if kind_of(f.relative_to(p)) == kind)
        elif p.is_file() and kind_of(Path(p.name)) == kind:
            files.append(p)
    return tuple(files)
