"""Paths -> decompressed byte streams, each with the name a person can find it under.

Files, folders (recursive), stdin, compressed files and archive members are all read as
streams: nothing is ever extracted to disk, and each stream is consumed before the next
one is produced (tar archives can only be read in order). Whatever cannot be read
becomes a note, never an exception, because a half-readable bundle still deserves an
answer.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import sys
import tarfile
import zipfile
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .job import path_who
from .types import Who

_HEAD = 8192
EXPANSION_RATIO = 1000
MIN_EXPANSION_LIMIT = 1 << 30
UNKNOWN_SIZE_LIMIT = 64 << 30  # stdin and other streams of unknown stored size
_MAX_NESTING = 3
_GZIP, _BZ2, _XZ, _ZSTD = b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd"
_BINARY_MAGIC = (
    b"\x7fELF",
    b"\x89PNG",
    b"\xff\xd8\xff",
    b"%PDF",
    b"GIF8",
    b"\x93NUMPY",
    b"\x89HDF",
    b"SQLite format 3",
    b"PAR1",
    b"\xca\xfe\xba\xbe",
    b"MZ",
)
_ZIP_EXT = (".zip",)
_TEXT_BYTES = bytes([9, 10, 11, 12, 13, 27, *range(32, 127), *range(128, 256)])
_TAR_EXT = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst")


@dataclass(frozen=True)
class Stream:
    name: str
    reader: BinaryIO
    who: Who  # what its path says (rank_3.log, attempt_0/3/, device-3/): analyzer.job
    # Decompressed bytes beyond which reading stops: a decompression bomb (a few KB that
    # expand to terabytes of zeros) must end in bounded time with a note.
    limit: int | None = None
    # A plain file on disk (not compressed, not an archive member) and its size: its tail
    # can be read first when time is short (analyze(deadline=...)).
    path: Path | None = None
    size: int | None = None


@dataclass
class SourceNotes:
    """What could not be read, and why; filled while streams are produced."""

    unreadable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def unreadable_file(self, name: str, why: str) -> None:
        self.unreadable.append(name)
        self.notes.append(f"{name}: cannot read: {why}")

    def skip(self, name: str, why: str) -> None:
        self.skipped.append(name)
        self.notes.append(f"{name}: skipped: {why}")


class _Prefixed(io.RawIOBase):
    """A stream whose first bytes were already read for sniffing."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head, self._rest = head, rest
        self._error: BaseException | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(b)
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        # read1 where the stream has it (gzip, bz2, lzma): one decompression step at a
        # time. A stream that breaks (a truncated file) ends this read as if at its end,
        # so the buffered reader above returns everything decoded before the break, and
        # raises on the next read: the scan keeps the data and notes the error.
        read = getattr(self._rest, "read1", self._rest.read)
        try:
            data = read(len(view))
        except (OSError, EOFError, lzma.LZMAError) as e:
            self._error = e
            return 0
        view[: len(data)] = data
        return len(data)


class _Zstd(io.RawIOBase):
    """A zstd stream, frame after frame. zstandard's stream_reader returns nothing and
    no error for a file cut mid-frame, which would read as complete and empty; this
    raises EOFError there, after what could be decoded (a copy taken while the log was
    still being written keeps its head)."""

    # compressed bytes per step: small, as one step's output is held whole (2 KiB of
    # zstd run-length blocks expand to at most 64 MiB; logs to about 20 KiB)
    _CHUNK = 2 << 10

    def __init__(self, f: BinaryIO) -> None:
        import zstandard

        self._zstd, self._f = zstandard, f
        self._obj = zstandard.ZstdDecompressor().decompressobj()
        self._out = b""
        self._ended = False
        self._started = False  # the current frame has begun (its end not yet seen)

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._out and not self._ended:
            data = self._f.read(self._CHUNK)
            if not data:
                self._ended = True
                if not self._obj.eof and self._started:
                    raise EOFError("zstd stream ended before the end of its frame")
                break
            self._started = True
            while data:
                try:
                    self._out += self._obj.decompress(data)
                except self._zstd.ZstdError as e:  # corrupt data: an I/O error to the reader
                    raise OSError(f"zstd: {e}") from None
                data = self._obj.unused_data if self._obj.eof else b""
                if data or self._obj.eof:  # the next frame of a concatenated file
                    self._obj = self._zstd.ZstdDecompressor().decompressobj()
                    self._started = bool(data)
        n = min(len(b), len(self._out))
        memoryview(b)[:n] = self._out[:n]
        self._out = self._out[n:]
        return n


def _read_head(f: BinaryIO) -> bytes:
    """The first bytes for sniffing; a stream that breaks after some data keeps that data."""
    head = b""
    while len(head) < _HEAD:
        try:
            chunk = f.read(_HEAD - len(head))
        except (OSError, EOFError, lzma.LZMAError):
            if head:
                break
            raise
        if not chunk:
            break
        head += chunk
    return head


def _looks_binary(head: bytes) -> bool:
    if head.startswith(_BINARY_MAGIC):
        return True
    if not head:
        return False
    # Text is printable ASCII, UTF-8/GBK bytes >= 0x80, and \t \n \r \f \v ESC; a log
    # may hold a few stray control bytes (backspaces of progress bars), a binary many.
    control = len(head.translate(None, _TEXT_BYTES))
    return head.count(0) > len(head) // 100 or control > len(head) // 20


def packed(head: bytes) -> bool:
    """The first bytes of a compressed file or a zip: no text to read as it is."""
    return head.startswith((_GZIP, _BZ2, _XZ, _ZSTD, b"PK\x03\x04"))


def _decompressor(head: bytes, f: BinaryIO) -> BinaryIO | None:
    if head.startswith(_GZIP):
        return gzip.GzipFile(fileobj=f)  # type: ignore[return-value]
    if head.startswith(_BZ2):
        return bz2.BZ2File(f)  # type: ignore[return-value]
    if head.startswith(_XZ):
        return lzma.LZMAFile(f)  # type: ignore[return-value]
    if head.startswith(_ZSTD):
        return _Zstd(f)  # type: ignore[return-value]
    return None


def _is_tar(head: bytes) -> bool:
    return len(head) >= 262 and head[257:262] == b"ustar"


def _expansion_limit(packed: int | None, outer: int | None) -> int:
    """How far a compressed stream may expand: logs compress 10-50x, bombs 1000x+."""
    own = max(MIN_EXPANSION_LIMIT, EXPANSION_RATIO * packed) if packed else UNKNOWN_SIZE_LIMIT
    return min(own, outer) if outer else own


def _streams_of(
    name: str,
    raw: BinaryIO,
    notes: SourceNotes,
    depth: int = 0,
    path: Path | None = None,
    packed: int | None = None,
    limit: int | None = None,
) -> Iterator[Stream]:
    """Decompress and unpack one byte stream into the log streams it holds.

    `packed` is the stream's size as stored (when known), `limit` the expansion limit
    inherited from an enclosing compressed archive.
    """
    try:
        head = _read_head(raw)
        inner = _decompressor(head, _Prefixed(head, raw))  # type: ignore[arg-type]
        plain = path if inner is None else None
        if inner is not None:
            raw = inner
            head = _read_head(raw)
            limit = _expansion_limit(packed, limit)
        if _is_tar(head):
            if depth >= _MAX_NESTING:
                notes.skip(name, f"archive nested deeper than {_MAX_NESTING} levels")
                return
            members = _tar_members(name, _Prefixed(head, raw), notes, depth, limit)  # type: ignore[arg-type]
            yield from members
            return
        if head.startswith(b"PK\x03\x04"):
            if path is not None and name.lower().endswith(_ZIP_EXT) and depth < _MAX_NESTING:
                yield from _zip_members(name, path, notes, depth)
            else:
                notes.skip(name, "zip container (not a .zip archive of logs)")
            return
        if _looks_binary(head):
            notes.skip(name, "binary file, not a log")
            return
    except (OSError, EOFError, lzma.LZMAError, tarfile.TarError) as e:
        notes.unreadable_file(name, str(e) or type(e).__name__)
        return
    except Exception as e:  # zstandard raises its own ZstdError
        notes.unreadable_file(name, f"{type(e).__name__}: {e}")
        return
    reader = io.BufferedReader(_Prefixed(head, raw), 1 << 20)
    yield Stream(name, reader, path_who(name), limit, plain, packed if plain else None)


def _tar_members(
    name: str, f: BinaryIO, notes: SourceNotes, depth: int, limit: int | None
) -> Iterator[Stream]:
    with tarfile.open(fileobj=f, mode="r|") as tf:
        for member in tf:
            mname = f"{name}!{member.name}"
            if not member.isfile():
                if not member.isdir():
                    notes.skip(mname, "not a regular file in the archive")
                continue
            fobj = tf.extractfile(member)
            if fobj is None:
                continue
            yield from _streams_of(mname, fobj, notes, depth + 1, packed=member.size, limit=limit)  # type: ignore[arg-type]


def _zip_members(name: str, path: Path, notes: SourceNotes, depth: int) -> Iterator[Stream]:
    try:
        zf = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as e:
        notes.unreadable_file(name, str(e))
        return
    with zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            mname = f"{name}!{info.filename}"
            try:
                fobj = zf.open(info)
            except (OSError, zipfile.BadZipFile, NotImplementedError, RuntimeError) as e:
                notes.unreadable_file(mname, str(e))
                continue
            with fobj:
                yield from _streams_of(
                    mname,
                    fobj,  # type: ignore[arg-type]
                    notes,
                    depth + 1,
                    packed=info.compress_size,
                    limit=_expansion_limit(info.compress_size, None),
                )


def _open_file(path: Path, name: str, notes: SourceNotes) -> Iterator[Stream]:
    try:
        st = path.stat()
    except OSError as e:
        notes.unreadable_file(name, e.strerror or str(e))
        return
    if not stat.S_ISREG(st.st_mode):
        notes.skip(name, "not a regular file")
        return
    try:
        f = path.open("rb")
    except OSError as e:
        notes.unreadable_file(name, e.strerror or str(e))
        return
    with f:
        yield from _streams_of(name, f, notes, path=path, packed=st.st_size)


def _link_note(link: Path, root: Path) -> str:
    """Why a symbolic link inside a log folder is not read.

    A link to a file in the folder is read under its own name anyway (reading it twice
    would double every finding); a link out of the folder could make a report quote any
    file the user can read (`logs/x.log -> ~/.ssh/id_rsa`). A link named on the command
    line is the user's choice and is followed.
    """
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return "symbolic link that does not resolve (missing target or a loop)"
    try:
        inside = target.relative_to(root.resolve()).as_posix()
    except ValueError:
        return "symbolic link out of the input folder, not followed (name the target to read it)"
    return f"symbolic link to {inside}, read under that name"


@dataclass(frozen=True)
class Unit:
    """One top-level input file, or standard input (`path` None): listed first, opened
    where it is scanned, so that a worker process can open its share of a job."""

    name: str
    path: str | None


def _walk(root: Path, prefix: str, notes: SourceNotes) -> Iterator[Unit]:
    def on_error(e: OSError) -> None:
        notes.unreadable_file(str(e.filename), e.strerror or str(e))

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames.sort()
        here = Path(dirpath)
        # os.walk lists linked folders among dirnames but never enters them.
        for dn in dirnames:
            if (here / dn).is_symlink():
                rel = (here / dn).relative_to(root).as_posix()
                notes.skip(f"{prefix}{rel}/", _link_note(here / dn, root))
        for fn in sorted(filenames):
            full = here / fn
            name = f"{prefix}{full.relative_to(root).as_posix()}"
            if full.is_symlink():
                notes.skip(name, _link_note(full, root))
                continue
            yield Unit(name, str(full))


def iter_units(paths: Sequence[str], notes: SourceNotes) -> Iterator[Unit]:
    """Every input file under the given paths, in a stable order.

    Names are relative to the argument they came from; with several arguments the
    argument itself is kept in front so that names stay unique.
    """
    several = len(paths) > 1
    for arg in paths:
        if arg == "-":
            yield Unit("<stdin>", None)
            continue
        p = Path(arg)
        if p.is_dir():
            prefix = (arg.rstrip("/") + "/") if several else ""
            yield from _walk(p, prefix, notes)
        elif p.exists() or p.is_symlink():
            yield Unit(arg, arg)
        else:
            notes.unreadable_file(arg, "no such file or directory")


def open_unit(unit: Unit, notes: SourceNotes) -> Generator[Stream, None, None]:
    """The log streams of one input: one for a plain or compressed file, the members of
    an archive."""
    if unit.path is None:
        yield from _streams_of(unit.name, sys.stdin.buffer, notes)
    else:
        yield from _open_file(Path(unit.path), unit.name, notes)


def iter_streams(paths: Sequence[str], notes: SourceNotes) -> Iterator[Stream]:
    """Every log stream under the given paths, in a stable order."""
    for unit in iter_units(paths, notes):
        yield from open_unit(unit, notes)
