"""A corpus of hostile inputs for ha-analyze, each built on demand in a temporary folder.

SECURITY.md promises that whatever the bytes, `analyze(paths, deadline=S)` answers in
about S seconds, memory stays bounded, nothing is extracted, followed or written, no
content raises a traceback, and every line that leaves the engine is redacted and safe to
paste. Each `Hostile` below is one attempt to break one of those promises. Its builder
writes the input under a folder it is given and returns the path to analyse; nothing is
stored in the repository, and large inputs cost little disk: sparse files
(`os.truncate`), and compression bombs that are written from precompressed pieces (a
deflate piece ends in a full flush so it can be repeated; bzip2 blocks are independent
and are spliced at bit level; the LZMA range coder turns periodic on zeros and one
period is repeated; zstd has run-length blocks; gzip, xz and zstd streams concatenate),
never by compressing gigabytes.

Classes (`Hostile.klass`):

- deadline: the analysis must stop near its deadline whatever the bytes: quadratic
  regex shapes (redaction, CPython's pax parser, CVE-2024-6232), gzip headers that
  never end, tar members whose data a reader must skip by decompressing gigabytes,
  millions of members, FIFOs, files that grow while read, stdin that never closes.
- memory: decompression bombs in every container and codec the engine reads (zip
  methods 8, 12 and 14, overlapping zip entries as in CVE-2024-0450, lying sizes,
  gzip, bzip2, xz, zstd, tar), nested archives, lines of hundreds of MB, headers that
  CPython's tarfile reads whole, unbounded counts of distinct lines.
- names: file, folder and member names that carry a forged report line, terminal
  escapes (OSC 52 clipboard writes, OSC 8 links, OSC 0 titles), secrets (presigned
  URLs, tokens), bidi overrides and bytes that are not UTF-8.
- controls: terminal controls inside real error lines and their context: OSC 52/8/0,
  unterminated OSC, 8-bit C1 CSI, DCS/APC strings, backspaces, carriage-return
  redraws, bidi overrides, NUL bytes, Unicode line separators.
- walk: folders the walker must survive: 300,000 files, 1,200 levels deep, paths
  longer than PATH_MAX, symlink loops, links out of the folder, hard links, special
  files.
- tail: what tail-first reading under a deadline must still find (or is known to
  lose): tqdm redraws whose last segment is the OOM, multi-MB lines, a root cause at
  the end of a 1 TiB sparse file, a last line that straddles the tail boundary.
- watch: `ha-analyze watch` on files that rotate, truncate, multiply, grow by
  gigabytes per poll, or swap between a file and a symbolic link out of the folder.
- patterns: hostile `--patterns DIR` folders (billion-laughs YAML aliases, format
  widths, regexes that backtrack on their own examples, 5,000 signatures, wrong field
  types, deep nesting, ReDoS line formats) and `decide --policy` files.
- batch: `ha-analyze batch` roots and `--out` folders: job names that are not UTF-8
  or are CSV formulas, pre-planted symbolic links at the temporary table and journal
  paths, torn and malformed journals, jobs that are links out of the root.
- smaller: truncated and corrupt compressed files (gz, bz2, xz, zst).
- archive: corrupt containers: wrong CRCs, sizes beyond the end, negative and base-256
  tar sizes, encrypted and unsupported zip members, bogus zip64 fields, GNU sparse.

How a harness uses an entry: call `h.build(folder)`; then for `command == "analyze"`
analyse the returned path (`h.option` empty), or analyse `companion_log(folder)` with
`h.option` set to the returned path (`--patterns`); `command == "decide"` runs
`decide companion_log(folder) --policy PATH`; `command == "batch"` runs
`batch PATH --out folder / h.out` (and `h.victim`, if set, names a file under the folder
that must not change); `command == "watch"` follows the returned path. With
`h.stdin`, the returned file's bytes are fed on standard input (path `-`) and the pipe
is then kept open. Some builders start a daemon thread (files that grow, rotate or
swap; each says so in `what` and stops after 60 s): call `stop_background()` before
removing the folder, and `remove_tree()` removes even a 1,200-level tree.

Every output of every run may be checked against `SECRETS` (must never appear
verbatim), `LEAK_MARKER` (text that exists only outside the input: reading it means a
link was followed) and `FORGED` (a line of output must never start with it).

    python3 tests/hostile/inputs.py [ID ...]   # build each input once; id, disk, size, time
"""

from __future__ import annotations

import bz2
import lzma
import os
import random
import socket
import stat
import struct
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

# --- what the checks look for ------------------------------------------------------

HF_TOKEN = "hf_QhZ3kT9wLmR2vXc8NbP4sJ7yF1gD6aE5uHqW"
AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AMZ_SIGNATURE = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
PASSWORD = "hunter2-Tr0ub4dor-3"
# Values that must never appear verbatim in any output (redaction).
SECRETS: tuple[str, ...] = (HF_TOKEN, AWS_KEY_ID, AMZ_SIGNATURE, PASSWORD)
# Text written only outside the input folder: an output quoting it followed a link.
LEAK_MARKER = "LEAK-MARKER-OUTSIDE-THE-INPUT"
# A forged report line hidden in names and lines: no output line may start with it.
FORGED = "verdict: none"

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free."
OOM_OLD = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.15 GiB total capacity)"
NCCL = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"
_OOM_B = OOM.encode()
_NCCL_B = NCCL.encode()

KLASSES = (
    "deadline",
    "memory",
    "names",
    "controls",
    "walk",
    "tail",
    "watch",
    "patterns",
    "batch",
    "smaller",
    "archive",
)


@dataclass(frozen=True)
class Hostile:
    id: str  # kebab-case, unique
    klass: str  # one of KLASSES
    what: str  # one sentence: what the attack is
    build: Callable[[Path], Path]  # writes the input under the folder, returns the path
    stdin: bool = False  # the returned file's bytes go on stdin, which then stays open
    option: str = ""  # the CLI option the built path goes to ("--patterns", "--policy")
    command: str = "analyze"  # analyze | decide | batch | watch
    out: str = "out/verdicts.csv"  # batch: the --out path, relative to the folder
    victim: str = ""  # batch: a file under the folder that must stay unchanged


# --- background writers (growing, rotating, swapping files) ----------------------------

_BACKGROUND: list[tuple[threading.Event, threading.Thread]] = []
_RUN_FOR = 60.0  # seconds a background writer runs at most


def _background(body: Callable[[threading.Event], None]) -> None:
    """Run `body(stop)` in a daemon thread until `stop` is set or it returns; OSError
    (the folder removed under it) ends it quietly."""

    def run() -> None:
        try:
            body(stop)
        except (OSError, ValueError):
            return

    stop = threading.Event()
    thread = threading.Thread(target=run, daemon=True, name="hostile-writer")
    _BACKGROUND.append((stop, thread))
    thread.start()


def _ticks(stop: threading.Event, every: float) -> Iterable[int]:
    """0, 1, 2, ... every `every` seconds, for at most _RUN_FOR seconds."""
    end = time.monotonic() + _RUN_FOR
    n = 0
    while time.monotonic() < end and not stop.wait(every):
        yield n
        n += 1


def stop_background(timeout: float = 5.0) -> None:
    """Stop every background writer the builders started, and wait for them."""
    while _BACKGROUND:
        ev, thread = _BACKGROUND.pop()
        ev.set()
        thread.join(timeout)


# --- trees: disk usage and removal without recursion or path-length limits -------------


def _tree(root: Path, remove: bool) -> tuple[int, int]:
    """(bytes on disk, apparent bytes) of everything under `root`, not following links;
    with `remove`, delete it bottom-up through directory descriptors, so depth and path
    length do not matter."""
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        return 0, 0
    if not stat.S_ISDIR(st.st_mode):
        if remove:
            os.unlink(root)
        return st.st_blocks * 512, st.st_size
    disk, size = st.st_blocks * 512, st.st_size
    seen: set[tuple[int, int]] = set()  # hard links count once
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    top = os.open(root, flags)
    stack: list[tuple[int, bytes, list[str]]] = [(top, b"", os.listdir(top))]
    while stack:
        fd, _, names = stack[-1]
        if names:
            name = os.fsencode(names.pop())
            st = os.lstat(name, dir_fd=fd)
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                disk += st.st_blocks * 512
                size += st.st_size
            if stat.S_ISDIR(st.st_mode):
                if remove:
                    os.chmod(name, 0o700, dir_fd=fd, follow_symlinks=False)
                child = os.open(name, flags, dir_fd=fd)
                stack.append((child, name, os.listdir(child)))
            elif remove:
                os.unlink(name, dir_fd=fd)
            continue
        _, name, _ = stack.pop()
        os.close(fd)
        if remove and stack:
            os.rmdir(name, dir_fd=stack[-1][0])
    if remove:
        os.rmdir(root)
    return disk, size


def disk_usage(root: Path) -> tuple[int, int]:
    """(bytes on disk, apparent bytes) under `root`."""
    return _tree(root, remove=False)


def remove_tree(root: Path) -> None:
    """Remove `root` and everything under it (deep trees, odd names, links, FIFOs)."""
    _tree(root, remove=True)


# --- checksums -----------------------------------------------------------------------


def _gf2_times(mat: list[int], vec: int) -> int:
    s, i = 0, 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def _gf2_square(mat: list[int]) -> list[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """zlib's crc32_combine: the CRC-32 of A+B from those of A and B and B's length."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def crc32_repeat(unit: bytes, times: int) -> int:
    """The CRC-32 of `unit * times` without building it."""
    result, cur, cur_len = 0, zlib.crc32(unit), len(unit)
    while times:
        if times & 1:
            result = crc32_combine(result, cur, cur_len)
        cur = crc32_combine(cur, cur, cur_len)
        cur_len *= 2
        times >>= 1
    return result


# --- deflate / gzip from repeatable pieces -----------------------------------------------

MiB = 1 << 20
GiB = 1 << 30
_ZEROS_MIB = bytes(MiB)
# A log line padded with spaces to 4 KiB: text to every sniffer, and it compresses like
# zeros in every codec (runs of one byte), so text bombs are as small as zero bombs.
_PAD_LINE = b"[2026-11-29 10:00:00,000] INFO iteration 1 | lm loss: 2.000 |".ljust(4095) + b"\n"
_TEXT_MIB = _PAD_LINE * 256


@lru_cache(maxsize=64)
def _piece(data: bytes) -> bytes:
    """Raw deflate of `data` ending in a full flush: byte-aligned, referring to nothing
    before it, so the same bytes can be written any number of times in a stream."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)


def _final_block() -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.flush(zlib.Z_FINISH)


def _deflate_repeat(unit: bytes, times: int, tail: bytes = b"") -> tuple[bytes, int, int]:
    """(raw deflate of unit*times + tail, its CRC-32, its length)."""
    data = _piece(unit) * times + _piece(tail) + _final_block()
    crc = crc32_combine(crc32_repeat(unit, times), zlib.crc32(tail), len(tail))
    return data, crc, len(unit) * times + len(tail)


class _Gzip:
    """One gzip member written piece by piece; `repeat` costs one compression."""

    def __init__(
        self, f: BinaryIO, header: bytes = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    ) -> None:
        self.f, self.crc, self.size = f, 0, 0
        f.write(header)

    def write(self, data: bytes) -> None:
        if data:
            self.f.write(_piece(data))
            self.crc = zlib.crc32(data, self.crc)
            self.size += len(data)

    def repeat(self, unit: bytes, times: int) -> None:
        p = _piece(unit)
        for _ in range(times):
            self.f.write(p)
        self.crc = crc32_combine(self.crc, crc32_repeat(unit, times), len(unit) * times)
        self.size += len(unit) * times

    def close(self) -> None:
        self.f.write(_final_block())
        self.f.write(struct.pack("<II", self.crc, self.size & 0xFFFFFFFF))


def _gzip_file(path: Path, parts: Sequence[tuple[bytes, int]]) -> Path:
    """A gzip file of the concatenation of unit*times for each (unit, times)."""
    with open(path, "wb") as f:
        gz = _Gzip(f)
        for unit, times in parts:
            if times == 1:
                gz.write(unit)
            else:
                gz.repeat(unit, times)
        gz.close()
    return path


# --- bzip2: independent blocks spliced at bit level ----------------------------------------

_BZ_BLOCK_MAGIC = 0x314159265359
_BZ_EOS_MAGIC = 0x177245385090


@dataclass(frozen=True)
class _BzBlock:
    bits: int
    nbits: int
    crc: int


@lru_cache(maxsize=16)
def _bz2_block(data: bytes) -> _BzBlock:
    """The one bzip2 block (level 9) holding `data`, which must fit in one block."""
    s = bz2.compress(data, 9)
    n, total = int.from_bytes(s, "big"), len(s) * 8
    for pad in range(8):
        eos_at = total - pad - 80
        if (n >> (total - eos_at - 48)) & ((1 << 48) - 1) == _BZ_EOS_MAGIC:
            break
    else:
        raise ValueError("no bzip2 end-of-stream marker")
    nbits = eos_at - 32
    bits = (n >> (total - eos_at)) & ((1 << nbits) - 1)
    if bits >> (nbits - 48) != _BZ_BLOCK_MAGIC:
        raise ValueError("not a single bzip2 block")
    block = _BzBlock(bits, nbits, (bits >> (nbits - 80)) & 0xFFFFFFFF)
    if len(bz2.decompress(_bz2_stream([(block, 2)]))) != 2 * len(data):
        raise ValueError("data does not fit in one bzip2 block")
    return block


def _bz2_stream(parts: Sequence[tuple[_BzBlock, int]]) -> bytes:
    """One bzip2 stream of the given blocks, each repeated; the combined CRC is computed."""
    acc, nbits, combined = int.from_bytes(b"BZh9", "big"), 32, 0
    for block, times in parts:
        rep, rbits = 0, 0
        for _ in range(times):
            rep = (rep << block.nbits) | block.bits
            rbits += block.nbits
            combined = (((combined << 1) | (combined >> 31)) & 0xFFFFFFFF) ^ block.crc
        acc = (acc << rbits) | rep
        nbits += rbits
    acc = (((acc << 48) | _BZ_EOS_MAGIC) << 32) | combined
    nbits += 80
    pad = (-nbits) % 8
    return (acc << pad).to_bytes((nbits + pad) // 8, "big")


_BZ_ZEROS = 40 * MiB  # zeros per bzip2 block (level 9 holds about 45 MB of one byte)
_BZ_TEXT = 20 * MiB  # padded text lines per block


def _bz2_zeros(total: int) -> bytes:
    """A single bzip2 stream of about `total` zero bytes (a multiple of 40 MiB)."""
    return _bz2_stream([(_bz2_block(bytes(_BZ_ZEROS)), max(1, total // _BZ_ZEROS))])


# --- LZMA: the range coder's output turns periodic on zeros -------------------------------

_LZMA1 = {
    "id": lzma.FILTER_LZMA1,
    "dict_size": 1 << 18,
    "lc": 3,
    "lp": 0,
    "pb": 2,
    "mode": lzma.MODE_FAST,
    "nice_len": 273,
    "mf": lzma.MF_HC4,
    "depth": 4,
}
_LZMA1_PROPS = bytes([(2 * 5 + 0) * 9 + 3]) + struct.pack("<I", 1 << 18)  # pb=2 lp=0 lc=3


def _lzma_decoded(data: bytes) -> int:
    d = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[_LZMA1])
    n = 0
    while True:
        out = d.decompress(data, max_length=32 * MiB)
        data = b""
        n += len(out)
        if d.eof or not out:
            return n


@lru_cache(maxsize=1)
def _lzma_cycle() -> tuple[bytes, bytes, bytes, int, int]:
    """(head, period, tail, zeros of head+tail, zeros per period) of raw LZMA1 of zeros:
    head + period * k + tail decodes to base + k * per zero bytes."""
    base = 16 * MiB
    c = lzma.LZMACompressor(lzma.FORMAT_RAW, filters=[_LZMA1])
    out = c.compress(bytes(base)) + c.flush()
    mid = len(out) // 2
    for p in range(1, 4096):
        if out[mid : mid + p] == out[mid + p : mid + 2 * p] == out[mid + 2 * p : mid + 3 * p]:
            break
    else:
        raise ValueError("no period in LZMA output")
    head, period, tail = out[:mid], out[mid : mid + p], out[mid:]
    per = _lzma_decoded(head + period + tail) - base
    if per <= 0:
        raise ValueError("LZMA period does not decode")
    return head, period, tail, base, per


def _lzma_zeros(total: int) -> tuple[bytes, int]:
    """(raw LZMA1 with an end marker, decoded size) of about `total` zero bytes."""
    head, period, tail, base, per = _lzma_cycle()
    k = max(0, (total - base) // per)
    return head + period * k + tail, base + k * per


@lru_cache(maxsize=4)
def _xz_unit(data: bytes) -> bytes:
    return lzma.compress(data, preset=0)


def _xz_file(path: Path, unit: bytes, times: int, tail: bytes = b"") -> Path:
    """Concatenated .xz streams (xz and Python's LZMAFile read them as one)."""
    with open(path, "wb") as f:
        s = _xz_unit(unit)
        for _ in range(times):
            f.write(s)
        if tail:
            f.write(lzma.compress(tail, preset=0))
    return path


# --- zstd: run-length blocks, and concatenated frames ---------------------------------------

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ZSTD_BLOCK = 128 << 10


def _zstd_rle(total: int, byte: int = 0) -> bytes:
    """One zstd frame of `total` copies of `byte` in run-length blocks (4 bytes each)."""
    n = max(1, total // _ZSTD_BLOCK)
    mid = ((_ZSTD_BLOCK << 3) | (1 << 1)).to_bytes(3, "little") + bytes([byte])
    last = ((_ZSTD_BLOCK << 3) | (1 << 1) | 1).to_bytes(3, "little") + bytes([byte])
    return _ZSTD_MAGIC + b"\x00\x38" + mid * (n - 1) + last  # window 128 KiB, no size


def _zstd(data: bytes) -> bytes:
    import zstandard

    return bytes(zstandard.ZstdCompressor(level=3).compress(data))


# --- tar headers by hand ------------------------------------------------------------------


def _size_field(size: int) -> bytes:
    if 0 <= size < 8**11:
        return b"%011o\0" % size
    if size < 0:  # base-256, negative: two's complement with a 0xff lead byte
        return b"\xff" + (size % 256**11).to_bytes(11, "big")
    return b"\x80" + size.to_bytes(11, "big")  # base-256 (GNU), up to 2**88 - 1


def tar_header(
    name: bytes,
    size: int = 0,
    typeflag: bytes = b"0",
    linkname: bytes = b"",
    *,
    size_field: bytes | None = None,
    bad_checksum: bool = False,
    extra: dict[int, bytes] | None = None,
) -> bytes:
    """One 512-byte ustar header (name up to 100 bytes), checksum computed."""
    h = bytearray(512)
    h[0:100] = name[:100].ljust(100, b"\0")
    h[100:108] = b"0000644\0"
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = size_field if size_field is not None else _size_field(size)
    h[136:148] = b"%011o\0" % 1796032800  # 2026-11-29
    h[148:156] = b" " * 8
    h[156:157] = typeflag
    h[157:257] = linkname[:100].ljust(100, b"\0")
    h[257:265] = b"ustar\x0000"
    h[265:269] = b"root"
    h[297:301] = b"root"
    for at, value in (extra or {}).items():
        h[at : at + len(value)] = value
    chk = sum(h) + (1 if bad_checksum else 0)
    h[148:156] = b"%06o\0 " % chk
    return bytes(h)


def _pad512(n: int) -> bytes:
    return bytes((-n) % 512)


def tar_member(name: bytes, data: bytes, typeflag: bytes = b"0") -> bytes:
    return tar_header(name, len(data), typeflag) + data + _pad512(len(data))


def pax_member(records: bytes, typeflag: bytes = b"x") -> bytes:
    return tar_member(b"././@PaxHeader", records, typeflag)


def pax_record(key: bytes, value: bytes) -> bytes:
    """One `%d key=value\\n` pax record with its own length counted."""
    body = b" " + key + b"=" + value + b"\n"
    n = len(body) + 1
    while len(str(n)) + len(body) != n:
        n += 1
    return str(n).encode() + body


_TAR_END = bytes(1024)


def _rank_log(error: bytes, *, steps: int = 20, before: bytes = b"", after: bytes = b"") -> bytes:
    """A small rank log: timed steps, a traceback ending in `error`."""
    lines = [
        b"[2026-11-29 10:00:%02d,000] INFO iteration %4d/ 1000 | lm loss: 2.%03d | grad norm: 0.5 |"
        % (i % 60, i + 1, i)
        for i in range(steps)
    ]
    lines += [
        before,
        b"Traceback (most recent call last):",
        b'  File "/workspace/train.py", line 412, in <module>',
        b"    loss.backward()",
        error,
        after,
    ]
    return b"\n".join(x for x in lines if x) + b"\n"


_LOG = _rank_log(_OOM_B)


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _fs(d: Path, name: bytes) -> bytes:
    """The bytes path of `name` under `d` (names that are not UTF-8)."""
    return os.fsencode(d) + b"/" + name


def _write_bytes_name(d: Path, name: bytes, data: bytes) -> Path:
    fd = os.open(_fs(d, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return Path(os.fsdecode(_fs(d, name)))


def _outside(d: Path) -> Path:
    """A folder beside the input holding a log with LEAK_MARKER and a root cause: any
    output quoting it read something it was never given."""
    out = d / "outside"
    _write(out / "secret.log", _rank_log((LEAK_MARKER + " " + NCCL).encode()))
    return out


# --- zip by hand ---------------------------------------------------------------------------

_DOS_TIME, _DOS_DATE = 10 << 11, ((2026 - 1980) << 9) | (11 << 5) | 29


@dataclass(frozen=True)
class ZipEntry:
    name: bytes
    data: bytes = b""  # the bytes stored (already compressed)
    method: int = 0
    crc: int | None = None  # None: CRC-32 of data (right for stored members)
    usize: int | None = None  # declared uncompressed size; None: len(data)
    csize: int | None = None  # declared compressed size; None: len(data)
    flags: int = 0
    version: int = 20
    offset: int | None = None  # declared local header offset; None: where it was written


def write_zip(path: Path, entries: Sequence[ZipEntry], cd_only: Sequence[ZipEntry] = ()) -> Path:
    """A zip of `entries` (local header + data each) and a central directory listing
    them and `cd_only` (entries with no local header of their own: give `offset`).
    Zip64 fields are written wherever a declared value needs them."""
    with open(path, "wb") as f:
        cd: list[tuple[ZipEntry, int]] = []
        for e in entries:
            at = f.tell()
            usize = len(e.data) if e.usize is None else e.usize
            csize = len(e.data) if e.csize is None else e.csize
            crc = zlib.crc32(e.data) if e.crc is None else e.crc
            big = usize >= 0xFFFFFFFF or csize >= 0xFFFFFFFF
            extra = struct.pack("<HHQQ", 1, 16, usize, csize) if big else b""
            f.write(
                struct.pack(
                    "<IHHHHHIIIHH",
                    0x04034B50,
                    45 if big else e.version,
                    e.flags,
                    e.method,
                    _DOS_TIME,
                    _DOS_DATE,
                    crc,
                    0xFFFFFFFF if big else csize,
                    0xFFFFFFFF if big else usize,
                    len(e.name),
                    len(extra),
                )
            )
            f.write(e.name + extra)
            f.write(e.data)
            cd.append((e, at if e.offset is None else e.offset))
        cd += [(e, e.offset or 0) for e in cd_only]
        start = f.tell()
        for e, at in cd:
            usize = len(e.data) if e.usize is None else e.usize
            csize = len(e.data) if e.csize is None else e.csize
            crc = zlib.crc32(e.data) if e.crc is None else e.crc
            z64 = [v for v in (usize, csize, at) if v >= 0xFFFFFFFF]
            extra = (
                struct.pack("<HH", 1, 8 * len(z64)) + b"".join(struct.pack("<Q", v) for v in z64)
                if z64
                else b""
            )
            f.write(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    0x031E,
                    45 if z64 else e.version,
                    e.flags,
                    e.method,
                    _DOS_TIME,
                    _DOS_DATE,
                    crc,
                    min(csize, 0xFFFFFFFF),
                    min(usize, 0xFFFFFFFF),
                    len(e.name),
                    len(extra),
                    0,
                    0,
                    0,
                    0o100644 << 16,
                    min(at, 0xFFFFFFFF),
                )
            )
            f.write(e.name + extra)
        _zip_end(f, len(cd), start, f.tell() - start)
    return path


def _zip_end(f: BinaryIO, count: int, start: int, size: int) -> None:
    if count >= 0xFFFF or start >= 0xFFFFFFFF:
        at = f.tell()
        f.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, size, start))
        f.write(struct.pack("<IIQI", 0x07064B50, 0, at, 1))
    f.write(
        struct.pack(
            "<IHHHHIIH",
            0x06054B50,
            0,
            0,
            min(count, 0xFFFF),
            min(count, 0xFFFF),
            min(size, 0xFFFFFFFF),
            min(start, 0xFFFFFFFF),
            0,
        )
    )


def _stored(name: bytes, data: bytes, **kw: int) -> ZipEntry:
    return ZipEntry(name, data, **kw)


def _deflated(name: bytes, data: bytes) -> ZipEntry:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return ZipEntry(name, c.compress(data) + c.flush(), 8, zlib.crc32(data), len(data))


# ==========================================================================================
# deadline
# ==========================================================================================


def _b_redact_spaces(d: Path) -> Path:
    """~300 KB: lines of 50,000 leading spaces, then secret keys with and without values."""
    pad = b" " * 50_000
    lines = [
        pad + b"password=" + PASSWORD.encode() + b" token: " + HF_TOKEN.encode() + b" " + _OOM_B,
        pad + b"password" + b" " * 20_000 + b"=" + b" " * 20_000 + b"; " + _NCCL_B,
        pad + b"token:" * 5_000 + b" " + _NCCL_B,
        pad + b"secret= api_key: access_key= private_key: credential= _ak= _sk= " + _OOM_B,
        pad + b"Authorization: Bearer" + b" " * 30_000 + b"x " + _NCCL_B,
        pad + b"password " * 3_000 + _OOM_B,
    ]
    return _write(d / "rank_0.log", _rank_log(b"\n".join(lines)))


def _b_redact_triggers(d: Path) -> Path:
    """20,000 distinct error lines, each holding a trigger of every redaction rule."""
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = []
    for _ in range(20_000):
        w = "".join(rng.choice(letters) for _ in range(12))
        out.append(
            f"RuntimeError: NCCL error {w}: password= token: secret= api_key= access_key= "
            f"private_key= credential= OBS_AK= OBS_SK= Bearer Basic Token https://u:{w}@h sk- "
            f"hf_ ghp_ github_pat_ glpat- xoxb- AKIA -----BEGIN RSA PRIVATE KEY----- {w}"
        )
    return _write(d / "rank_0.log", ("\n".join(out) + "\n").encode())


def _gzip_header(flags: int) -> bytes:
    return b"\x1f\x8b\x08" + bytes([flags]) + b"\x00\x00\x00\x00\x00\x03"


def _endless_gzip_field(d: Path, flag: int, fill: bytes) -> Path:
    """A gzip header with a zero-terminated field (`flag`) and 32 MiB that never end it."""
    p = d / "rank_0.log.gz"
    with open(p, "wb") as f:
        f.write(_gzip_header(flag))
        for _ in range(32):
            f.write(fill * MiB)
    return p


def _b_gzip_fname(d: Path) -> Path:
    """A gzip header with FNAME set and 32 MiB of non-zero bytes that never end it."""
    return _endless_gzip_field(d, 0x08, b"A")


def _b_gzip_fcomment(d: Path) -> Path:
    """A gzip header with FCOMMENT set and 32 MiB of comment without its NUL."""
    return _endless_gzip_field(d, 0x10, b"C")


def _b_gzip_fextra(d: Path) -> Path:
    """500 gzip members, each with a 64 KiB FEXTRA and an empty body, then the log."""
    p = d / "rank_0.log.gz"
    member = (
        _gzip_header(0x04)
        + struct.pack("<H", 65535)
        + b"AP"
        + struct.pack("<H", 65531)
        + b"E" * 65531
        + b"\x03\x00"
        + struct.pack("<II", 0, 0)
    )
    with open(p, "wb") as f:
        for _ in range(500):
            f.write(member)
        f.write(zlib_gzip(_LOG))
    return p


def zlib_gzip(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def _b_pax_digits(d: Path) -> Path:
    """A pax header whose payload is one run of 1,000,000 digits (CVE-2024-6232)."""
    p = d / "job.tar"
    p.write_bytes(pax_member(b"9" * 1_000_000) + tar_member(b"rank_0.log", _LOG) + _TAR_END)
    return p


def _b_pax_digit_runs(d: Path) -> Path:
    """A ~1 MB pax header of 500 records-like runs of 2,000 digits and a space."""
    p = d / "job.tar"
    p.write_bytes(
        pax_member((b"9" * 2000 + b" ") * 500) + tar_member(b"rank_0.log", _LOG) + _TAR_END
    )
    return p


def _tar_bz2_around(p: Path, head: bytes, fill: bytes, fill_times: int, tail: bytes) -> Path:
    """One bzip2 stream: head, then `fill` repeated, then tail (each a bzip2 block)."""
    parts = [(_bz2_block(head), 1), (_bz2_block(fill), fill_times), (_bz2_block(tail), 1)]
    p.write_bytes(_bz2_stream(parts))
    return p


def _b_tar_bz2_unknown_type(d: Path) -> Path:
    """A .tar.bz2 whose first member has an unknown typeflag and 8 GiB of zeros a
    reader must decompress to skip; the log comes after it."""
    n = 205
    size = n * _BZ_ZEROS
    head = tar_header(b"volume.dat", size, b"Z")
    return _tar_bz2_around(
        d / "job.tar.bz2", head, bytes(_BZ_ZEROS), n, tar_member(b"rank_0.log", _LOG) + _TAR_END
    )


def _b_tar_bz2_png(d: Path) -> Path:
    """A .tar.bz2 whose first member is an 8 GiB `.png` (PNG magic, then zeros): skipped
    as binary after its head, its data must still be decompressed to reach the log."""
    n = 205
    magic = b"\x89PNG\r\n\x1a\n"
    size = len(magic) + n * _BZ_ZEROS
    head = tar_header(b"screenshots/loss.png", size) + magic
    tail = _pad512(size) + tar_member(b"rank_0.log", _LOG) + _TAR_END
    return _tar_bz2_around(d / "job.tar.bz2", head, bytes(_BZ_ZEROS), n, tail)


def _b_tar_bz2_chardev(d: Path) -> Path:
    """A .tar.bz2 with a character-device member whose size field says 8 GiB, followed by
    8 GiB of zeros and the log (a reader that honours the size skips 8 GiB)."""
    n = 205
    head = tar_header(b"dev/nvidia0", n * _BZ_ZEROS, b"3")
    return _tar_bz2_around(
        d / "job.tar.bz2", head, bytes(_BZ_ZEROS), n, tar_member(b"rank_0.log", _LOG) + _TAR_END
    )


def _b_tar_million_symlinks(d: Path) -> Path:
    """A .tar.gz of 1,001,472 symbolic-link members (names repeat every 2,048)."""
    chunk = b"".join(
        tar_header(b"links/l%07d.log" % i, 0, b"2", b"/etc/passwd") for i in range(2048)
    )
    return _gzip_file(
        d / "job.tar.gz", [(chunk, 489), (tar_member(b"rank_0.log", _LOG) + _TAR_END, 1)]
    )


def _b_tar_gnu_longname(d: Path) -> Path:
    """A .tar.gz whose GNU long-name (`L`) member is 256 MiB: the member name a reader
    must hold whole."""
    size = 256 * MiB + 1
    return _gzip_file(
        d / "job.tar.gz",
        [
            (tar_header(b"././@LongLink", size, b"L"), 1),
            (b"a" * MiB, 256),
            (b"\0" + _pad512(size), 1),
            (tar_member(b"rank_0.log", _LOG) + _TAR_END, 1),
        ],
    )


def _b_zip_million(d: Path) -> Path:
    """A zip of 1,000,000 empty stored members (98 MB of headers, zip64 end record)."""
    p = d / "job.zip"
    n = 1_000_000
    names = [b"r/%07d.log" % i for i in range(n)]
    lh = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, _DOS_TIME, _DOS_DATE, 0, 0, 0, 13, 0)
    cdh = struct.pack(
        "<IHHHHHHIIIHHHHHI",
        0x02014B50,
        0x031E,
        20,
        0,
        0,
        _DOS_TIME,
        _DOS_DATE,
        0,
        0,
        0,
        13,
        0,
        0,
        0,
        0,
        0o100644 << 16,
    )
    step = len(lh) + 13
    with open(p, "wb") as f:
        f.write(b"".join([lh + nm for nm in names]))
        start = f.tell()
        f.write(b"".join([cdh + struct.pack("<I", i * step) + nm for i, nm in enumerate(names)]))
        _zip_end(f, n, start, f.tell() - start)
    return p


def _b_fifo(d: Path) -> Path:
    """A FIFO named directly as the input (nobody ever writes to it)."""
    p = d / "rank_0.log"
    os.mkfifo(p)
    return p


def _b_fifo_in_folder(d: Path) -> Path:
    """A folder holding a FIFO nobody writes to, beside a real log."""
    job = d / "job"
    _write(job / "rank_1.log", _LOG)
    os.mkfifo(job / "rank_0.log")
    return job


def _b_grow_lines(d: Path) -> Path:
    """A log that keeps growing: a daemon thread appends 100 step lines every 10 ms for 60 s."""
    p = _write(d / "rank_0.log", _rank_log(_OOM_B, steps=5000))

    def grow(stop: threading.Event) -> None:
        with open(p, "ab", buffering=0) as f:
            for n in _ticks(stop, 0.01):
                f.write(
                    b"".join(
                        b"[2026-11-29 10:05:00,000] INFO iteration %d/ 99999 | lm loss: 2.0 |\n"
                        % (n * 100 + i)
                        for i in range(100)
                    )
                )

    _background(grow)
    return p


def _b_grow_sparse(d: Path) -> Path:
    """A log whose size grows by 256 MiB of holes every 10 ms (a daemon thread, 60 s):
    a reader that reads to the current end never gets there."""
    p = _write(d / "rank_0.log", _rank_log(_OOM_B, steps=100))

    def grow(stop: threading.Event) -> None:
        size = p.stat().st_size
        for _ in _ticks(stop, 0.01):
            size += 256 * MiB
            os.truncate(p, size)

    _background(grow)
    return p


def _b_sparse_text_head(d: Path) -> Path:
    """1 TiB sparse: 8 KiB of log lines, then holes to the end (no newline, no cause)."""
    p = _write(d / "rank_0.log", _rank_log(b"", steps=120))
    os.truncate(p, 1 << 40)
    return p


def _b_stdin_open(d: Path) -> Path:
    """Standard input: a log whose last line has no newline, and the pipe stays open."""
    return _write(d / "stdin.bin", _LOG + b"[2026-11-29 10:01:00,000] INFO iteration 21")


def _b_stdin_gzip_bomb(d: Path) -> Path:
    """Standard input: gzip of 20 GiB of padded log lines (stdin's expansion limit is
    64 GiB), then the pipe stays open."""
    return _gzip_file(d / "stdin.gz", [(_TEXT_MIB, 20 * 1024), (_LOG, 1)])


def _b_link_dev_zero(d: Path) -> Path:
    """A symbolic link to /dev/zero named as the input (links given are followed)."""
    p = d / "rank_0.log"
    os.symlink("/dev/zero", p)
    return p


# ==========================================================================================
# memory
# ==========================================================================================


def _b_zip_bzip2(d: Path) -> Path:
    """A 3.5 KB zip whose bzip2 member (method 12) expands to 8 GiB of zeros."""
    data = _bz2_zeros(8 * GiB)
    size = (8 * GiB // _BZ_ZEROS) * _BZ_ZEROS
    e = ZipEntry(b"rank_0.log", data, 12, crc32_repeat(_ZEROS_MIB, size // MiB), size, version=46)
    return write_zip(d / "job.zip", [e])


def _b_zip_bzip2_text(d: Path) -> Path:
    """A small zip whose bzip2 member expands to 4 GiB of padded log lines."""
    unit = _TEXT_MIB * (_BZ_TEXT // MiB)
    n = 4 * GiB // _BZ_TEXT
    data = _bz2_stream([(_bz2_block(unit), n)])
    e = ZipEntry(b"rank_0.log", data, 12, crc32_repeat(unit, n), n * len(unit), version=46)
    return write_zip(d / "job.zip", [e])


def _b_zip_lzma(d: Path) -> Path:
    """A ~300 KB zip whose LZMA member (method 14) expands to 2 GiB of zeros."""
    raw, size = _lzma_zeros(2 * GiB)
    data = b"\x09\x04" + struct.pack("<H", 5) + _LZMA1_PROPS + raw
    e = ZipEntry(b"rank_0.log", data, 14, _crc_zeros(size), size, flags=0x02, version=63)
    return write_zip(d / "job.zip", [e])


def _crc_zeros(n: int) -> int:
    return crc32_combine(crc32_repeat(_ZEROS_MIB, n // MiB), zlib.crc32(bytes(n % MiB)), n % MiB)


def _b_zip_size_lie(d: Path) -> Path:
    """A zip whose deflate member says 10 bytes uncompressed and inflates to 1 GiB of
    padded log lines."""
    data, crc, _ = _deflate_repeat(_TEXT_MIB, 1024, _LOG)
    return write_zip(d / "job.zip", [ZipEntry(b"rank_0.log", data, 8, crc, 10)])


def _b_zip_overlap(d: Path) -> Path:
    """A 1 MB zip whose central directory lists 1,000 entries that all point at one
    local header of a 1 GiB deflate bomb (CVE-2024-0450 shape): 1 TiB to read."""
    data, crc, size = _deflate_repeat(_TEXT_MIB, 1024, _LOG)
    first = ZipEntry(b"rank_0.log", data, 8, crc, size)
    more = [ZipEntry(b"rank_0.log", data, 8, crc, size, offset=0)] * 999
    return write_zip(d / "job.zip", [first], more)


def _b_tar_gz_5g_zeros(d: Path) -> Path:
    """A .tar.gz with a 5 GiB member of zeros, then the log."""
    size = 5 * GiB
    return _gzip_file(
        d / "job.tar.gz",
        [
            (tar_header(b"rank_0.log", size), 1),
            (_ZEROS_MIB, 5 * 1024),
            (tar_member(b"rank_1.log", _LOG) + _TAR_END, 1),
        ],
    )


def _b_tar_gz_5g_text(d: Path) -> Path:
    """A 5 MB .tar.gz with a 5 GiB member of padded log lines ending in the OOM."""
    size = 5 * GiB + len(_LOG)
    return _gzip_file(
        d / "job.tar.gz",
        [
            (tar_header(b"rank_0.log", size), 1),
            (_TEXT_MIB, 5 * 1024),
            (_LOG + _pad512(size) + _TAR_END, 1),
        ],
    )


def _b_gzip_20g(d: Path) -> Path:
    """20 concatenated gzip members of 1 GiB of zeros each (21 MB)."""
    p = d / "rank_0.log.gz"
    with open(p, "wb") as f:
        for _ in range(20):
            gz = _Gzip(f)
            gz.repeat(_ZEROS_MIB, 1024)
            gz.close()
    return p


def _b_gzip_20g_text(d: Path) -> Path:
    """20 concatenated gzip members of 1 GiB of padded log lines, the OOM at the end."""
    p = d / "rank_0.log.gz"
    with open(p, "wb") as f:
        for i in range(20):
            gz = _Gzip(f)
            gz.repeat(_TEXT_MIB, 1024)
            if i == 19:
                gz.write(_LOG)
            gz.close()
    return p


def _b_xz_zeros(d: Path) -> Path:
    """256 concatenated xz streams of 64 MiB of zeros each: 16 GiB in 2.4 MB."""
    return _xz_file(d / "rank_0.log.xz", bytes(64 * MiB), 256)


def _b_xz_text(d: Path) -> Path:
    """Concatenated xz streams of padded log lines: 16 GiB, the OOM at the end."""
    return _xz_file(d / "rank_0.log.xz", _TEXT_MIB * 64, 256, _LOG)


def _b_zstd_zeros(d: Path) -> Path:
    """A zstd frame of 100 GiB of zeros in run-length blocks (3.2 MB)."""
    return _write(d / "rank_0.log.zst", _zstd_rle(100 * GiB))


def _b_zstd_spaces(d: Path) -> Path:
    """A zstd file: a log head, 100 GiB of spaces in run-length blocks (text to a
    sniffer), then the OOM."""
    return _write(d / "rank_0.log.zst", _zstd(_LOG) + _zstd_rle(100 * GiB, 0x20) + _zstd(_LOG))


def _b_bz2_zeros(d: Path) -> Path:
    """A plain .bz2 of 8 GiB of zeros, one stream (7 KB)."""
    return _write(d / "rank_0.log.bz2", _bz2_zeros(8 * GiB))


def _b_nested(d: Path) -> Path:
    """Ten levels of .tar.gz, each holding the level below twice (1,024 logs at the bottom)."""
    data = zlib_gzip(tar_member(b"rank_0.log", _LOG) + _TAR_END)
    for level in range(10):
        inner = tar_member(b"level%d-a.tar.gz" % level, data) + tar_member(
            b"level%d-b.tar.gz" % level, data
        )
        data = zlib_gzip(inner + _TAR_END)
    return _write(d / "job.tar.gz", data)


def _b_long_line_gz(d: Path) -> Path:
    """A .gz of one 200 MiB line without a newline, the OOM at its end."""
    return _gzip_file(d / "rank_0.log.gz", [(_LOG, 1), (b"x" * MiB, 200), (_OOM_B, 1)])


def _b_pax_256m(d: Path) -> Path:
    """A .tar.gz whose pax header is one 256 MiB `path=` record (read whole by tarfile)."""
    value_len = 256 * MiB
    body_len = len(b" path=") + value_len + 1
    n = body_len + 1
    while len(str(n)) + body_len != n:
        n += 1
    head = str(n).encode() + b" path="
    size = n
    return _gzip_file(
        d / "job.tar.gz",
        [
            (tar_header(b"././@PaxHeader", size, b"x") + head, 1),
            (b"p" * MiB, 256),
            (b"\n" + _pad512(size), 1),
            (tar_member(b"rank_0.log", _LOG) + _TAR_END, 1),
        ],
    )


def _b_distinct_templates(d: Path) -> Path:
    """A .gz of 500,000 distinct error lines (no two alike after masking numbers)."""
    raw = os.urandom(500_000 * 16)
    words = raw.translate(bytes(97 + (b % 26) for b in range(256)))
    lines = b"".join(
        b"RuntimeError: NCCL error: unhandled %s failure in %s\n"
        % (words[i : i + 8], words[i + 8 : i + 16])
        for i in range(0, len(words), 16)
    )
    return _write(d / "rank_0.log.gz", zlib_gzip(lines + _LOG))


def _b_tar_million_files(d: Path) -> Path:
    """A .tar.gz of 1,001,472 one-line log members (names repeat every 2,048)."""
    line = b"[2026-11-29 10:00:00,000] INFO ok\n"
    chunk = b"".join(tar_member(b"ranks/%07d.log" % i, line) for i in range(1024))
    return _gzip_file(
        d / "job.tar.gz", [(chunk, 978), (tar_member(b"rank_0.log", _LOG) + _TAR_END, 1)]
    )


# ==========================================================================================
# names
# ==========================================================================================

_OSC52 = b"\x1b]52;c;Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\x07"
_OSC8 = b"\x1b]8;;https://evil.example/login\x07"
_OSC0 = b"\x1b]0;ha-analyze: nothing failed\x07"
_FORGED_B = ("\n" + FORGED + "  (nothing to do)\n").encode()
_PRESIGNED = (
    "https://ml-logs.s3.us-east-1.amazonaws.com/job-1234/rank_0.log?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    f"&X-Amz-Credential={AWS_KEY_ID}%2F20261129%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261129T100000Z"
    f"&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={AMZ_SIGNATURE}"
).encode()


def _job_named(d: Path, *names: bytes) -> Path:
    job = d / "job"
    job.mkdir()
    for n in names:
        _write_bytes_name(job, n, _LOG)
    return job


def _b_name_forged(d: Path) -> Path:
    """A log file whose name holds a newline and a forged `verdict: none` report line."""
    return _job_named(d, b"rank_0.log" + _FORGED_B)


def _b_name_osc52(d: Path) -> Path:
    """A log file whose name holds an OSC 52 clipboard write."""
    return _job_named(d, _OSC52 + b"rank_0.log")


def _b_name_osc8(d: Path) -> Path:
    """A log file whose name is wrapped in an OSC 8 hyperlink."""
    link = b"\x1b]8;;https:%2F%2Fevil.example%2Flogin\x07"  # no `/` in a file name
    return _job_named(d, link + b"rank_0.log\x1b]8;;\x07")


def _b_name_osc0(d: Path) -> Path:
    """A log file, named directly, whose name sets the terminal title (OSC 0)."""
    return _write_bytes_name(d, _OSC0 + b"rank_0.log", _LOG)


def _b_name_presigned(d: Path) -> Path:
    """A log file named like the query of a presigned S3 URL (X-Amz-Credential,
    X-Amz-Signature)."""
    name = (
        f"rank_0.log?X-Amz-Credential={AWS_KEY_ID}%2F20261129%2Fus-east-1%2Fs3%2Faws4_request"
        f"&X-Amz-Signature={AMZ_SIGNATURE}"
    )
    return _job_named(d, name.encode())


def _b_name_presigned_tar(d: Path) -> Path:
    """A tar member whose name (pax `path`) is a presigned S3 URL."""
    pax = pax_member(pax_record(b"path", _PRESIGNED))
    return _write(d / "job.tar", pax + tar_member(b"placeholder", _LOG) + _TAR_END)


def _b_name_hf_token(d: Path) -> Path:
    """A log file and a zip member whose names hold a Hugging Face token."""
    job = _job_named(d, b"rank_0-" + HF_TOKEN.encode() + b".log")
    write_zip(job / "more.zip", [_stored(HF_TOKEN.encode() + b"/rank_1.log", _LOG)])
    return job


def _b_name_invalid_utf8(d: Path) -> Path:
    """Log files and a folder whose names are not UTF-8 (\\xff\\xfe, a cut sequence)."""
    job = _job_named(d, b"rank_0\xff\xfe.log", b"rank_1\xc3\x28.log")
    os.mkdir(_fs(job, b"node-\xe9"))
    _write_bytes_name(Path(os.fsdecode(_fs(job, b"node-\xe9"))), b"rank_2.log", _LOG)
    return job


def _b_name_invalid_utf8_arg(d: Path) -> Path:
    """A log file named directly whose name is not UTF-8."""
    return _write_bytes_name(d, b"rank_0-\x80\xff.log", _LOG)


def _b_name_tar_invalid_utf8(d: Path) -> Path:
    """A tar whose member names (ustar and pax) are not UTF-8."""
    pax = pax_member(
        pax_record(b"hdrcharset", b"BINARY") + pax_record(b"path", b"node-\xff/rank_1.log")
    )
    body = tar_member(b"rank_0-\xff\xfe.log", _LOG) + pax + tar_member(b"x", _LOG) + _TAR_END
    return _write(d / "job.tar", body)


def _b_name_zip_utf8_flag(d: Path) -> Path:
    """A zip member whose name is not UTF-8 though the UTF-8 flag (0x800) is set."""
    return write_zip(
        d / "job.zip",
        [_stored(b"rank_0-\xff\xfe.log", _LOG, flags=0x800), _stored(b"rank_1.log", _LOG)],
    )


def _b_name_zip_controls(d: Path) -> Path:
    """A zip member (UTF-8 flag) whose name holds OSC 52, a newline and a forged line."""
    name = _OSC52 + b"rank_0.log" + _FORGED_B
    return write_zip(d / "job.zip", [_stored(name, _LOG, flags=0x800)])


def _b_name_bidi(d: Path) -> Path:
    """Log files whose names hold bidi overrides (U+202E, U+2066) that reverse them on screen."""
    return _job_named(d, "rank_0\u202egol.exe".encode(), "\u2066rank_1\u2069\u202e.log".encode())


def _b_name_tar_pax_controls(d: Path) -> Path:
    """A tar member whose pax path holds a newline, CSI clear-screen and a forged line."""
    name = b"rank_0.log\x1b[2J\x1b[H" + _FORGED_B + b"\x1b[8m"
    return _write(
        d / "job.tar", pax_member(pax_record(b"path", name)) + tar_member(b"x", _LOG) + _TAR_END
    )


def _b_name_long(d: Path) -> Path:
    """A tar member with a 1 MiB pax path of repeated folder names."""
    name = b"deep/" * (MiB // 5) + b"rank_0.log"
    return _write(
        d / "job.tar", pax_member(pax_record(b"path", name)) + tar_member(b"x", _LOG) + _TAR_END
    )


# ==========================================================================================
# controls
# ==========================================================================================


def _controls(d: Path, error: bytes, context: bytes = b"") -> Path:
    return _write(d / "rank_0.log", _rank_log(error, before=context))


def _b_ctl_osc52(d: Path) -> Path:
    """The OOM line carries an OSC 52 clipboard write (BEL-terminated) and one ST-terminated."""
    st = _OSC52[:-1] + b"\x1b\\"
    return _controls(d, b"[rank0]: " + _OSC52 + _OOM_B + st)


def _b_ctl_osc8(d: Path) -> Path:
    """The NCCL error is an OSC 8 hyperlink to a phishing URL."""
    return _controls(d, b"\x1b]8;;https://evil.example/fix\x1b\\" + _NCCL_B + b"\x1b]8;;\x1b\\")


def _b_ctl_osc0(d: Path) -> Path:
    """The OOM line sets the window and icon titles (OSC 0, OSC 2)."""
    return _controls(d, _OSC0 + b"\x1b]2;all good\x07" + _OOM_B)


def _b_ctl_osc_open(d: Path) -> Path:
    """An OSC 52 that is never terminated, before the OOM (a terminal swallows the rest)."""
    return _controls(d, b"[rank0]: \x1b]52;c;" + b"QUFB" * 2000 + b" " + _OOM_B)


def _b_ctl_c1_csi(d: Path) -> Path:
    """8-bit C1 CSI (raw 0x9b and U+009B) clear-screen and cursor moves inside the OOM line."""
    return _controls(
        d, b"\x9b2J\x9b1;1H" + "\u009b2J\u009b1;1H".encode() + _OOM_B + "\u0090q\u009c".encode()
    )


def _b_ctl_backspace(d: Path) -> Path:
    """The NCCL error followed by backspaces that overwrite it on screen with `no error`."""
    return _controls(
        d, _NCCL_B + b"\b" * len(_NCCL_B) + b"INFO: training finished, no error".ljust(len(_NCCL_B))
    )


def _b_ctl_cr(d: Path) -> Path:
    """The NCCL error followed by a carriage return and a forged report line over it."""
    return _controls(d, _NCCL_B + b"\r" + FORGED.encode() + b" " * 200)


def _b_ctl_bidi(d: Path) -> Path:
    """Bidi overrides (U+202E, U+2067, U+200F) inside the NCCL error line."""
    return _controls(
        d,
        "RuntimeError: NCCL error \u202erorre on\u202c in: \u2067x\u2069\u200f".encode()
        + _NCCL_B[13:],
    )


def _b_ctl_nul(d: Path) -> Path:
    """NUL bytes in the middle of the OOM line."""
    return _controls(d, _OOM_B + b"\x00" * 64 + b" (GPU 0; 79.15 GiB total capacity)\x00tail")


def _b_ctl_csi_screen(d: Path) -> Path:
    """CSI erase-screen, cursor-home and conceal around the OOM, with a forged report."""
    return _controls(
        d, b"\x1b[2J\x1b[3J\x1b[H" + FORGED.encode() + b"\x1b[8m " + _OOM_B + b"\x1b[0m"
    )


def _b_ctl_dcs_apc(d: Path) -> Path:
    """DCS, APC, PM and SOS strings (terminal queries, kitty graphics) in the NCCL error."""
    return _controls(
        d,
        b"\x1bP+q544e\x1b\\\x1b_Gf=100;AAAA\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\"
        + _NCCL_B
        + b'\x1bP$q"p\x1b\\',
    )


def _b_ctl_separators(d: Path) -> Path:
    """Unicode line and paragraph separators and NEL (U+2028, U+2029, U+0085) that break
    the OOM line in chats and JavaScript, with a forged line after them."""
    return _controls(d, _OOM_B + "\u2028\u2029\u0085".encode() + FORGED.encode())


def _b_ctl_context(d: Path) -> Path:
    """Escapes in the traceback's context lines (frames, code) rather than in the evidence."""
    ctx = (
        b'  File "/workspace/'
        + _OSC52
        + b'train.py", line 10, in <module>\n    \x1b[2J\x1b]0;t\x07model()\x9b2J'
    )
    return _controls(d, _OOM_B, ctx)


def _b_ctl_vt_ff(d: Path) -> Path:
    """Vertical tabs, form feeds, BEL and DEL inside the NCCL error."""
    return _controls(d, _NCCL_B[:20] + b"\x0b\x0c\x07\x7f" + _NCCL_B[20:] + b"\x0b" * 50)


# ==========================================================================================
# walk
# ==========================================================================================


def _b_300k_files(d: Path) -> Path:
    """A folder of 300,000 empty files in 300 folders, and one log with the OOM."""
    job = d / "job"
    job.mkdir()
    flags = os.O_WRONLY | os.O_CREAT
    for i in range(300):
        sub = job / f"d{i:03d}"
        sub.mkdir()
        fd = os.open(sub, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for j in range(1000):
                os.close(os.open(f"f{j:04d}.log", flags, 0o644, dir_fd=fd))
        finally:
            os.close(fd)
    _write(job / "rank_0.log", _LOG)
    return job


def _nest(d: Path, names: Sequence[bytes], data: bytes) -> None:
    """Folders `names` nested under `d`, built through descriptors; `data` at the bottom."""
    flags = os.O_RDONLY | os.O_DIRECTORY
    fd = os.open(d, flags)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            nfd = os.open(name, flags, dir_fd=fd)
            os.close(fd)
            fd = nfd
        out = os.open(b"rank_0.log", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, data)
        os.close(out)
    finally:
        os.close(fd)


def _b_nested_1200(d: Path) -> Path:
    """A folder nested 1,200 levels deep; the log with the OOM at the bottom."""
    job = d / "job"
    job.mkdir()
    _nest(job, [b"d"] * 1200, _LOG)
    return job


def _b_path_max(d: Path) -> Path:
    """30 nested folders of 250-character names (paths beyond PATH_MAX); the log at the bottom."""
    job = d / "job"
    job.mkdir()
    _nest(job, [(b"%03d" % i) + b"n" * 247 for i in range(30)], _LOG)
    return job


def _b_symlink_loop(d: Path) -> Path:
    """Symbolic-link loops: a <-> b, a link to its own folder, one to the parent."""
    job = _job_named(d, b"rank_0.log")
    os.symlink("b", job / "a")
    os.symlink("a", job / "b")
    os.symlink(".", job / "self")
    os.symlink("..", job / "up")
    (job / "sub").mkdir()
    os.symlink("../sub", job / "sub" / "again")
    return job


def _b_symlinks_out(d: Path) -> Path:
    """Links out of the folder: to a log outside (LEAK_MARKER), /etc/passwd,
    /proc/self/environ, /dev/zero, and a folder link to the outside."""
    out = _outside(d)
    job = _job_named(d, b"rank_0.log")
    os.symlink(out / "secret.log", job / "rank_1.log")
    os.symlink("/etc/passwd", job / "passwd.log")
    os.symlink("/proc/self/environ", job / "environ.log")
    os.symlink("/dev/zero", job / "zero.log")
    os.symlink(out, job / "node-1")
    os.symlink("../outside/secret.log", job / "relative.log")
    return job


def _b_hardlinks(d: Path) -> Path:
    """10,000 hard links to one 1 MiB log (10 GiB to read, 1 MiB on disk)."""
    job = d / "job"
    src = _write(job / "rank_0.log", _rank_log(_OOM_B, steps=14_000))
    for i in range(1, 10_000):
        os.link(src, job / f"rank_{i}.log")
    return job


def _b_many_symlinks(d: Path) -> Path:
    """30,000 symbolic links, each to a missing target through a chain of `../`."""
    job = _job_named(d, b"rank_0.log")
    target = "../" * 16 + "missing"  # under 60 bytes: stored in the inode, no block
    fd = os.open(job, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i in range(30_000):
            os.symlink(target, f"l{i:06d}.log", dir_fd=fd)
    finally:
        os.close(fd)
    return job


def _b_special_files(d: Path) -> Path:
    """A folder with a FIFO, a listening unix socket and an unreadable-looking log."""
    job = _job_named(d, b"rank_0.log")
    os.mkfifo(job / "pipe.log")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(os.fspath(job / "sock.log"))
    s.close()
    locked = _write(job / "locked.log", _LOG)
    locked.chmod(0)
    return job


# ==========================================================================================
# tail
# ==========================================================================================


def _b_tqdm_redraw(d: Path) -> Path:
    """A 330 KB tqdm line redrawn 3,000 times with \\r whose last segment is the OOM, no
    final newline."""
    bar = b"".join(
        b"\rTraining:  %2d%%|%-50s| %d/3000 [01:%02d<02:00, 24.8it/s, loss=2.1]"
        % (i * 100 // 3000, b"#" * (i * 50 // 3000), i, i % 60)
        for i in range(3000)
    )
    return _write(
        d / "rank_0.log", _rank_log(b"", steps=10) + bar + b"\r[rank0]: " + OOM_OLD.encode()
    )


def _b_line_2mb_end(d: Path) -> Path:
    """One 2 MiB line without a newline whose end is the OOM."""
    return _write(d / "rank_0.log", _rank_log(b"", steps=10) + b"y" * (2 * MiB) + b" " + _OOM_B)


def _b_line_2mb_start(d: Path) -> Path:
    """One 2 MiB line that starts with the OOM and ends without a newline."""
    return _write(d / "rank_0.log", _rank_log(b"", steps=10) + _OOM_B + b" " + b"y" * (2 * MiB))


def _b_sparse_oom_end(d: Path) -> Path:
    """1 TiB sparse: a log head, holes, then the OOM traceback at the very end."""
    p = _write(d / "rank_0.log", _rank_log(b"", steps=120))
    tail = b"\n" + _LOG
    with open(p, "r+b") as f:
        f.seek((1 << 40) - len(tail))
        f.write(tail)
    return p


def _b_straddle(d: Path) -> Path:
    """100 GiB sparse whose last line (300 KB, starting with the OOM) begins before the
    last 256 KiB: the tail read first starts inside it."""
    p = _write(d / "rank_0.log", _rank_log(b"", steps=120))
    tail = b"\n[rank0]: " + _OOM_B + b" " + b"detail " * 45_000
    with open(p, "r+b") as f:
        f.seek(100 * GiB - len(tail))
        f.write(tail)
    return p


def _b_utf8_tail(d: Path) -> Path:
    """1.2 MB of Chinese CANN log lines (3-byte UTF-8) with the OOM at the end: the tail
    boundary falls inside a character."""
    line = "[ERROR] RUNTIME(12345,python):2026-11-29-10:00:00.000.000 警告：内存使用率较高，请检查显存占用情况\n".encode()
    body = line * (1_200_000 // len(line))
    return _write(d / "rank_0.log", b"x" + body + _LOG)


def _b_crlf(d: Path) -> Path:
    """1 MB of CRLF-terminated lines, the OOM last, with a CR-only line ending."""
    body = b"".join(
        b"[2026-11-29 10:00:00,000] INFO iteration %d | lm loss: 2.0 |\r\n" % i
        for i in range(16_000)
    )
    return _write(d / "rank_0.log", body + _LOG.replace(b"\n", b"\r\n") + b"\r")


def _b_oom_before_tail(d: Path) -> Path:
    """The OOM, then 300 KB of blank lines: it lies before the last 256 KiB."""
    return _write(d / "rank_0.log", _LOG + b"\n" * 300_000)


# ==========================================================================================
# watch
# ==========================================================================================


def _b_watch_sparse_many(d: Path) -> Path:
    """200 logs that each grow by 256 MiB of holes every 50 ms (daemon thread, 60 s):
    one poll that reads its cap from each lasts far longer than --timeout."""
    job = d / "job"
    paths = [_write(job / f"rank_{i}.log", _rank_log(b"", steps=5)) for i in range(200)]

    def grow(stop: threading.Event) -> None:
        for n in _ticks(stop, 0.05):
            for p in paths:
                os.truncate(p, (n + 1) * 256 * MiB)

    _background(grow)
    return job


def _b_watch_rotate(d: Path) -> Path:
    """A log replaced by a new file (new inode, os.replace) every 10 ms (daemon thread, 60 s)."""
    job = d / "job"
    p = _write(job / "rank_0.log", _rank_log(b"", steps=50))

    def rotate(stop: threading.Event) -> None:
        for n in _ticks(stop, 0.01):
            tmp = job / ".rank_0.log.tmp"
            tmp.write_bytes(_rank_log(_OOM_B if n % 7 == 0 else b"", steps=50 + n % 13))
            os.replace(tmp, p)

    _background(rotate)
    return job


def _b_watch_truncate(d: Path) -> Path:
    """A log truncated to zero and rewritten every 10 ms (daemon thread, 60 s)."""
    job = d / "job"
    p = _write(job / "rank_0.log", _rank_log(b"", steps=50))

    def churn(stop: threading.Event) -> None:
        with open(p, "r+b", buffering=0) as f:
            for n in _ticks(stop, 0.01):
                f.truncate(0)
                f.seek(0)
                f.write(_rank_log(_NCCL_B if n % 5 == 0 else b"", steps=1 + n % 200))

    _background(churn)
    return job


def _b_watch_new_files(d: Path) -> Path:
    """A folder where 50 new logs appear every 10 ms, up to 100,000 (daemon thread)."""
    job = d / "job"
    _write(job / "rank_0.log", _rank_log(b"", steps=5))

    def spawn(stop: threading.Event) -> None:
        for n in _ticks(stop, 0.01):
            if n * 50 >= 100_000:
                return
            for i in range(50):
                (job / f"w{n:05d}-{i:02d}.log").write_bytes(b"[2026-11-29 10:00:00,000] INFO ok\n")

    _background(spawn)
    return job


def _b_watch_symlink_swap(d: Path) -> Path:
    """A log that turns into a symbolic link to a log outside the folder (LEAK_MARKER)
    and back every 5 ms (daemon thread, 60 s): a check-then-open race."""
    out = _outside(d)
    job = d / "job"
    p = _write(job / "rank_0.log", _rank_log(b"", steps=50))
    real = _write(job / ".real", _rank_log(b"", steps=50))
    link = job / ".link"
    os.symlink(out / "secret.log", link)

    def swap(stop: threading.Event) -> None:
        for n in _ticks(stop, 0.005):
            if n % 2:
                os.link(real, job / ".hard")
                os.replace(job / ".hard", p)
            else:
                os.symlink(out / "secret.log", job / ".sym")
                os.replace(job / ".sym", p)

    _background(swap)
    return job


def _b_watch_fifo(d: Path) -> Path:
    """A watched folder holding a FIFO nobody writes to and a FIFO named like the log."""
    job = d / "job"
    _write(job / "rank_1.log", _rank_log(b"", steps=5))
    os.mkfifo(job / "rank_0.log")
    os.mkfifo(job / "rank_2.log.gz")
    return job


def _b_watch_long_line(d: Path) -> Path:
    """A log whose last line grows by 1 MiB without a newline every 10 ms (daemon, 60 s)."""
    job = d / "job"
    p = _write(job / "rank_0.log", _rank_log(b"", steps=5) + b"[rank0]: ")

    def grow(stop: threading.Event) -> None:
        with open(p, "ab", buffering=0) as f:
            for _ in _ticks(stop, 0.01):
                f.write(b"z" * MiB)

    _background(grow)
    return job


# ==========================================================================================
# patterns and policies
# ==========================================================================================

_SIG: dict[str, str] = {
    "id": "hostile-oom",
    "title": "Hostile test signature",
    "category": "device_oom",
    "role": "cause",
    "severity": "fatal",
    "blame": "job",
    "overlaps": "[cuda-out-of-memory]",
    "literals": "['CUDA out of memory']",
    "match": r"['CUDA out of memory\. Tried to allocate (?P<size>[\d.]+ [KMGT]?i?B)']",
    "message": "'tried to allocate {size}'",
    "description": "|\n      ### What it matches\n      x\n      ### Why it happens\n      x\n      ### What to do\n      x",
    "references": "['https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDACachingAllocator.cpp']",
    "examples": (
        "\n      - {log: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', "
        "match: true, captures: {size: '2.00 GiB'}}\n      - {log: 'no memory issue here', match: false}"
    ),
}


def signature_yaml(**fields: str) -> str:
    """One signature entry (valid unless `fields` say otherwise: raw YAML values)."""
    merged = {**_SIG, **fields}
    return "  - " + "\n    ".join(f"{k}: {v}" for k, v in merged.items() if v != "<drop>") + "\n"


def pattern_file(*entries: str, family: str = "hostile") -> str:
    return (
        f"family: {family}\nvendor: other\ndescription: Hostile test signatures.\nsignatures:\n"
        + "".join(entries)
    )


def _patterns(d: Path, text: str, name: str = "hostile.yaml") -> Path:
    folder = d / "patterns"
    _write(folder / name, text.encode())
    return folder


def companion_log(d: Path) -> Path:
    """The small log a patterns or policy input is tried on: an OOM, an NCCL error, and
    lines starting with runs of letters (for ReDoS line formats)."""
    a40 = b"a" * 40
    return _write(
        d / "companion" / "rank_0.log",
        _rank_log(
            b"[rank0]: " + _OOM_B + b" " + a40,
            before=a40 + b" " + _NCCL_B + b"\n" + a40 + b" grad_norm: nan",
        ),
    )


def _bomb_levels(indent: str, leaf: str = "lol") -> str:
    """YAML anchors a..i, each a list of ten of the one before (10**9 leaves)."""
    out = [f"{indent}a: &a [{', '.join([leaf] * 10)}]"]
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        out.append(f"{indent}{cur}: &{cur} [{', '.join(['*' + prev] * 10)}]")
    return "\n".join(out)


def _b_pat_alias_bomb(d: Path) -> Path:
    """Billion laughs: YAML aliases nested nine deep inside `examples[].captures`."""
    examples = (
        "\n      - log: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'"
        "\n        match: true\n        captures:\n          size: '2.00 GiB'\n"
        + _bomb_levels("          ")
        + "\n      - {log: 'no memory issue here', match: false}"
    )
    return _patterns(d, pattern_file(signature_yaml(examples=examples)))


def _b_pat_width(d: Path) -> Path:
    """A message whose placeholder pads to 99,999,999 characters: `{size:>99999999}`."""
    return _patterns(d, pattern_file(signature_yaml(message="'{size:>99999999}'")))


def _b_pat_width_overflow(d: Path) -> Path:
    """A message format width beyond any integer: `{size:>99999999999999999999}`."""
    return _patterns(
        d,
        pattern_file(
            signature_yaml(message="'{size:>99999999999999999999}'", message_zh="'{size:,>1e9}'")
        ),
    )


def _b_pat_repeated_placeholder(d: Path) -> Path:
    """A message that repeats `{size}` 500,000 times: rendered for every finding it made
    a 1 GB verdict and 4 GB of memory."""
    return _patterns(d, pattern_file(signature_yaml(message="'" + "{size}" * 500_000 + "'")))


def _b_pat_backtrack(d: Path) -> Path:
    """`OutOfMemoryError.*a.*a.*a.*a.*c` whose first positive example is 100 KB of `a`
    (Python's re backtracks for ever on it; the regex has no nested quantifier)."""
    examples = (
        f"\n      - {{log: 'torch.OutOfMemoryError: {'a' * 100_000}', match: true}}"
        "\n      - {log: 'torch.OutOfMemoryError: a a a a c', match: true}"
        "\n      - {log: 'no memory issue here', match: false}"
    )
    return _patterns(
        d,
        pattern_file(
            signature_yaml(
                literals="['OutOfMemoryError']",
                match="['OutOfMemoryError.*a.*a.*a.*a.*c']",
                message="'x'",
                overlaps="<drop>",
                examples=examples,
            )
        ),
    )


def _b_pat_5000(d: Path) -> Path:
    """5,000 signatures, each a 100-word alternation (half a million alternatives)."""
    rng = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyz"
    entries = []
    for i in range(5000):
        words = ["".join(rng.choice(letters) for _ in range(8)) for _ in range(100)]
        entries.append(
            signature_yaml(
                id=f"hostile-alt-{i}",
                category="unknown",
                role="confirmation",
                severity="error",
                overlaps="<drop>",
                literals=f"['hostile alternation {i} ']",
                match=f"['hostile alternation {i} (?:{'|'.join(words)}) failed']",
                message="<drop>",
                examples=(
                    f"\n      - {{log: 'hostile alternation {i} {words[0]} failed', match: true}}"
                    "\n      - {log: 'no alternation here', match: false}"
                ),
            )
        )
    return _patterns(d, pattern_file(*entries))


def _b_pat_type(field: str, value: str) -> Callable[[Path], Path]:
    def build(d: Path) -> Path:
        return _patterns(d, pattern_file(signature_yaml(**{field: value})))

    build.__doc__ = f"A signature whose `{field}` is `{value}`."
    return build


def _b_pat_deep(d: Path) -> Path:
    """A signature file whose `examples` is a list nested 100,000 levels deep."""
    return _patterns(d, pattern_file(signature_yaml(examples="[" * 100_000 + "]" * 100_000)))


def _b_pat_top_list(d: Path) -> Path:
    """A pattern file that is a YAML list of 100,000 integers, not a mapping, and a
    second whose signatures are a string."""
    folder = _patterns(d, "- 1\n" * 100_000)
    _write(folder / "second.yaml", b"family: hostile2\nsignatures: 'x'\n")
    return folder


def _b_fmt_redos(d: Path) -> Path:
    """A formats.yaml whose prefix and claim regexes backtrack exponentially on a run of
    letters (`(?:[a-z]+)+:`), which the companion log's hit lines start with."""
    text = (
        "prefixes:\n"
        "  - id: hostile-prefix\n"
        "    what: a prefix that backtracks\n"
        "    regex: '(?:[a-z]+)+:'\n"
        "    examples:\n"
        "      - {line: 'abc: step 10', fields: {}, rest: 'step 10'}\n"
        "claims:\n"
        "  - id: hostile-claim\n"
        "    what: a claim that backtracks\n"
        "    regex: '(?:a|aa)+(?P<rank>\\d)'\n"
        "    examples:\n"
        "      - {line: 'aa3', fields: {rank: '3'}}\n"
    )
    return _patterns(d, text, "formats.yaml")


def _b_cascade_types(d: Path) -> Path:
    """A cascades.yaml with a nested list as categories and an infinite delay."""
    text = (
        "cascades:\n  - id: hostile-rule\n    why: x\n    cause: {categories: [[device_oom]]}\n"
        "    symptom: {signatures: {a: 1}}\n    min_delay: .nan\n    max_delay: .inf\n"
    )
    return _patterns(d, text, "cascades.yaml")


def _policy(text: str) -> Callable[[Path], Path]:
    def build(d: Path) -> Path:
        return _write(d / "policy.yaml", text.encode())

    build.__doc__ = f"A policy file: {text!r}"
    return build


def _bomb_flow(leaf: str = "lol") -> str:
    """The same nine levels as one YAML flow sequence: [&a [...], &b [*a, ...], ...]."""
    levels = [f"&a [{', '.join([leaf] * 10)}]"]
    levels += [
        f"&{c} [{', '.join(['*' + p] * 10)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    return "[" + ", ".join(levels) + "]"


_POLICY_BOMB = (
    f"rules:\n  - {{category: device_oom, recovery: auto_restart, retries: {_bomb_flow()}}}\n"
)


# ==========================================================================================
# batch
# ==========================================================================================


def _root(d: Path, jobs: dict[bytes, bytes]) -> Path:
    root = d / "root"
    root.mkdir()
    for name, data in jobs.items():
        job = Path(os.fsdecode(_fs(root, name)))
        os.mkdir(os.fsencode(job))
        _write(job / "rank_0.log", data)
    (d / "out").mkdir(exist_ok=True)
    return root


def _b_batch_utf8(d: Path) -> Path:
    """A batch root with a job folder whose name is not UTF-8, beside a normal job."""
    return _root(d, {b"job-\xff\xfe": _LOG, b"job-ok": _LOG})


def _b_batch_formula(d: Path) -> Path:
    """Jobs named as CSV formulas (=, +, -, @, tab) and a root line that starts with a
    DDE payload `=cmd|' /C calc'!A0`."""
    dde = b"=cmd|' /C calc'!A0;" + _OOM_B
    return _root(
        d,
        {
            b"=cmd|' \\C calc'!A0": _LOG,
            b"+SUM(1)": _LOG,
            b"@x": _LOG,
            b"-1+1": _LOG,
            b"\t=1+1": _LOG,
            b"job-dde": _rank_log(dde),
        },
    )


def _victim(d: Path) -> Path:
    return _write(d / "victim.txt", b"VICTIM-ORIGINAL-CONTENT\n")


def _b_batch_tmp_link(d: Path) -> Path:
    """--out folder where the temporary table `.verdicts.csv.tmp` is a planted link to a victim."""
    root = _root(d, {b"job-a": _LOG})
    os.symlink(_victim(d), d / "out" / ".verdicts.csv.tmp")
    return root


def _b_batch_journal_link(d: Path) -> Path:
    """--out folder where the journal `verdicts.csv.journal` is a planted link to a victim."""
    root = _root(d, {b"job-a": _LOG})
    os.symlink(_victim(d), d / "out" / "verdicts.csv.journal")
    return root


def _b_batch_out_link(d: Path) -> Path:
    """--out itself (verdicts.jsonl) and its findings table are planted links to a victim."""
    root = _root(d, {b"job-a": _LOG})
    os.symlink(_victim(d), d / "out" / "verdicts.jsonl")
    os.symlink(_victim(d), d / "out" / ".verdicts.jsonl.tmp")
    return root


def _record(job: str, fingerprint: str = "0" * 32) -> str:
    import json

    return json.dumps(
        {"row": {"job_id": job, "fingerprint": fingerprint, "category": "none"}, "findings": []}
    )


def _b_batch_torn(d: Path) -> Path:
    """A journal whose middle line is cut mid-JSON and followed by a valid record."""
    root = _root(d, {b"job-a": _LOG, b"job-b": _LOG})
    torn = _record("job-a")[:37]
    (d / "out" / "verdicts.csv.journal").write_text(
        _record("job-z") + "\n" + torn + _record("job-b") + "\n"
    )
    return root


def _b_batch_shapes(d: Path) -> Path:
    """A journal of valid JSON in every wrong shape (lists, numbers, rows without keys,
    a list as job id, NaN)."""
    root = _root(d, {b"job-a": _LOG})
    lines = [
        "[]",
        "5",
        '"row"',
        "null",
        '{"row": 5}',
        '{"row": {"fingerprint": "x"}}',
        '{"findings": []}',
        '{"row": {"job_id": ["job-a"], "fingerprint": "x"}}',
        '{"row": {"job_id": "job-a", "fingerprint": NaN}, "findings": 7}',
        '{"row": {"job_id": "job-a"}, "findings": [1, 2]}',
    ]
    (d / "out" / "verdicts.csv.journal").write_text("\n".join(lines) + "\n")
    return root


def _b_batch_escapes(d: Path) -> Path:
    """Job folders named with OSC 52, a newline plus forged line, and a bidi override."""
    return _root(
        d,
        {b"job" + _OSC52: _LOG, b"job" + _FORGED_B.rstrip(b"\n"): _LOG, "job\u202e".encode(): _LOG},
    )


def _b_batch_link_out(d: Path) -> Path:
    """A job entry that is a symbolic link to a folder outside the root (LEAK_MARKER)."""
    root = _root(d, {b"job-a": _LOG})
    os.symlink(_outside(d), root / "job-linked")
    return root


def _b_batch_loop(d: Path) -> Path:
    """A job folder with symbolic-link loops (to itself and to the root)."""
    root = _root(d, {b"job-a": _LOG})
    os.symlink(".", root / "job-a" / "self")
    os.symlink("..", root / "job-a" / "up")
    return root


# ==========================================================================================
# smaller: truncated and corrupt compressed files
# ==========================================================================================

_BIG_LOG = _rank_log(_OOM_B, steps=30_000)


def _b_cut_zst(d: Path) -> Path:
    """A zstd log cut in the middle of its frame."""
    z = _zstd(_BIG_LOG)
    return _write(d / "rank_0.log.zst", z[: len(z) // 2])


def _b_cut_gz(d: Path) -> Path:
    """A gzip log cut in the middle."""
    z = zlib_gzip(_BIG_LOG)
    return _write(d / "rank_0.log.gz", z[: len(z) // 2])


def _b_cut_bz2(d: Path) -> Path:
    """A bzip2 log cut in the middle."""
    z = bz2.compress(_BIG_LOG)
    return _write(d / "rank_0.log.bz2", z[: len(z) // 2])


def _b_cut_xz(d: Path) -> Path:
    """An xz log cut in the middle."""
    z = lzma.compress(_BIG_LOG, preset=0)
    return _write(d / "rank_0.log.xz", z[: len(z) // 2])


def _b_gz_bad_crc(d: Path) -> Path:
    """A complete gzip log whose trailer CRC is wrong."""
    z = bytearray(zlib_gzip(_LOG))
    z[-8] ^= 0xFF
    return _write(d / "rank_0.log.gz", bytes(z))


def _b_gz_garbage(d: Path) -> Path:
    """A gzip log followed by 1 MiB of random bytes (a second member that is not one)."""
    return _write(d / "rank_0.log.gz", zlib_gzip(_LOG) + random.Random(3).randbytes(MiB))


def _b_zst_skippable(d: Path) -> Path:
    """A zstd skippable frame that declares 4 GiB, then the log frame."""
    return _write(
        d / "rank_0.log.zst", b"\x50\x2a\x4d\x18\xff\xff\xff\xff" + b"s" * 1000 + _zstd(_LOG)
    )


def _b_empty_gz(d: Path) -> Path:
    """A gzip header and nothing after it."""
    return _write(d / "rank_0.log.gz", _gzip_header(0))


def _b_zst_window(d: Path) -> Path:
    """A zstd frame that asks for a 2 TiB window."""
    return _write(d / "rank_0.log.zst", _ZSTD_MAGIC + b"\x00" + bytes([31 << 3]) + b"\x01\x00\x00")


def _b_xz_flip(d: Path) -> Path:
    """An xz log with one byte flipped in the middle of its data."""
    z = bytearray(lzma.compress(_BIG_LOG, preset=0))
    z[len(z) // 2] ^= 0x55
    return _write(d / "rank_0.log.xz", bytes(z))


# ==========================================================================================
# archive: corrupt containers
# ==========================================================================================


def _b_zip_bad_crc(d: Path) -> Path:
    """A zip whose stored member has a wrong CRC-32."""
    return write_zip(d / "job.zip", [ZipEntry(b"rank_0.log", _LOG, crc=0xDEADBEEF)])


def _b_tar_size_beyond(d: Path) -> Path:
    """A tar whose member says 1 GiB and the file ends after 4 KiB."""
    return _write(d / "job.tar", tar_header(b"rank_0.log", GiB) + _LOG + bytes(2048))


def _b_tar_negative(d: Path) -> Path:
    """A tar member with a negative base-256 size, then a normal member."""
    return _write(
        d / "job.tar",
        tar_header(b"rank_0.log", -(10**12))
        + _LOG
        + _pad512(len(_LOG))
        + tar_member(b"rank_1.log", _LOG)
        + _TAR_END,
    )


def _b_tar_base256_huge(d: Path) -> Path:
    """A tar member whose base-256 size is 2**88 - 1."""
    return _write(
        d / "job.tar", tar_header(b"rank_0.log", 2**88 - 1) + _LOG + _pad512(len(_LOG)) + _TAR_END
    )


def _b_tar_bad_checksum(d: Path) -> Path:
    """A tar whose second header's checksum is off by one."""
    bad = tar_header(b"rank_1.log", len(_LOG), bad_checksum=True) + _LOG + _pad512(len(_LOG))
    return _write(d / "job.tar", tar_member(b"rank_0.log", _LOG) + bad + _TAR_END)


def _b_tar_traversal(d: Path) -> Path:
    """A tar with `../` and absolute member names, and a hard link to /etc/shadow."""
    body = tar_member(b"../../../../tmp/owned.log", _LOG) + tar_member(b"/etc/cron.d/x.log", _LOG)
    body += tar_header(b"shadow.log", 0, b"1", b"/etc/shadow")
    return _write(d / "job.tar", body + _TAR_END)


def _b_tar_gnu_sparse(d: Path) -> Path:
    """A 3 KB GNU sparse (`S`) member whose map declares 1 TiB of holes before its data."""
    data = _LOG[-200:]
    real = 1 << 40
    extra = {
        386: b"%011o\0" % (real - len(data)) + b"%011o\0" % len(data),
        482: b"\0",
        483: b"%011o\0" % real,
    }
    h = tar_header(b"rank_0.log", len(data), b"S", extra=extra)
    return _write(d / "job.tar", h + data + _pad512(len(data)) + _TAR_END)


def _b_zip_encrypted(d: Path) -> Path:
    """A zip whose member has the encryption flag set."""
    return write_zip(
        d / "job.zip",
        [ZipEntry(b"rank_0.log", b"\x00" * 12 + _LOG, flags=0x01), _stored(b"rank_1.log", _LOG)],
    )


def _b_zip64_bogus(d: Path) -> Path:
    """A zip64 member declaring 2**63 - 1 bytes uncompressed and 2**62 stored, for a
    4 KiB log."""
    return write_zip(d / "job.zip", [ZipEntry(b"rank_0.log", _LOG, usize=2**63 - 1, csize=2**62)])


def _b_zip64_offset(d: Path) -> Path:
    """A zip64 central directory entry whose local header offset is 2**63 + 5."""
    return write_zip(
        d / "job.zip",
        [_stored(b"rank_1.log", _LOG)],
        [ZipEntry(b"rank_0.log", _LOG, offset=2**63 + 5)],
    )


def _b_zip_unsupported(d: Path) -> Path:
    """Zip members in methods 99 (AES), 98 (PPMd) and 9 (deflate64)."""
    entries = [ZipEntry(b"rank_%d.log" % i, _LOG, m) for i, m in enumerate((99, 98, 9))]
    return write_zip(d / "job.zip", [*entries, _stored(b"rank_9.log", _LOG)])


def _b_zip_csize_lie(d: Path) -> Path:
    """A zip whose stored member says its data is 1 GiB long (it is 4 KiB)."""
    return write_zip(d / "job.zip", [ZipEntry(b"rank_0.log", _LOG, usize=GiB, csize=GiB)])


def _b_zip_cd_beyond(d: Path) -> Path:
    """A zip whose end record puts the central directory beyond the end of the file."""
    p = write_zip(d / "job.zip", [_stored(b"rank_0.log", _LOG)])
    data = bytearray(p.read_bytes())
    struct.pack_into("<I", data, len(data) - 6, 0x7FFFFFF0)
    return _write(p, bytes(data))


def _b_zip_deflate_lie(d: Path) -> Path:
    """A zip whose deflate member's stream ends early: the declared sizes are larger."""
    e = _deflated(b"rank_0.log", _BIG_LOG)
    cut = ZipEntry(e.name, e.data[: len(e.data) // 2], 8, e.crc, e.usize, len(e.data))
    return write_zip(d / "job.zip", [cut, _stored(b"rank_1.log", _LOG)])


def _h(id: str, klass: str, build: Callable[[Path], Path], **kw: str | bool) -> Hostile:
    what = " ".join((build.__doc__ or id).split())
    return Hostile(id, klass, what, build, **kw)  # type: ignore[arg-type]


def _b_distinct_hits(d: Path) -> Path:
    """200,000 hit lines that no template folds (26 MB): a block of them took seconds
    past the deadline before the scan looked at the clock inside a block."""
    out = bytearray()
    for i in range(200_000):
        out += (
            f"[rank{i % 64}]: RuntimeError: CUDA error: an illegal memory access was "
            f"encountered at step {i} tensor_{i * 7919 % 100003}\n"
        ).encode()
    return _write(d / "distinct.log", bytes(out))


def _b_flight_groups(d: Path) -> Path:
    """Two ranks' dumps of 8,000 gloo process groups (no pg_config): matching them
    scanned every dump's calls once per group (60 s, 2.2 GB)."""
    import pickle

    for rank in (0, 1):
        entries = [
            {"collective_seq_id": seq, "process_group": (str(g), f"pg{g}"),
             "profiling_name": "gloo:all_reduce", "input_sizes": [[4]], "output_sizes": [[4]],
             "input_dtypes": ["Float"], "output_dtypes": ["Float"], "state": "completed",
             "time_created_ns": 1_700_000_000_000_000_000 + g * 1000 + seq, "frames": []}
            for g in range(8000)
            for seq in (1, 2)
            if rank == 0 or seq == 1
        ]  # fmt: skip
        raw = {"version": "2.4", "pg_config": {}, "entries": entries}
        _write(d / "dumps" / f"nccl_trace_rank_{rank}", pickle.dumps(raw, protocol=2))
    return d / "dumps"


INPUTS: tuple[Hostile, ...] = (
    # deadline
    _h("deadline-redact-leading-spaces", "deadline", _b_redact_spaces),
    _h("deadline-redact-every-trigger", "deadline", _b_redact_triggers),
    _h("deadline-gzip-fname-endless", "deadline", _b_gzip_fname),
    _h("deadline-gzip-fcomment-endless", "deadline", _b_gzip_fcomment),
    _h("deadline-gzip-fextra-members", "deadline", _b_gzip_fextra),
    _h("deadline-tar-pax-digits", "deadline", _b_pax_digits),
    _h("deadline-tar-pax-digit-runs", "deadline", _b_pax_digit_runs),
    _h("deadline-tar-bz2-unknown-type-8g", "deadline", _b_tar_bz2_unknown_type),
    _h("deadline-tar-bz2-png-8g", "deadline", _b_tar_bz2_png),
    _h("deadline-tar-bz2-chardev-size-8g", "deadline", _b_tar_bz2_chardev),
    _h("deadline-tar-gz-million-symlinks", "deadline", _b_tar_million_symlinks),
    _h("deadline-tar-gz-gnu-longname-256m", "deadline", _b_tar_gnu_longname),
    _h("deadline-zip-million-entries", "deadline", _b_zip_million),
    _h("deadline-fifo", "deadline", _b_fifo),
    _h("deadline-200k-distinct-hit-lines", "deadline", _b_distinct_hits),
    _h("deadline-flight-8000-groups", "deadline", _b_flight_groups),
    _h("deadline-fifo-in-folder", "deadline", _b_fifo_in_folder),
    _h("deadline-grow-lines", "deadline", _b_grow_lines),
    _h("deadline-grow-sparse", "deadline", _b_grow_sparse),
    _h("deadline-sparse-1t-text-head", "deadline", _b_sparse_text_head),
    _h("deadline-stdin-held-open", "deadline", _b_stdin_open, stdin=True),
    _h("deadline-stdin-gzip-20g", "deadline", _b_stdin_gzip_bomb, stdin=True),
    _h("deadline-link-dev-zero", "deadline", _b_link_dev_zero),
    # memory
    _h("memory-zip-bzip2-8g", "memory", _b_zip_bzip2),
    _h("memory-zip-bzip2-text-4g", "memory", _b_zip_bzip2_text),
    _h("memory-zip-lzma-2g", "memory", _b_zip_lzma),
    _h("memory-zip-size-lie-10b", "memory", _b_zip_size_lie),
    _h("memory-zip-overlap-1000", "memory", _b_zip_overlap),
    _h("memory-tar-gz-5g-zeros", "memory", _b_tar_gz_5g_zeros),
    _h("memory-tar-gz-5g-text", "memory", _b_tar_gz_5g_text),
    _h("memory-gzip-20g-zeros", "memory", _b_gzip_20g),
    _h("memory-gzip-20g-text", "memory", _b_gzip_20g_text),
    _h("memory-xz-16g-zeros", "memory", _b_xz_zeros),
    _h("memory-xz-16g-text", "memory", _b_xz_text),
    _h("memory-zstd-100g-zeros", "memory", _b_zstd_zeros),
    _h("memory-zstd-100g-spaces", "memory", _b_zstd_spaces),
    _h("memory-bz2-8g-zeros", "memory", _b_bz2_zeros),
    _h("memory-nested-10-deep", "memory", _b_nested),
    _h("memory-gzip-200m-line", "memory", _b_long_line_gz),
    _h("memory-tar-gz-pax-256m", "memory", _b_pax_256m),
    _h("memory-distinct-templates", "memory", _b_distinct_templates),
    _h("memory-tar-gz-million-files", "memory", _b_tar_million_files),
    # names
    _h("names-forged-newline", "names", _b_name_forged),
    _h("names-osc52", "names", _b_name_osc52),
    _h("names-osc8", "names", _b_name_osc8),
    _h("names-osc0-argument", "names", _b_name_osc0),
    _h("names-presigned-url", "names", _b_name_presigned),
    _h("names-presigned-url-tar", "names", _b_name_presigned_tar),
    _h("names-hf-token", "names", _b_name_hf_token),
    _h("names-invalid-utf8", "names", _b_name_invalid_utf8),
    _h("names-invalid-utf8-argument", "names", _b_name_invalid_utf8_arg),
    _h("names-tar-invalid-utf8", "names", _b_name_tar_invalid_utf8),
    _h("names-zip-invalid-utf8-flag", "names", _b_name_zip_utf8_flag),
    _h("names-zip-controls", "names", _b_name_zip_controls),
    _h("names-bidi", "names", _b_name_bidi),
    _h("names-tar-pax-controls", "names", _b_name_tar_pax_controls),
    _h("names-tar-pax-1m-path", "names", _b_name_long),
    # controls
    _h("controls-osc52", "controls", _b_ctl_osc52),
    _h("controls-osc8", "controls", _b_ctl_osc8),
    _h("controls-osc0-title", "controls", _b_ctl_osc0),
    _h("controls-osc-unterminated", "controls", _b_ctl_osc_open),
    _h("controls-c1-csi", "controls", _b_ctl_c1_csi),
    _h("controls-backspaces", "controls", _b_ctl_backspace),
    _h("controls-cr-redraw", "controls", _b_ctl_cr),
    _h("controls-bidi", "controls", _b_ctl_bidi),
    _h("controls-nul", "controls", _b_ctl_nul),
    _h("controls-csi-screen", "controls", _b_ctl_csi_screen),
    _h("controls-dcs-apc", "controls", _b_ctl_dcs_apc),
    _h("controls-line-separators", "controls", _b_ctl_separators),
    _h("controls-context-lines", "controls", _b_ctl_context),
    _h("controls-vt-ff-bel-del", "controls", _b_ctl_vt_ff),
    # walk
    _h("walk-300k-files", "walk", _b_300k_files),
    _h("walk-nested-1200", "walk", _b_nested_1200),
    _h("walk-path-max", "walk", _b_path_max),
    _h("walk-symlink-loops", "walk", _b_symlink_loop),
    _h("walk-symlinks-out", "walk", _b_symlinks_out),
    _h("walk-hardlinks-10k", "walk", _b_hardlinks),
    _h("walk-symlinks-30k", "walk", _b_many_symlinks),
    _h("walk-special-files", "walk", _b_special_files),
    # tail
    _h("tail-tqdm-redraw-oom", "tail", _b_tqdm_redraw),
    _h("tail-2mb-line-oom-end", "tail", _b_line_2mb_end),
    _h("tail-2mb-line-oom-start", "tail", _b_line_2mb_start),
    _h("tail-sparse-1t-oom-end", "tail", _b_sparse_oom_end),
    _h("tail-straddle-boundary", "tail", _b_straddle),
    _h("tail-utf8-boundary", "tail", _b_utf8_tail),
    _h("tail-crlf", "tail", _b_crlf),
    _h("tail-oom-before-tail", "tail", _b_oom_before_tail),
    # watch
    _h("watch-sparse-growth-many", "watch", _b_watch_sparse_many, command="watch"),
    _h("watch-rotate-storm", "watch", _b_watch_rotate, command="watch"),
    _h("watch-truncate-storm", "watch", _b_watch_truncate, command="watch"),
    _h("watch-new-files-storm", "watch", _b_watch_new_files, command="watch"),
    _h("watch-symlink-swap", "watch", _b_watch_symlink_swap, command="watch"),
    _h("watch-fifo", "watch", _b_watch_fifo, command="watch"),
    _h("watch-growing-line", "watch", _b_watch_long_line, command="watch"),
    # patterns (--patterns DIR on companion_log) and policies (decide --policy)
    _h("patterns-alias-bomb", "patterns", _b_pat_alias_bomb, option="--patterns"),
    _h("patterns-message-width", "patterns", _b_pat_width, option="--patterns"),
    _h("patterns-message-width-overflow", "patterns", _b_pat_width_overflow, option="--patterns"),
    _h(
        "patterns-message-repeated-placeholder",
        "patterns",
        _b_pat_repeated_placeholder,
        option="--patterns",
    ),
    _h("patterns-backtracking-example", "patterns", _b_pat_backtrack, option="--patterns"),
    _h("patterns-5000-alternations", "patterns", _b_pat_5000, option="--patterns"),
    _h("patterns-type-match-int", "patterns", _b_pat_type("match", "5"), option="--patterns"),
    _h(
        "patterns-type-examples-str",
        "patterns",
        _b_pat_type("examples", "'x'"),
        option="--patterns",
    ),
    _h(
        "patterns-type-category-list",
        "patterns",
        _b_pat_type("category", "[1]"),
        option="--patterns",
    ),
    _h(
        "patterns-type-role-map", "patterns", _b_pat_type("role", "{cause: 1}"), option="--patterns"
    ),
    _h(
        "patterns-type-literals-nested",
        "patterns",
        _b_pat_type("literals", "[[CUDA out of memory]]"),
        option="--patterns",
    ),
    _h(
        "patterns-type-progress-list",
        "patterns",
        _b_pat_type("progress", "[step]"),
        option="--patterns",
    ),
    _h(
        "patterns-type-min-count-float",
        "patterns",
        _b_pat_type("min_count", "1.0e+300"),
        option="--patterns",
    ),
    _h(
        "patterns-type-raised-in-list",
        "patterns",
        _b_pat_type("raised_in", "{device_oom: [1]}"),
        option="--patterns",
    ),
    _h("patterns-yaml-deep-nesting", "patterns", _b_pat_deep, option="--patterns"),
    _h("patterns-not-a-mapping", "patterns", _b_pat_top_list, option="--patterns"),
    _h("patterns-formats-redos", "patterns", _b_fmt_redos, option="--patterns"),
    _h("patterns-cascades-types", "patterns", _b_cascade_types, option="--patterns"),
    _h(
        "policy-features-int",
        "patterns",
        _policy("features: 5\n"),
        option="--policy",
        command="decide",
    ),
    _h(
        "policy-features-unhashable",
        "patterns",
        _policy("features: [[auto_restart]]\n"),
        option="--policy",
        command="decide",
    ),
    _h("policy-rules-int", "patterns", _policy("rules: 5\n"), option="--policy", command="decide"),
    _h(
        "policy-ladder-list",
        "patterns",
        _policy("ladder: [1, 2]\n"),
        option="--policy",
        command="decide",
    ),
    _h(
        "policy-ladder-value-int",
        "patterns",
        _policy("ladder: {auto_restart: 5}\n"),
        option="--policy",
        command="decide",
    ),
    _h(
        "policy-repeat-str",
        "patterns",
        _policy("rules:\n  - {category: device_oom, recovery: auto_restart, repeat: many}\n"),
        option="--policy",
        command="decide",
    ),
    _h(
        "policy-category-list",
        "patterns",
        _policy("rules:\n  - {category: [device_oom], recovery: auto_restart}\n"),
        option="--policy",
        command="decide",
    ),
    _h("policy-alias-bomb", "patterns", _policy(_POLICY_BOMB), option="--policy", command="decide"),
    _h(
        "policy-deep-nesting",
        "patterns",
        _policy("features: " + "[" * 50_000 + "]" * 50_000 + "\n"),
        option="--policy",
        command="decide",
    ),
    # batch
    _h("batch-job-invalid-utf8", "batch", _b_batch_utf8, command="batch"),
    _h("batch-csv-formula", "batch", _b_batch_formula, command="batch"),
    _h("batch-out-tmp-symlink", "batch", _b_batch_tmp_link, command="batch", victim="victim.txt"),
    _h(
        "batch-out-journal-symlink",
        "batch",
        _b_batch_journal_link,
        command="batch",
        victim="victim.txt",
    ),
    _h(
        "batch-out-table-symlink",
        "batch",
        _b_batch_out_link,
        command="batch",
        out="out/verdicts.jsonl",
        victim="victim.txt",
    ),
    _h("batch-torn-journal", "batch", _b_batch_torn, command="batch"),
    _h("batch-journal-wrong-shapes", "batch", _b_batch_shapes, command="batch"),
    _h("batch-job-names-escapes", "batch", _b_batch_escapes, command="batch"),
    _h("batch-job-link-out", "batch", _b_batch_link_out, command="batch"),
    _h("batch-job-symlink-loops", "batch", _b_batch_loop, command="batch"),
    # smaller
    _h("smaller-truncated-zst", "smaller", _b_cut_zst),
    _h("smaller-truncated-gz", "smaller", _b_cut_gz),
    _h("smaller-truncated-bz2", "smaller", _b_cut_bz2),
    _h("smaller-truncated-xz", "smaller", _b_cut_xz),
    _h("smaller-gz-bad-crc", "smaller", _b_gz_bad_crc),
    _h("smaller-gz-trailing-garbage", "smaller", _b_gz_garbage),
    _h("smaller-zst-skippable-4g", "smaller", _b_zst_skippable),
    _h("smaller-gz-header-only", "smaller", _b_empty_gz),
    _h("smaller-zst-window-2t", "smaller", _b_zst_window),
    _h("smaller-xz-flipped-byte", "smaller", _b_xz_flip),
    # archive
    _h("archive-zip-bad-crc", "archive", _b_zip_bad_crc),
    _h("archive-tar-size-beyond-end", "archive", _b_tar_size_beyond),
    _h("archive-tar-negative-size", "archive", _b_tar_negative),
    _h("archive-tar-base256-huge", "archive", _b_tar_base256_huge),
    _h("archive-tar-bad-checksum", "archive", _b_tar_bad_checksum),
    _h("archive-tar-traversal-names", "archive", _b_tar_traversal),
    _h("archive-tar-gnu-sparse-1t", "archive", _b_tar_gnu_sparse),
    _h("archive-zip-encrypted", "archive", _b_zip_encrypted),
    _h("archive-zip64-bogus-sizes", "archive", _b_zip64_bogus),
    _h("archive-zip64-bogus-offset", "archive", _b_zip64_offset),
    _h("archive-zip-unsupported-methods", "archive", _b_zip_unsupported),
    _h("archive-zip-csize-lie", "archive", _b_zip_csize_lie),
    _h("archive-zip-cd-beyond-end", "archive", _b_zip_cd_beyond),
    _h("archive-zip-deflate-cut", "archive", _b_zip_deflate_lie),
)


# Benign inputs of each command, the baseline a run of INPUTS is read against.
def _c_log(d: Path) -> Path:
    """A small rank log ending in the OOM."""
    return _write(d / "rank_0.log", _LOG)


def _c_patterns(d: Path) -> Path:
    """A valid pattern folder (the cost of --patterns itself)."""
    return _patterns(d, pattern_file(signature_yaml()))


def _c_batch(d: Path) -> Path:
    """A batch root of two small jobs."""
    return _root(d, {b"job-a": _LOG, b"job-b": _LOG})


def _c_watch(d: Path) -> Path:
    """A folder with a small log, watched."""
    return _write(d / "job" / "rank_0.log", _LOG).parent


CONTROLS: tuple[Hostile, ...] = (
    _h("control-log", "control", _c_log),
    _h("control-patterns", "control", _c_patterns, option="--patterns"),
    _h("control-policy", "control", _policy("retries: 2\n"), option="--policy", command="decide"),
    _h("control-batch", "control", _c_batch, command="batch"),
    _h("control-watch", "control", _c_watch, command="watch"),
)


def _check_corpus() -> None:
    ids = [h.id for h in INPUTS + CONTROLS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    for h in INPUTS:
        assert h.klass in KLASSES, h
    for k in KLASSES:
        assert sum(h.klass == k for h in INPUTS) >= 3, k


_check_corpus()


def main(argv: Sequence[str]) -> None:
    wanted = set(argv)
    print(f"{'id':<40} {'class':<9} {'disk MB':>9} {'size':>12} {'build s':>8}")
    for h in INPUTS + CONTROLS:
        if wanted and h.id not in wanted:
            continue
        d = Path(tempfile.mkdtemp(prefix="hostile-"))
        try:
            t = time.perf_counter()
            h.build(d)
            took = time.perf_counter() - t
            disk, size = disk_usage(d)
            print(
                f"{h.id:<40} {h.klass:<9} {disk / MiB:9.1f} {_human(size):>12} {took:8.2f}",
                flush=True,
            )
        finally:
            stop_background()
            remove_tree(d)


def _human(n: int) -> str:
    x = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if x < 1024:
            return f"{x:.0f} {unit}" if unit == "B" else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} TiB"


if __name__ == "__main__":
    main(sys.argv[1:])
