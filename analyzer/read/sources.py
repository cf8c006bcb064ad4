"""Paths -> decompressed byte streams, each with the name a person can find it under.

Files, folders (recursive), stdin, compressed files and archive members are all read as
streams: nothing is ever extracted to disk, and each stream is consumed before the next
one is produced (tar archives can only be read in order). Whatever cannot be read
becomes a note, never an exception, because a half-readable bundle still deserves an
answer.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import re
import select
import stat
import sys
import tempfile
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ..job import flight
from ..job.model import path_who
from ..rules.formats import Formats
from ..types import Who
from .archives import Member, tar_members, zip_members
from .redact import label

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
# a compression suffix, which a name's archive suffix comes before (`logs.zip.gz`)
_COMPRESSED = re.compile(r"\.(?:gz|bz2|xz|zst)$")
_TEXT_BYTES = bytes([8, 9, 10, 11, 12, 13, 27, *range(32, 127), *range(128, 256)])
# NULs a log holds come in runs: a page zero-filled by a crash, the hole copytruncate
# leaves before a writer's offset. Binary data and UTF-16 have them scattered.
_NUL_RUN = re.compile(rb"\x00{16,}")
_TAR_EXT = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst")


class OutOfTime(Exception):
    """The caller's deadline passed inside a read (a header, a skip, a walk): the
    reading ends where it is, and what was read stands."""


@dataclass
class Budget:
    """Decompressed bytes one input may still produce, at every level of nesting: a few
    KB that expand to terabytes must end in bounded time with a note. It comes from the
    bytes on disk, never from a size an archive declares."""

    left: int

    @classmethod
    def of(cls, stored: int | None) -> Budget:
        if stored is None:
            return cls(UNKNOWN_SIZE_LIMIT)
        return cls(max(MIN_EXPANSION_LIMIT, EXPANSION_RATIO * stored))


class DecompressionBomb(OSError):
    pass


class _Guarded(io.RawIOBase):
    """Every read of an input goes through one of these: on the file itself (the
    deadline) and on each decompressor's output (the deadline and the budget). So no
    stage, whether a gzip header read a byte at a time, a skipped tar member or a
    member list, runs past the deadline or expands past the budget."""

    def __init__(
        self, f: BinaryIO, stop_at: float | None, budget: Budget | None = None, fd: int = -1
    ) -> None:
        self._f, self._stop_at, self._budget = f, stop_at, budget
        self._fd = fd  # a stream that may block (stdin): waited on with select

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._budget is None and self._f.seekable()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._f.seek(offset, whence)

    def tell(self) -> int:
        return self._f.tell()

    def _wait(self) -> None:
        if self._stop_at is None:
            return
        left = self._stop_at - time.monotonic()
        if left <= 0:
            raise OutOfTime
        if self._fd >= 0 and not select.select([self._fd], [], [], left)[0]:
            raise OutOfTime

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        self._wait()
        view = memoryview(b)
        if self._fd >= 0:
            data = os.read(self._fd, len(view))  # what is there now: never blocks twice
        else:
            read = getattr(self._f, "read1", self._f.read)
            data = read(len(view))
        if self._budget is not None:
            self._budget.left -= len(data)
            if self._budget.left < 0:
                raise DecompressionBomb(
                    "stopped: it expands far beyond its stored size (a decompression bomb?)"
                )
        view[: len(data)] = data
        return len(data)


@dataclass(frozen=True)
class Stream:
    name: str
    reader: BinaryIO
    who: Who  # what its path says (rank_3.log, attempt_0/3/, device-3/): analyzer.job.model
    # A plain file on disk (not compressed, not an archive member) and its size: its tail
    # can be read first when time is short (analyze(deadline=...)).
    path: Path | None = None
    size: int | None = None
    dump: bool = False  # a Flight Recorder dump (analyzer.job.flight), not lines of text


# Notes kept of each kind: a tar of a million links must not make a million notes.
MAX_NOTES = 1000


@dataclass
class SourceNotes:
    """What could not be read, and why; filled while streams are produced. `secrets`:
    whether names are redacted (a presigned URL as a file name holds its signature)."""

    unreadable: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    dropped: int = 0  # notes beyond MAX_NOTES, counted only
    secrets: bool = True

    def label(self, raw: str) -> str:
        """A name as every output shows it: analyzer.read.redact.label."""
        return label(raw, self.secrets)

    def note(self, text: str) -> None:
        if len(self.notes) < MAX_NOTES:
            self.notes.append(text)
        else:
            self.dropped += 1

    def unreadable_file(self, name: str, why: str) -> None:
        if len(self.unreadable) < MAX_NOTES:
            self.unreadable.append(name)
        self.note(f"{name}: cannot read: {why}")

    def skip(self, name: str, why: str) -> None:
        if len(self.skipped) < MAX_NOTES:
            self.skipped.append(name)
        self.note(f"{name}: skipped: {why}")

    def absorb(self, other: SourceNotes) -> None:
        """Add another reader's notes (a worker's), within the same bounds."""
        room = MAX_NOTES - len(self.unreadable)
        self.unreadable += other.unreadable[: max(room, 0)]
        room = MAX_NOTES - len(self.skipped)
        self.skipped += other.skipped[: max(room, 0)]
        for text in other.notes:
            self.note(text)
        self.dropped += other.dropped

    def shown(self) -> list[str]:
        """The notes, and how many more there were."""
        if not self.dropped:
            return list(self.notes)
        return [*self.notes, f"... and {self.dropped:,} more notes like these"]


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
        except (OSError, EOFError, lzma.LZMAError, OutOfTime) as e:
            self._error = e
            return 0
        view[: len(data)] = data
        return len(data)


class _Zstd(io.RawIOBase):
    """A zstd stream, frame after frame. zstandard's stream_reader returns nothing and
    no error for a file cut mid-frame, which would read as complete and empty; this
    raises EOFError there, after what could be decoded (a copy taken while the log was
    still being written keeps its head)."""

    # compressed bytes per step: small, as one step's output is held whole (a zstd
    # run-length block of 4 bytes expands to 128 KiB: 256 bytes to at most 8 MiB)
    _CHUNK = 256

    def __init__(self, f: BinaryIO) -> None:
        import zstandard

        self._zstd, self._f = zstandard, f
        self._obj = zstandard.ZstdDecompressor().decompressobj()
        self._out = b""
        self._pos = 0  # bytes of _out already returned
        self._ended = False
        self._started = False  # the current frame has begun (its end not yet seen)

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        while self._pos >= len(self._out) and not self._ended:
            self._out, self._pos = b"", 0
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
        n = min(len(b), len(self._out) - self._pos)
        memoryview(b)[:n] = self._out[self._pos : self._pos + n]
        self._pos += n
        return n


def _read_head(f: BinaryIO) -> bytes:
    """The first bytes for sniffing; a stream that breaks after some data keeps that data."""
    head = b""
    while len(head) < _HEAD:
        try:
            chunk = f.read(_HEAD - len(head))
        except (OSError, EOFError, lzma.LZMAError, OutOfTime):
            if head:  # the error (or the deadline) comes again on the next read
                break
            raise
        if not chunk:
            break
        head += chunk
    return head


def _looks_binary(head: bytes) -> bool:
    if head.startswith(_BINARY_MAGIC):
        return True
    head = _NUL_RUN.sub(b"", head)
    if not head:
        return False
    # Text is printable ASCII, UTF-8/GBK bytes >= 0x80, and \b \t \n \r \f \v ESC
    # (backspaces redraw progress bars); a log may hold a few stray control bytes, a
    # binary many.
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


def _gzip_header_ends(head: bytes) -> bool:
    """A gzip header whose file name or comment does not end within the first bytes is
    not a log's (gzip reads such a field a byte per call, for as long as it runs)."""
    flags = head[3] if len(head) > 3 else 0
    at = 10
    if flags & 4:  # FEXTRA: a length and that many bytes (at most 64 KiB, by format)
        at += 2 + int.from_bytes(head[10:12], "little")
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit:
            end = head.find(b"\0", at)
            if end < 0:
                return False
            at = end + 1
    return at <= len(head)


def _is_tar(head: bytes) -> bool:
    return len(head) >= 262 and head[257:262] == b"ustar"


@dataclass(frozen=True)
class _Input:
    """What the streams of one input share: its notes, the caller's deadline, one
    decompression budget for every level of nesting, and the formats whose path shapes
    say who wrote each stream (the job's; None: the built-in ones)."""

    notes: SourceNotes
    stop_at: float | None
    budget: Budget
    formats: Formats | None = None


def _streams_of(
    name: str,
    raw: BinaryIO,
    at: _Input,
    depth: int = 0,
    path: Path | None = None,
    size: int | None = None,
) -> Iterator[Stream]:
    """Decompress and unpack one byte stream into the log streams it holds. `path` and
    `size`: the file on disk when `raw` is one, and its size when opened (a zip is read
    from it; a plain file's tail can be read first; a growing file ends there)."""
    notes = at.notes
    try:
        head = _read_head(raw)
        if head.startswith(_GZIP) and not _gzip_header_ends(head):
            notes.skip(name, "gzip header with a name or comment that does not end")
            return
        inner = _decompressor(head, _Prefixed(head, raw))  # type: ignore[arg-type]
        plain = path if inner is None else None
        if inner is not None:
            raw = _Guarded(inner, at.stop_at, at.budget)  # type: ignore[assignment]
            head = _read_head(raw)
        if _is_tar(head) or head.startswith(b"PK\x03\x04"):
            if depth >= _MAX_NESTING:
                notes.skip(name, f"archive nested deeper than {_MAX_NESTING} levels")
                return
            if _is_tar(head):
                members = tar_members(_Prefixed(head, raw))  # type: ignore[arg-type]
            elif not _COMPRESSED.sub("", name.lower()).endswith(_ZIP_EXT):
                notes.skip(name, "zip container (not a .zip archive of logs)")
                return
            elif plain is not None:  # a zip file on disk, read where it lies
                members = zip_members(raw, size or 0)
            else:  # a .zip inside an archive or compressed: its directory is at its end
                spooled = _spool(_Prefixed(head, raw))  # type: ignore[arg-type]
                if spooled is None:
                    notes.skip(name, f".zip inside an archive larger than {_MAX_SPOOL:,} bytes")
                    return
                with spooled:
                    size = spooled.seek(0, io.SEEK_END)
                    yield from _members(name, zip_members(spooled, size), at, depth)
                return
            yield from _members(name, members, at, depth)
            return
        if flight.sniff(head):
            # buffered, as a log's stream is: a read of n bytes returns n (the raw stream
            # returns the sniffed head alone, and every dump over 8 KiB read as truncated)
            dump = io.BufferedReader(_Prefixed(head, raw), 1 << 20)
            yield Stream(name, dump, path_who(name, at.formats), dump=True)
            return
        if _looks_binary(head):
            notes.skip(name, "binary file, not a log")
            return
    except OutOfTime:
        raise
    except (OSError, EOFError, lzma.LZMAError) as e:
        notes.unreadable_file(name, str(e) or type(e).__name__)
        return
    except Exception as e:  # zstandard raises its own ZstdError
        notes.unreadable_file(name, f"{type(e).__name__}: {e}")
        return
    reader = io.BufferedReader(_Prefixed(head, raw), 1 << 20)
    yield Stream(
        name, reader, path_who(name, at.formats), plain, size if plain is not None else None
    )


# A .zip found inside another archive (or compressed) is copied to a temporary file to be
# read, since its directory is at its end: at most this many bytes, within the
# deadline and the decompression budget of the input it comes from
_MAX_SPOOL = 2 << 30


def _spool(src: BinaryIO) -> BinaryIO | None:
    """`src` copied to an anonymous temporary file (deleted when closed), or None when
    it is larger than _MAX_SPOOL."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 (the caller closes it)
    copied = 0
    try:
        while chunk := src.read(1 << 20):
            copied += len(chunk)
            if copied > _MAX_SPOOL:
                out.close()
                return None
            out.write(chunk)
    except BaseException:
        out.close()
        raise
    return out


def _members(name: str, members: Iterator[Member], at: _Input, depth: int) -> Iterator[Stream]:
    """The log streams of an archive's members; a broken archive keeps its members read
    before the break."""
    notes = at.notes
    try:
        for member in members:
            mname = f"{name}!{notes.label(member.name.decode('utf-8', 'surrogateescape'))}"
            if member.reader is not None:
                yield from _streams_of(mname, member.reader, at, depth + 1)
            elif not member.directory:
                notes.skip(mname, member.why)
    except OutOfTime:
        raise
    except (OSError, EOFError, lzma.LZMAError) as e:
        notes.unreadable_file(name, str(e) or type(e).__name__)
    except Exception as e:
        notes.unreadable_file(name, f"{type(e).__name__}: {e}")


class NotRegular(OSError):
    pass


def open_regular(path: str, named: bool) -> tuple[BinaryIO, os.stat_result]:
    """A regular file opened for reading, with its status taken from the open file.

    Special files are never opened, and what was opened is checked again: a file
    swapped for a link or a FIFO between the check and the open is refused (a link is
    followed only when the user named it), and opening never blocks (O_NONBLOCK: a
    FIFO's open waits for a writer)."""
    before = os.stat(path) if named else os.lstat(path)
    if stat.S_ISLNK(before.st_mode):
        raise NotRegular("symbolic link, not followed")
    if not stat.S_ISREG(before.st_mode):  # never opened: opening a device can act
        raise NotRegular("not a regular file")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not named:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not named and e.errno == errno.ELOOP and os.path.islink(path):
            raise NotRegular("symbolic link, not followed") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegular("not a regular file")
    return os.fdopen(fd, "rb", buffering=0), st


def _open_file(
    unit: Unit, at: SourceNotes, stop_at: float | None, formats: Formats | None
) -> Iterator[Stream]:
    assert unit.path is not None
    try:
        f, st = open_regular(unit.path, unit.named)
    except NotRegular as e:
        at.skip(unit.name, str(e))
        return
    except OSError as e:
        at.unreadable_file(unit.name, e.strerror or str(e))
        return
    with f:
        guarded = io.BufferedReader(_Guarded(f, stop_at), 64 << 10)
        budget = Budget.of(st.st_size)
        yield from _streams_of(
            unit.name,
            guarded,
            _Input(at, stop_at, budget, formats),
            path=Path(unit.path),
            size=st.st_size,
        )


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
    return f"symbolic link to {label(inside)}, read under that name"


@dataclass(frozen=True)
class Unit:
    """One top-level input file, or standard input (`path` None): listed first, opened
    where it is scanned, so that a worker process can open its share of a job. `name`
    is the label outputs show (escaped, redacted), `path` the file's real path."""

    name: str
    path: str | None
    named: bool = False  # on the command line: a link is followed (the user chose it)


# a file whose name says it holds errors: read first when time is short
_ERROR_NAMED = re.compile(r"(?i)err|fail|crash|fatal|traceback|exception|panic|dmesg|kern")


def likely_first(unit: Unit) -> tuple[bool, int, float]:
    """The order to read a job's files in when a deadline may cut the reading short:
    error-named first, then the smallest (a failing rank's short log before a healthy
    rank's long one; many small files read before one large one), the newest first among
    equals. A file that cannot be stated goes last."""
    named = _ERROR_NAMED.search(unit.name) is not None
    try:
        st = os.stat(unit.path) if unit.path is not None else None
    except OSError:
        return (True, 1 << 62, 0.0)
    return (not named, st.st_size if st else 0, -(st.st_mtime if st else 0.0))


def _walk(root: Path, prefix: str, notes: SourceNotes, stop_at: float | None) -> Iterator[Unit]:
    """Every file under `root`, sorted, depth first, with a stack rather than recursion
    (a folder nested thousands deep is a list, not a RecursionError)."""
    stack = [""]
    while stack:
        rel = stack.pop()
        if stop_at is not None and time.monotonic() > stop_at:
            raise OutOfTime
        here = root / rel if rel else root
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            notes.unreadable_file(
                notes.label(f"{prefix}{rel}/" if rel else str(here)), e.strerror or str(e)
            )
            continue
        folders = []
        for entry in entries:
            path = f"{rel}/{entry.name}" if rel else entry.name
            name = notes.label(f"{prefix}{path}")
            try:
                if entry.is_symlink():
                    notes.skip(
                        name + ("/" if _is_dir(entry) else ""), _link_note(Path(entry.path), root)
                    )
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(path)
                else:
                    yield Unit(name, entry.path)
            except OSError as e:
                notes.unreadable_file(name, e.strerror or str(e))
        # files of a folder before its subfolders' files, as os.walk listed them
        stack.extend(reversed(folders))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link loop
        return False


def iter_units(
    paths: Sequence[str], notes: SourceNotes, stop_at: float | None = None
) -> Iterator[Unit]:
    """Every input file under the given paths, in a stable order.

    Names are relative to the argument they came from; with several arguments the
    argument itself is kept in front so that names stay unique. Raises OutOfTime when
    `stop_at` (monotonic clock) passes during a walk.
    """
    several = len(paths) > 1
    for arg in paths:
        if arg == "-":
            yield Unit("<stdin>", None)
            continue
        p = Path(arg)
        if p.is_dir():
            prefix = (arg.rstrip("/") + "/") if several else ""
            yield from _walk(p, prefix, notes, stop_at)
        elif p.exists() or p.is_symlink():
            yield Unit(notes.label(arg), arg, named=True)
        else:
            notes.unreadable_file(notes.label(arg), "no such file or directory")


def open_unit(
    unit: Unit,
    notes: SourceNotes,
    stop_at: float | None = None,
    formats: Formats | None = None,
) -> Generator[Stream, None, None]:
    """The log streams of one input: one for a plain or compressed file, the members of
    an archive, each with what its path says by `formats` (the job's; default the
    built-in ones). Raises OutOfTime when `stop_at` passes inside any read."""
    if unit.path is not None:
        yield from _open_file(unit, notes, stop_at, formats)
        return
    fd = sys.stdin.fileno() if stop_at is not None else -1
    # not buffered: a buffered read that waits for more after some bytes came would
    # lose them to the deadline; each read returns what is there
    stdin = _Guarded(sys.stdin.buffer, stop_at, fd=fd)
    at = _Input(notes, stop_at, Budget.of(None), formats)
    yield from _streams_of(unit.name, stdin, at)  # type: ignore[arg-type]


def iter_streams(paths: Sequence[str], notes: SourceNotes) -> Iterator[Stream]:
    """Every log stream under the given paths, in a stable order."""
    for unit in iter_units(paths, notes):
        yield from open_unit(unit, notes)
