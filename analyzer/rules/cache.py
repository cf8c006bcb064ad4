"""A small on-disk cache for work that only depends on its inputs' bytes.

Used for compiled Hyperscan databases and validated pattern files: both are expensive
to rebuild (0.3 s each at start-up) and cheap to key. Entries are written atomically and
ignored when unreadable, so a read-only or shared home only costs the rebuild.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


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
        pass
