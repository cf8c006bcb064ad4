"""A small on-disk cache for work that only depends on its inputs' bytes.

Used for compiled Hyperscan databases and validated pattern files: both are expensive
to rebuild (0.3 s each at start-up) and cheap to key. Entries are written atomically and
ignored when unreadable, so a read-only or shared home only costs the rebuild.

Every edit of a pattern file keys new entries (a Hyperscan database is ~1.5 MB), so the
folder is bounded: a write that finds it over MAX_BYTES or MAX_FILES removes the entries
written longest ago until it is under three quarters of both. An entry still in use that
goes is rebuilt once, and written again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from ..types import PatternError

T = TypeVar("T")

MAX_BYTES = 64 << 20
MAX_FILES = 512


def cache_dir() -> Path:
    explicit = os.environ.get("HA_ANALYZE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ha-analyze"


def key(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:32]


def read(name: str) -> bytes | None:
    try:
        return (cache_dir() / name).read_bytes()
    except OSError:
        return None


def write(name: str, data: bytes) -> None:
    path = cache_dir() / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        return
    _prune(path)


def _prune(written: Path) -> None:
    """The oldest entries removed while the folder is over its bounds (see the module),
    never the one just written."""
    try:
        entries = []
        with os.scandir(written.parent) as it:
            for e in it:
                if e.is_file(follow_symlinks=False) and e.path != str(written):
                    st = e.stat(follow_symlinks=False)
                    entries.append((st.st_mtime, st.st_size, e.path))
        total = written.stat().st_size + sum(size for _, size, _ in entries)
    except OSError:
        return
    if total <= MAX_BYTES and len(entries) < MAX_FILES:
        return
    entries.sort()
    left = len(entries) + 1
    for _, size, name in entries:
        if total <= MAX_BYTES * 3 // 4 and left <= MAX_FILES * 3 // 4:
            break
        try:
            os.unlink(name)
        except OSError:
            continue
        total -= size
        left -= 1


@lru_cache(maxsize=8)
def _source(files: tuple[str, ...]) -> bytes:
    """The package's files (paths under analyzer/) that validate a kind of pattern file."""
    package = Path(__file__).resolve().parent.parent
    return b"".join((package / f).read_bytes() for f in files)


def validated(
    kind: str,
    path: Path,
    code: tuple[str, ...],
    validate: Callable[[bytes], T],
    to_json: Callable[[T], Any],
    from_json: Callable[[Any], T],
) -> T:
    """A pattern file's validated contents (`kind`: signatures, formats), from the cache
    when these bytes were validated before by the same `code` (the package's files that
    validate them, part of the key): validating costs 30-300 ms of every start. A stale
    or damaged entry is validated again; `validate` gets the bytes read for the key."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise PatternError(f"{path}: cannot read: {e}") from None
    name = f"{kind}-{key(raw, str(path).encode(), _source(code))}.json"
    blob = read(name)
    if blob is not None:
        try:
            return from_json(json.loads(blob))
        except (ValueError, TypeError, KeyError):
            pass
    out = validate(raw)
    write(name, json.dumps(to_json(out)).encode())
    return out
