"""Tar and zip archives as streams of members, every size and count bounded.

Not tarfile and zipfile, because an archive here is untrusted input and they trust it:
they hold GNU long names, pax headers and a zip's central directory whole (a 256 MiB
long name is 256 MiB of memory), decompress a zip's bzip2 or LZMA data without an
output limit per call (a 1.3 KB member took 2.1 GB), accept overlapping zip entries
(CVE-2024-0450, fixed in Python 3.11.8) and parse pax headers in quadratic time
(CVE-2024-6232, fixed in 3.11.10). A log reader needs little of either format: member
names, sizes and data, in order. What this module reads:

- tar: POSIX ustar headers (checksums verified), the pax `path` and `size` records,
  GNU long names; other members (links, devices, folders, sparse files) are reported
  and skipped. Names are kept up to NAME_CAP bytes, pax headers parsed up to PAX_CAP.
- zip: the end record (zip64 too), the central directory read entry by entry, members
  stored, deflated or bzip2-compressed, read in file order, their CRC checked. A member
  whose data overlaps another's, or lies outside the file, is refused.

At most MAX_MEMBERS members of one archive are looked at. Every read goes through the
caller's reader, which keeps the deadline and the decompression budget
(analyzer.read.sources): this module adds no unbounded loop of its own.
"""

from __future__ import annotations

import bz2
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

NAME_CAP = 4096  # bytes of a member name kept; the rest of a longer one is skipped
PAX_CAP = 64 << 10  # bytes of one pax header parsed; the rest is skipped
MAX_MEMBERS = 100_000  # members of one archive looked at
_BLOCK = 512
_CHUNK = 1 << 20  # bytes per read when skipping, and compressed bytes per zip step
_EOCD, _EOCD64, _LOC64 = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"
_CENTRAL, _LOCAL = b"PK\x01\x02", b"PK\x03\x04"


class ArchiveError(OSError):
    """The archive's structure is broken or hostile: what was read before stands."""


@dataclass(frozen=True)
class Member:
    """One entry: `reader` for a regular file's data (valid until the next member),
    None for anything else, with `why` it is not read."""

    name: bytes
    reader: BinaryIO | None
    size: int
    why: str = ""  # for a non-file: what it is
    directory: bool = False


def read_exact(f: BinaryIO, n: int) -> bytes:
    """Up to n bytes: fewer only at the end of the stream."""
    out = b""
    while len(out) < n:
        chunk = f.read(min(n - len(out), _CHUNK))
        if not chunk:
            break
        out += chunk
    return out


def skip(f: BinaryIO, n: int) -> None:
    """Pass n bytes by reading them (a compressed stream cannot seek), a chunk at a time
    through the caller's reader, so a skip is bounded by the deadline and the budget."""
    while n > 0:
        chunk = f.read(min(n, _CHUNK))
        if not chunk:
            return
        n -= len(chunk)


def _bounded(f: BinaryIO, size: int, cap: int) -> bytes:
    """A header's data (long name, pax records) up to `cap` bytes; the rest is skipped."""
    data = read_exact(f, min(size, cap))
    skip(f, size - len(data) + (-size) % _BLOCK)
    return data


class _Part(io.RawIOBase):
    """The next `left` bytes of a stream, then its end."""

    def __init__(self, f: BinaryIO, left: int) -> None:
        self._f, self.left = f, left

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        if self.left <= 0:
            return 0
        data = self._f.read(min(len(b), self.left, _CHUNK))
        if not data:
            raise ArchiveError(f"archive ends {self.left:,} bytes into a member's data")
        memoryview(b)[: len(data)] = data
        self.left -= len(data)
        return len(data)


# --- tar ---------------------------------------------------------------------------

_TAR_OTHER = {
    b"1": "hard link",
    b"2": "symbolic link",
    b"3": "character device",
    b"4": "block device",
    b"6": "FIFO",
    b"S": "sparse file",
}


def _number(field: bytes) -> int:
    """A header number: octal text, or GNU base-256 (first byte 0x80)."""
    if field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    if field[:1] == b"\xff":
        raise ArchiveError("negative number in a tar header")
    text = field.split(b"\0", 1)[0].strip(b" ")
    if not text:
        return 0
    if not text.isdigit() or b"8" in text or b"9" in text:
        raise ArchiveError("invalid number in a tar header")
    return int(text, 8)


def _checksum_ok(block: bytes) -> bool:
    want = _number(block[148:156])
    unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:])
    signed = unsigned - 2 * sum(c for c in block[:148] + block[156:] if c > 127)
    return want in (unsigned, signed)


def _pax(data: bytes) -> dict[bytes, bytes]:
    """The `path` and `size` of pax records (`LEN KEY=VALUE\\n`), in one linear pass;
    a malformed record ends parsing (the member keeps its ustar fields)."""
    out: dict[bytes, bytes] = {}
    pos = 0
    while pos < len(data):
        space = data.find(b" ", pos, pos + 21)
        digits = data[pos:space] if space > pos else b""
        if not digits.isdigit():
            break
        end = pos + int(digits)
        if end <= space or end > len(data):
            break
        key, _, value = data[space + 1 : end - 1].partition(b"=")
        if key in (b"path", b"size"):
            out[key] = value[:NAME_CAP]
        pos = end
    return out


def tar_members(f: BinaryIO) -> Iterator[Member]:
    """The members of a tar stream, in order. The consumer reads a member's data (or
    not) before asking for the next; what it left is skipped."""
    long_name: bytes | None = None
    pax: dict[bytes, bytes] = {}
    count = 0
    while True:
        block = read_exact(f, _BLOCK)
        if len(block) < _BLOCK or not block.strip(b"\0"):
            if block.strip(b"\0"):
                raise ArchiveError("tar archive cut inside a header")
            return  # the end blocks, or an archive cut at a member boundary
        if not _checksum_ok(block):
            raise ArchiveError("tar header checksum mismatch (corrupt or not a tar)")
        size, kind = _number(block[124:136]), block[156:157]
        if kind in (b"L", b"K"):  # GNU: the next member's long name / link target
            data = _bounded(f, size, NAME_CAP)
            if kind == b"L":
                long_name = data.split(b"\0", 1)[0]
            continue
        if kind in (b"x", b"g"):  # pax: the next member's records / global ones
            data = _bounded(f, size, PAX_CAP)
            if kind == b"x":
                pax = _pax(data)
            continue
        name = block[:100].split(b"\0", 1)[0]
        if block[257:262] == b"ustar" and block[345:500].strip(b"\0"):
            name = block[345:500].split(b"\0", 1)[0] + b"/" + name
        name = pax.get(b"path") or long_name or name
        if pax.get(b"size", b"").isdigit():
            size = int(pax[b"size"])
        long_name, pax = None, {}
        count += 1
        if count > MAX_MEMBERS:
            raise ArchiveError(f"more than {MAX_MEMBERS:,} members; the rest were not read")
        padding = (-size) % _BLOCK
        if kind in (b"0", b"\0", b"7"):
            part = _Part(f, size)
            yield Member(name, io.BufferedReader(part, _CHUNK), size)
            skip(f, part.left + padding)
            continue
        yield Member(
            name, None, size, _TAR_OTHER.get(kind, "not a regular file"), directory=kind == b"5"
        )
        if kind not in _TAR_OTHER or kind == b"S":  # links and devices have no data
            skip(f, size + padding)


# --- zip ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    name: bytes
    offset: int  # of the local header
    packed: int
    method: int
    flags: int
    crc: int


def _u(data: bytes, at: int, n: int) -> int:
    return int.from_bytes(data[at : at + n], "little")


def _end_record(f: BinaryIO, size: int) -> tuple[int, int, int]:
    """(central directory offset, its size, where the end record starts)."""
    tail_start = max(0, size - (22 + 0xFFFF))
    f.seek(tail_start)
    tail = read_exact(f, size - tail_start)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        raise ArchiveError("no zip end record (not a zip, or cut short)")
    eocd = tail_start + at
    cd_size, cd_offset = _u(tail, at + 12, 4), _u(tail, at + 16, 4)
    loc = at - 20
    if loc >= 0 and tail[loc : loc + 4] == _LOC64:
        f.seek(_u(tail, loc + 8, 8))
        rec = read_exact(f, 56)
        if rec[:4] != _EOCD64:
            raise ArchiveError("zip64 end record missing")
        cd_size, cd_offset = _u(rec, 40, 8), _u(rec, 48, 8)
        eocd = tail_start + loc - 56
    if cd_size > eocd or cd_offset + cd_size > size:
        raise ArchiveError("zip central directory lies outside the file")
    return cd_offset, cd_size, eocd


def _zip64(extra: bytes, packed: int, offset: int, size: int) -> tuple[int, int]:
    """The real packed size and header offset where the 32-bit fields say 0xFFFFFFFF
    (the zip64 extra field holds the 64-bit ones, in this order, for those only)."""
    values = [size, packed, offset]
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = _u(extra, pos, 2), _u(extra, pos + 2, 2)
        if tag == 1:
            body, k = extra[pos + 4 : pos + 4 + length], 0
            for i, value in enumerate(values):
                if value == 0xFFFFFFFF and k + 8 <= len(body):
                    values[i] = _u(body, k, 8)
                    k += 8
            break
        pos += 4 + length
    return values[1], values[2]


def _entries(f: BinaryIO, size: int) -> tuple[list[_Entry], int, int]:
    """The central directory's file entries in file order, the directory's start, and
    the bytes of data the archive has before its first member (a self-extracting stub)."""
    cd_offset, cd_size, eocd = _end_record(f, size)
    base = eocd - cd_size - cd_offset  # data prepended to the archive
    if base < 0:
        raise ArchiveError("zip central directory lies outside the file")
    f.seek(cd_offset + base)
    out: list[_Entry] = []
    while len(out) <= MAX_MEMBERS:
        fixed = read_exact(f, 46)
        if fixed[:4] != _CENTRAL:
            break
        n, m, k = _u(fixed, 28, 2), _u(fixed, 30, 2), _u(fixed, 32, 2)
        name = read_exact(f, n)
        extra = read_exact(f, m)
        skip(f, k)
        packed, offset = _zip64(extra, _u(fixed, 20, 4), _u(fixed, 42, 4), _u(fixed, 24, 4))
        if not name.endswith(b"/"):
            flags, method, crc = _u(fixed, 8, 2), _u(fixed, 10, 2), _u(fixed, 16, 4)
            out.append(_Entry(name[:NAME_CAP], offset + base, packed, method, flags, crc))
    out.sort(key=lambda e: e.offset)
    return out, cd_offset + base, base


class _Inflated(io.RawIOBase):
    """A zip member's data decompressed a bounded step at a time, its CRC checked at the
    end. Neither declared size is trusted: the packed size only bounds what is read
    (`left`, never past the central directory), the data's own end ends the member."""

    def __init__(self, f: BinaryIO, entry: _Entry, left: int) -> None:
        self._f, self._entry, self._left = f, entry, left
        self._crc = 0
        self._buf = b""  # compressed input not yet consumed
        self._z: Any = None  # stored
        if entry.method == 8:
            self._z = zlib.decompressobj(-15)
        elif entry.method == 12:
            self._z = bz2.BZ2Decompressor()
        self._done = False
        self._error: ArchiveError | None = None

    def readable(self) -> bool:
        return True

    def _input(self) -> bytes:
        if self._left <= 0:
            return b""
        data = self._f.read(min(self._left, _CHUNK))
        if not data:
            raise ArchiveError("zip member data cut short")
        self._left -= len(data)
        return data

    def _step(self, want: int) -> bytes:
        """Up to `want` bytes of output (b"" when this step produced none)."""
        z = self._z
        if z is None or not isinstance(z, bz2.BZ2Decompressor):
            if not self._buf:
                self._buf = self._input()
            if z is None:
                out, self._buf = self._buf[:want], self._buf[want:]
                return out
            out = z.decompress(self._buf, want)
            self._buf = z.unconsumed_tail
            return bytes(out)
        if z.eof:
            return b""
        return bytes(z.decompress(self._input() if z.needs_input else b"", want))

    def _ended(self) -> bool:
        z = self._z
        if z is not None and z.eof:
            return True
        idle = z is None or not isinstance(z, bz2.BZ2Decompressor) or z.needs_input
        return self._left <= 0 and not self._buf and idle

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._done:
            out = self._step(len(b))
            if out:
                self._crc = zlib.crc32(out, self._crc)
                memoryview(b)[: len(out)] = out
                return len(out)
            if self._ended():
                self._done = True
                if self._crc != self._entry.crc:
                    name = self._entry.name.decode("utf-8", "replace")
                    # raised on the next read: the reader above returns what came first
                    self._error = ArchiveError(f"bad CRC-32 for {name!r}")
                return 0
        if self._error is not None:  # on every later read: a sniffing read may swallow one
            raise self._error
        return 0


_ZIP_METHODS = {0: "stored", 8: "deflate", 12: "bzip2"}


def zip_members(f: BinaryIO, size: int) -> Iterator[Member]:
    """The file members of a zip on disk (`f` seekable, `size` its length), in file
    order. Members that are encrypted, use another method, or overlap are not read."""
    entries, cd_start, base = _entries(f, size)
    end_of_last = base
    for count, entry in enumerate(entries):
        if count >= MAX_MEMBERS:
            raise ArchiveError(f"more than {MAX_MEMBERS:,} members; the rest were not read")
        f.seek(entry.offset)
        local = read_exact(f, 30)
        start = entry.offset + 30 + _u(local, 26, 2) + _u(local, 28, 2)
        if local[:4] != _LOCAL:
            yield Member(entry.name, None, 0, "no local header where the directory says")
        elif entry.offset < end_of_last or start > cd_start:
            yield Member(entry.name, None, 0, "data overlaps another member (a zip bomb?)")
        elif entry.flags & 1:
            yield Member(entry.name, None, 0, "encrypted")
        elif entry.method not in _ZIP_METHODS:
            yield Member(entry.name, None, 0, f"compression method {entry.method} not supported")
        else:
            left = min(entry.packed, cd_start - start)
            end_of_last = start + left
            f.seek(start)
            raw = io.BufferedReader(_Inflated(f, entry, left), _CHUNK)
            yield Member(entry.name, raw, entry.packed)
