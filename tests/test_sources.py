from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile
from pathlib import Path

import pytest
import zstandard

from analyzer import analyze
from analyzer.job.model import path_hosts, path_who
from analyzer.read.sources import SourceNotes, iter_streams

LOG = b"line one\nline two\n"


def _read_all(paths: list[str]) -> tuple[dict[str, bytes], SourceNotes]:
    notes = SourceNotes()
    out = {s.name: s.reader.read() for s in iter_streams(paths, notes)}
    return out, notes


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".gz", gzip.compress),
        (".bz2", bz2.compress),
        (".xz", lzma.compress),
        (".zst", lambda b: zstandard.ZstdCompressor().compress(b)),
        ("", lambda b: b),
    ],
)
def test_compressed_files_are_read_transparently(tmp_path: Path, suffix: str, compress) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / f"rank0.log{suffix}"
    f.write_bytes(compress(LOG))
    out, notes = _read_all([str(f)])
    assert out == {str(f): LOG}
    assert not notes.notes


def test_directory_names_are_relative_and_sorted(tmp_path: Path) -> None:
    (tmp_path / "node1").mkdir()
    (tmp_path / "node1" / "rank_1.log").write_bytes(LOG)
    (tmp_path / "a.log").write_bytes(LOG)
    out, _ = _read_all([str(tmp_path)])
    assert list(out) == ["a.log", "node1/rank_1.log"]


def test_several_arguments_keep_their_prefix(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "rank0.log").write_bytes(LOG)
    out, _ = _read_all([str(tmp_path / "a"), str(tmp_path / "b")])
    assert sorted(out) == [f"{tmp_path}/a/rank0.log", f"{tmp_path}/b/rank0.log"]


def _tar_bytes(members: dict[str, bytes], mode: str = "w:gz") -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_tar_members_are_streamed_with_bang_names(tmp_path: Path) -> None:
    inner = gzip.compress(b"inner\n")
    (tmp_path / "job.tar.gz").write_bytes(
        _tar_bytes({"logs/rank0.log": LOG, "logs/rank1.log.gz": inner})
    )
    out, notes = _read_all([str(tmp_path)])
    assert out == {"job.tar.gz!logs/rank0.log": LOG, "job.tar.gz!logs/rank1.log.gz": b"inner\n"}
    assert not notes.notes


def test_zip_members(tmp_path: Path) -> None:
    z = tmp_path / "job.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("worker-3/stdout.log", LOG)
    out, _ = _read_all([str(z)])
    assert out == {f"{z}!worker-3/stdout.log": LOG}


@pytest.mark.parametrize("outer", ["tar", "tar.gz", "zip.gz"])
def test_a_zip_inside_an_archive_or_compressed_is_read(tmp_path: Path, outer: str) -> None:
    """A .zip has its directory at its end: inside a tar (or gzipped) it is copied to a
    temporary file and read (it was skipped, so a bundle of zipped node logs in a
    tarball said nothing). A jar or wheel inside is still no archive of logs."""
    z = tmp_path / "logs.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("node-1/rank_3.log", LOG)
    (tmp_path / "lib.jar").write_bytes(z.read_bytes())
    if outer == "zip.gz":
        arc = tmp_path / "logs.zip.gz"
        arc.write_bytes(gzip.compress(z.read_bytes()))
        name = f"{arc}!node-1/rank_3.log"
    else:
        arc = tmp_path / f"job.{outer}"
        with tarfile.open(arc, "w:gz" if outer.endswith("gz") else "w") as tf:
            tf.add(z, arcname="bundle/logs.zip")
            tf.add(tmp_path / "lib.jar", arcname="bundle/lib.jar")
        name = f"{arc}!bundle/logs.zip!node-1/rank_3.log"
    out, notes = _read_all([str(arc)])
    assert out == {name: LOG}
    assert outer == "zip.gz" or notes.skipped == [f"{arc}!bundle/lib.jar"]


def test_binary_files_are_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "model.bin").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "core").write_bytes(b"\x7fELF" + b"\x00" * 100)
    (tmp_path / "ok.log").write_bytes(LOG)
    out, notes = _read_all([str(tmp_path)])
    assert list(out) == ["ok.log"]
    assert sorted(notes.skipped) == ["core", "model.bin"]


def test_a_log_with_nul_pages_or_backspaces_is_text(tmp_path: Path) -> None:
    """A crash zero-fills a page of a log; copytruncate leaves a hole of NULs before a
    writer's offset; a progress bar redraws with backspaces. Each is a log to read,
    while scattered NULs (UTF-16, binary data) still mark a file as not one."""
    (tmp_path / "crashed.log").write_bytes(LOG[:100] + b"\x00" * 4096 + LOG)
    (tmp_path / "truncated.log").write_bytes(b"\x00" * 20000 + LOG)
    (tmp_path / "bar.log").write_bytes(b"50%" + b"\x08" * 200 + b"60%\n" + LOG)
    (tmp_path / "utf16.log").write_bytes(LOG.decode().encode("utf-16-le"))
    out, notes = _read_all([str(tmp_path)])
    assert sorted(out) == ["bar.log", "crashed.log", "truncated.log"]
    assert notes.skipped == ["utf16.log"]
    assert out["truncated.log"].endswith(LOG)


def test_missing_and_unreadable_inputs_become_notes(tmp_path: Path) -> None:
    secret = tmp_path / "secret.log"
    secret.write_bytes(LOG)
    secret.chmod(0)
    out, notes = _read_all([str(tmp_path / "nope"), str(secret)])
    assert str(tmp_path / "nope") in notes.unreadable
    if os.geteuid() != 0:  # root reads anything
        assert out == {}
        assert str(secret) in notes.unreadable


def test_fifo_in_a_folder_is_skipped_not_blocked_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "ok.log").write_bytes(LOG)
    out, notes = _read_all([str(tmp_path)])
    assert list(out) == ["ok.log"]
    assert notes.skipped == ["pipe"]


def test_truncated_gzip_raises_only_while_reading(tmp_path: Path) -> None:
    f = tmp_path / "cut.log.gz"
    data = b"".join(b"step %d loss %f\n" % (i, i / 7) for i in range(20000))
    f.write_bytes(gzip.compress(data)[:-4000])
    notes = SourceNotes()
    for stream in iter_streams([str(f)], notes):  # a stream is only valid until the next
        got = stream.reader.read(8192)
        assert data.startswith(got) and got
        rest = stream.reader.read()  # everything decoded before the cut
        assert data.startswith(got + rest) and len(got + rest) > len(data) // 2
        with pytest.raises(EOFError):  # then the cut itself
            stream.reader.read()


@pytest.mark.parametrize(
    ("name", "rank", "local", "device", "hosts"),
    [
        ("rank_3/stdout.log", 3, None, None, []),
        ("logs/rank-12.log", 12, None, None, []),
        ("rank5.log", 5, None, None, []),
        ("run/none_x7k2/attempt_0/7/stdout.log", None, 7, None, []),
        # worker-N is a node (a pod, an Ascend worker), never a rank
        ("worker-3.log", None, None, None, ["worker-3"]),
        ("plog/device-6/plog-123.log", None, None, "6", []),
        ("node-a12/rank_1.log", 1, None, None, ["node-a12"]),
        ("host-gpu7.log", None, None, None, ["host-gpu7"]),
        ("gpu-b03/console.log", None, None, None, ["gpu-b03"]),
        ("dmesg-dgx-013.txt", None, None, None, ["dgx-013"]),
        ("dgx-013.kern.log", None, None, None, ["dgx-013"]),
        ("llama-pretrain-worker-1.log", None, None, None, ["llama-pretrain-worker-1"]),
        ("10.0.0.5/train.log", None, None, None, ["10.0.0.5"]),
        # generic folders and job files are not hosts
        ("node_logs/train.log", None, None, None, []),
        ("slurm-12345.out", None, None, None, []),
        ("plog/plog-2717288_20250723034757070.log", None, None, None, []),
        ("train.log", None, None, None, []),
        ("job.tar.gz!logs/rank_2.log", 2, None, None, []),
    ],
)
def test_path_claims(
    name: str, rank: int | None, local: int | None, device: str | None, hosts: list[str]
) -> None:
    who = path_who(name)
    assert (who.path_rank, who.path_local, who.path_device) == (rank, local, device)
    assert path_hosts(name) == hosts


def test_a_decompression_bomb_stops_with_a_note(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from analyzer import analyze
    from analyzer.read import sources

    monkeypatch.setattr(sources, "MIN_EXPANSION_LIMIT", 1 << 20)  # 1 MiB floor for the test
    bomb = gzip.compress(b"A" * (64 << 20))  # ~64 KB that expand to 64 MiB of text
    (tmp_path / "bomb.log.gz").write_bytes(bomb)
    (tmp_path / "ok.log").write_text(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"
    )
    v = analyze(tmp_path)
    read = v.stats.bytes - len(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"
    )
    assert read < 64 << 20 and read <= max(1 << 20, 1000 * len(bomb)) + (1 << 20)
    assert any("bomb.log.gz" in n and "decompression bomb" in n for n in v.stats.notes)
    assert v.category == "device_oom"  # the rest is still analysed


def test_tar_member_names_are_never_paths_on_disk(tmp_path: Path) -> None:
    evil = _tar_bytes({"../../etc/evil.log": LOG, "/abs/path.log": LOG}, "w")
    (tmp_path / "evil.tar").write_bytes(evil)
    before = set(Path(tmp_path).rglob("*"))
    out, _ = _read_all([str(tmp_path / "evil.tar")])
    assert set(out) == {
        f"{tmp_path}/evil.tar!../../etc/evil.log",
        f"{tmp_path}/evil.tar!/abs/path.log",
    }
    assert set(Path(tmp_path).rglob("*")) == before  # nothing extracted


@pytest.mark.parametrize(
    "compress",
    [lzma.compress, bz2.compress, lambda b: zstandard.ZstdCompressor().compress(b)],
    ids=["xz", "bz2", "zst"],
)
def test_every_codec_is_bounded_against_bombs(tmp_path: Path, monkeypatch, compress) -> None:  # type: ignore[no-untyped-def]
    from analyzer import analyze
    from analyzer.read import sources

    monkeypatch.setattr(sources, "MIN_EXPANSION_LIMIT", 1 << 20)
    blob = compress(b"A" * (48 << 20))
    (tmp_path / "bomb.log.x").write_bytes(blob)
    v = analyze(tmp_path)
    assert v.stats.bytes < 48 << 20
    assert any("decompression bomb" in n for n in v.stats.notes)


OOM = b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB\n"


def _zip_with_lying_size(field: int, value: int) -> bytes:
    """A zip whose central directory misstates a member's size (field 20: stored, 24: real)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("lying.log", b"".join(b"step %d loss 1.0\n" % i for i in range(5000)))
    data = bytearray(buf.getvalue())
    cd = data.index(b"PK\x01\x02")
    data[cd + field : cd + field + 4] = value.to_bytes(4, "little")
    return bytes(data)


@pytest.mark.parametrize(
    ("field", "value", "harmless"),
    [(24, 10, True), (24, 0xFFFFFFF0, True), (20, 3, False), (20, 0x7FFFFFF0, True)],
    ids=["size-too-small", "size-huge", "packed-too-small", "packed-huge"],
)
def test_zip_members_with_lying_sizes(
    tmp_path: Path, field: int, value: int, harmless: bool
) -> None:
    """The uncompressed size is never used (the data's own end ends a member); an
    understated packed size ends the member with a CRC note, an overstated one is
    harmless (the deflate stream ends where the data does, and the CRC still holds)."""
    from analyzer import analyze

    (tmp_path / "bundle.zip").write_bytes(_zip_with_lying_size(field, value))
    (tmp_path / "ok.log").write_bytes(OOM)
    v = analyze(tmp_path)
    assert v.category == "device_oom"  # the rest is analysed
    if harmless:
        assert v.stats.lines == 5001 and not v.stats.notes
    else:
        assert v.stats.notes == (
            "bundle.zip!lying.log: read stopped early: ArchiveError: bad CRC-32 for "
            "'lying.log' (kept what was read)",
        )
        assert v.stats.lines > 0


def test_archives_nested_in_archives_stay_bounded(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A gzip bomb inside a tar inside a tar.gz: the outer limit carries inward; a zip
    inside a zip (the 42.zip shape) is read within the same budget and nesting depth."""
    from analyzer import analyze
    from analyzer.read import sources

    monkeypatch.setattr(sources, "MIN_EXPANSION_LIMIT", 1 << 20)
    inner = _tar_bytes({"rank_0.log.gz": gzip.compress(b"A" * (32 << 20)), "rank_1.log": OOM}, "w")
    (tmp_path / "job.tar.gz").write_bytes(_tar_bytes({"attempt_0.tar": inner}))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("inner.zip", b"PK\x03\x04" + b"\0" * 1000)
    (tmp_path / "nest.zip").write_bytes(buf.getvalue())
    v = analyze(tmp_path)
    assert v.category == "device_oom"
    assert v.stats.bytes < 4 << 20
    notes = "\n".join(v.stats.notes)
    assert "job.tar.gz!attempt_0.tar!rank_0.log.gz" in notes and "decompression bomb" in notes
    assert "nest.zip!inner.zip: cannot read: no zip end record" in notes


def test_archive_links_are_skipped_never_followed(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        for name, kind, target in [
            ("logs/passwd.log", tarfile.SYMTYPE, "/etc/passwd"),
            ("logs/hard.log", tarfile.LNKTYPE, "/etc/shadow"),
        ]:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, target
            tf.addfile(info)
        info = tarfile.TarInfo("logs/ok.log")
        info.size = len(LOG)
        tf.addfile(info, io.BytesIO(LOG))
    (tmp_path / "links.tar").write_bytes(buf.getvalue())
    out, notes = _read_all([str(tmp_path / "links.tar")])
    assert list(out.values()) == [LOG]
    assert sorted(n.rsplit("!", 1)[1] for n in notes.skipped) == [
        "logs/hard.log",
        "logs/passwd.log",
    ]


def test_folder_symlinks_never_lead_out_of_the_input(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.log").write_bytes(OOM)
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    (logs / "sub" / "train.log").write_bytes(LOG)
    (logs / "out.log").symlink_to(outside / "secret.log")
    (logs / "outdir").symlink_to(outside, target_is_directory=True)
    (logs / "latest.log").symlink_to(logs / "sub" / "train.log")
    (logs / "loop-a").symlink_to(logs / "loop-b")
    (logs / "loop-b").symlink_to(logs / "loop-a")
    out, notes = _read_all([str(logs)])
    assert out == {"sub/train.log": LOG}
    why = dict(n.split(": skipped: ", 1) for n in notes.notes)
    assert "out of the input" in why["out.log"]
    assert "out of the input" in why["outdir/"]
    assert why["latest.log"] == "symbolic link to sub/train.log, read under that name"
    assert "does not resolve" in why["loop-a"] and "does not resolve" in why["loop-b"]
    named, _ = _read_all([str(logs / "out.log")])  # named on the command line: followed
    assert list(named.values()) == [OOM]


def test_a_file_that_shrinks_while_read_keeps_what_was_read(tmp_path: Path) -> None:
    """Log rotation with copytruncate empties the file under the reader; reads then
    end early, never fail (no mmap, so no SIGBUS)."""

    f = tmp_path / "train.log"
    f.write_bytes(b"step 1 loss 1.0\n" * 300_000)
    notes = SourceNotes()
    for stream in iter_streams([str(f)], notes):
        first = stream.reader.read(1 << 20)
        os.truncate(f, 100)
        rest = stream.reader.read()
        assert first and len(first) + len(rest) < f.stat().st_size + (3 << 20)
    assert notes.notes == []


@pytest.mark.slow
def test_a_folder_of_6000_small_files(tmp_path: Path) -> None:
    """Many-file bundles cost per-file overhead only (~150 us a file here): no
    per-file state grows without bound, and the one real failure is still found. (6,000
    files, past the largest per-file table, 4,096 files; the hostile corpus walks larger
    trees under a deadline.)"""
    from analyzer import analyze

    for d in range(6):
        sub = tmp_path / f"node-{d:03d}"
        sub.mkdir()
        for i in range(1000):
            (sub / f"rank_{d * 1000 + i}.log").write_bytes(b"step 1 loss 2.0\n")
    (tmp_path / "node-004" / "rank_4420.log").write_bytes(OOM)
    v = analyze(tmp_path)
    assert v.stats.files == 6_000
    assert v.category == "device_oom" and v.root_cause is not None
    assert v.root_cause.file == "node-004/rank_4420.log" and v.root_cause.rank == 4420


def test_sockets_device_files_and_empty_files_in_a_folder(tmp_path: Path) -> None:
    """Special files are skipped with a note and never opened (a read from a socket or a
    character device can block forever); an empty file is read, as zero lines."""
    import socket
    import stat as st

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "agent.sock"))
    try:
        (tmp_path / "empty.log").write_bytes(b"")
        (tmp_path / "ok.log").write_bytes(LOG)
        device = tmp_path / "null.log"
        try:
            os.mknod(device, 0o600 | st.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
        except (PermissionError, OSError):
            device = None  # not root here: sockets alone stand for special files
        out, notes = _read_all([str(tmp_path)])
    finally:
        sock.close()
    assert out == {"empty.log": b"", "ok.log": LOG}
    assert "agent.sock" in notes.skipped
    if device is not None:
        assert "null.log" in notes.skipped


def test_a_file_rotated_while_read_is_read_to_the_end_of_what_was_opened(tmp_path: Path) -> None:
    """logrotate's rename-and-create: the open file keeps its content, the new empty file
    is not mixed in."""
    f = tmp_path / "train.log"
    f.write_bytes(b"step 1 loss 1.0\n" * 200_000)
    notes = SourceNotes()
    for stream in iter_streams([str(f)], notes):
        first = stream.reader.read(1 << 20)
        f.rename(tmp_path / "train.log.1")
        f.write_bytes(b"new file\n")
        rest = stream.reader.read()
        assert len(first) + len(rest) == 16 * 200_000 and b"new file" not in rest


def _kill_log() -> bytes:
    runs = Path(__file__).resolve().parent.parent / "corpora" / "torchrun" / "runs"
    return (runs / "kill" / "logs" / "launcher.log").read_bytes() * 20


@pytest.mark.parametrize("kind", ["gzip", "zstd-frames", "zstd-corrupt", "zstd-whole"])
def test_a_truncated_or_corrupt_compressed_log_keeps_what_was_decoded(
    tmp_path: Path, kind: str
) -> None:
    """Issue 18, point 10: a log compressed while it was still written (cut short) gives
    every line decoded before the cut and a note that says so: gzip lost the last 1 MiB
    it had decoded, and zstd read as complete and empty. A corrupt frame is a note; a
    file of several whole frames is read whole, without one."""
    import gzip

    import zstandard

    data = _kill_log()
    half = len(data) // 2
    first = zstandard.ZstdCompressor().compress(data[:half])
    second = zstandard.ZstdCompressor().compress(data[half:])
    path = tmp_path / ("job.log.gz" if kind == "gzip" else "job.log.zst")
    if kind == "gzip":
        packed = gzip.compress(data)
        path.write_bytes(packed[: len(packed) // 2])
    elif kind == "zstd-frames":
        path.write_bytes(first + second[: len(second) // 3])
    elif kind == "zstd-corrupt":
        bad = bytearray(first)
        bad[len(bad) // 2] ^= 0xFF
        path.write_bytes(bytes(bad))
    else:
        path.write_bytes(first + second)
    v = analyze(path, model=False)
    notes = " ".join(v.stats.notes)
    if kind == "zstd-whole":
        assert v.stats.bytes == len(data) and not notes and v.category == "host_oom"
    elif kind == "zstd-corrupt":
        assert "zstd" in notes and "corrupt" in notes.lower()
    else:
        assert v.stats.bytes >= (half if kind == "zstd-frames" else 8192), v.stats
        assert "read stopped early" in notes and "kept what was read" in notes
        assert v.category == "host_oom"  # the evidence before the cut
