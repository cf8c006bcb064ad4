from __future__ import annotations

from datetime import datetime, timezone

import pytest

from analyzer.read.lines import clean, parse_time, strip_prefix
from analyzer.rules.formats import builtin


def _epoch(*args: int) -> float:
    return datetime(*args, tzinfo=timezone.utc).timestamp()  # type: ignore[misc]


def test_clean_strips_ansi_and_splits_carriage_return_redraws() -> None:
    raw = "\x1b[31mERROR\x1b[0m boom"
    assert clean(raw) == ["ERROR boom"]
    bar = " 10%|#    | 1/10\r 20%|##   | 2/10\rRuntimeError: CUDA error\r\n"
    assert clean(bar) == [" 10%|#    | 1/10", " 20%|##   | 2/10", "RuntimeError: CUDA error"]


@pytest.mark.parametrize(
    ("line", "fields", "rest"),
    [
        (
            "[rank3]: Traceback (most recent call last):",
            {"rank": "3"},
            "Traceback (most recent call last):",
        ),
        ("[default12]:[rank4]: KeyError: 'x'", {"local_rank": "12", "rank": "4"}, "KeyError: 'x'"),
        ("3: RuntimeError: boom", {"task": "3"}, "RuntimeError: boom"),
        ("[1,5]<stderr>:NCCL WARN x", {"rank": "5"}, "NCCL WARN x"),
        ("Tue Nov 10 10:05:04 2020[13]<stderr>:  what():  boom", {"rank": "13"}, " what():  boom"),
        (
            "2026-12-01T20:31:05.123456789Z 1: [default0]:boom",
            {"task": "1", "local_rank": "0"},
            "boom",
        ),
        ("plain line", {}, "plain line"),
    ],
)
def test_rank_prefixes(line: str, fields: dict[str, str], rest: str) -> None:
    """What each launcher's prefix says: [defaultN]: is a LOCAL rank, [rankN]: global."""
    msg = strip_prefix(line)
    assert msg.prefix == fields
    assert msg.text == rest


@pytest.mark.parametrize(
    ("line", "rank"),
    [
        ("[PG ID 0 PG GUID 0(default_pg) Rank 7] Process group watchdog thread terminated", 7),
        ("[Rank 3] Watchdog caught collective operation timeout", 3),
        ("[ERROR] 2024-10-09-10:06:30 (PID:1506967, Device:1, RankID:1) ERR02200 DIST", 1),
        ("worker started rank=4 world_size=8", 4),
        ("lmdeploy - ERROR - model_agent.py:489 - Rank[2] failed.", 2),
        ("RankID:-1 no rank", None),
    ],
)
def test_inline_rank(line: str, rank: int | None) -> None:
    got = builtin().claims_of(line).get("rank")
    assert (int(got) if got is not None else None) == rank


def test_hosts_from_syslog_and_nccl_prefixes() -> None:
    claims = builtin().claims_of
    assert claims("Nov 29 10:00:01 node3 kernel: [12.5] NVRM: Xid").get("host") == "node3"
    nccl = claims("gpu-a12:1234:5678 [0] transport/net_ib.cc:881 NCCL WARN NET/IB")
    assert (nccl.get("host"), nccl.get("pid"), nccl.get("device")) == ("gpu-a12", "1234", "0")
    assert claims("no host here").get("host") is None


@pytest.mark.parametrize(
    ("line", "epoch", "zone"),
    [
        ("2026-11-29T10:00:01Z msg", _epoch(2026, 11, 29, 10, 0, 1), True),
        ("2026-11-29T18:00:01.500+08:00 msg", _epoch(2026, 11, 29, 10, 0, 1) + 0.5, True),
        ("2026-11-29 10:00:01,123 - INFO - x", _epoch(2026, 11, 29, 10, 0, 1) + 0.123, False),
        (
            "[ERROR] HCCL(1,python):2026-11-29-10:00:01.123.456 [x]",
            _epoch(2026, 11, 29, 10, 0, 1) + 0.123456,
            False,
        ),
        (
            "[rank0]:[E1129 10:00:01.250000 12 ProcessGroupNCCL.cpp:1]",
            _epoch(2026, 11, 29, 10, 0, 1) + 0.25,
            False,
        ),
        # torch's c10 logging leaves the month unpadded (ai2cm/ace#851, axolotl#2684)
        (
            "[rank7]:[E218 10:48:25.033625188 ProcessGroupNCCL.cpp:632] [Rank 7] Watchdog",
            _epoch(2026, 2, 18, 10, 48, 25) + 0.033625,
            False,
        ),
        (
            "[rank1]:[W516 14:34:56.853490829 socket.cpp:464] [c10d] waitForInput",
            _epoch(2026, 5, 16, 14, 34, 56) + 0.853490,
            False,
        ),
        ("Nov 29 10:00:01 node3 kernel: x", _epoch(2026, 11, 29, 10, 0, 1), False),
        ("Tue Nov 10 10:05:04 2020[13]<stderr>: x", _epoch(2020, 11, 10, 10, 5, 4), False),
        ("1764410401.5 event", 1764410401.5, True),
    ],
)
def test_timestamps(line: str, epoch: float, zone: bool) -> None:
    t = parse_time(line, 2026)
    assert t is not None
    assert t.absolute
    assert t.epoch == pytest.approx(epoch, abs=1e-5)
    assert t.has_zone == zone


def test_dmesg_uptime_is_not_wall_clock() -> None:
    t = parse_time("[12345.678901] NVRM: Xid (PCI:0000:3b:00): 79", 2026)
    assert t is not None and not t.absolute and t.epoch == pytest.approx(12345.678901)
    assert t.iso() is None


def test_year_less_formats_take_the_given_year() -> None:
    t = parse_time("I0301 00:00:00.000000 1 x.cc:1] hi", 2023)
    assert t is not None and t.iso() == "2023-03-01T00:00:00.000"


def test_no_timestamp_and_invalid_dates() -> None:
    assert parse_time("just text 12:00", 2026) is None
    assert parse_time("2026-13-45 10:00:00 bad month", 2026) is None


def test_pdsh_host_prefix_is_stripped_and_kept() -> None:
    msg = strip_prefix("worker-1: [rank9]: KeyError: 'x'")
    assert (msg.prefix, msg.text) == ({"host": "worker-1", "rank": "9"}, "KeyError: 'x'")
    assert strip_prefix("10.0.0.5: RuntimeError: x").prefix.get("host") == "10.0.0.5"
    assert strip_prefix("RuntimeError: x").prefix.get("host") is None
    assert strip_prefix("boto3.exceptions.S3UploadFailedError: x").prefix.get("host") is None
    assert strip_prefix("slurmstepd-c117: error: x").prefix.get("host") is None
    assert strip_prefix("node017: x").prefix.get("host") == "node017"
    assert strip_prefix("dgx-a100-07: x").prefix.get("host") == "dgx-a100-07"
    for tool in (
        "accept4: Too many open files",
        "e1000e: link down",
        "nvme0n1: I/O error",
        "sda1: x",
    ):
        assert strip_prefix(tool).prefix.get("host") is None, tool


@pytest.mark.parametrize(
    ("text", "needle", "expected"),
    [
        ('skipping known issue: "GPU has fallen off the bus" again', "GPU has", True),
        ("print: will retry on 'Xid 79' errors", "Xid 79", True),
        ("docs \u201cuncorrectable ECC error\u201d here", "uncorrectable", True),
        ("RuntimeError('CUDA error: uncorrectable ECC error encountered')", "CUDA error", False),
        ('{"level": "error", "msg": "NVRM: Xid 79"}', "NVRM", False),
        ('Message: "The node was low on resource: memory."', "The node", False),
        ('eviction_manager.go:627] "Eviction manager: pod is evicted"', "Eviction", False),
        ("Unexpected result nan (message='found NaN in local forward loss')", "found NaN", False),
        ("I can't say 'no' when CUDA error: out of memory", "CUDA error", False),
        ("NCCL WARN Cuda failure 'out of memory'", "Cuda failure", False),
        ("'nvidia.com/gpu' device marked unhealthy: GPU-1", "'nvidia.com/gpu' device", False),
        ('msg="CUDA error: out of memory" level=error', "CUDA error", False),
        ("sample: {'id': 1831, 'text': 'NVRM: Xid 79, GPU has fallen off the bus.'}", "NVRM", True),
        ('{"level": "info", "msg": "eval sample", "sample": "NVRM: Xid 79"}', "NVRM", True),
        ("lines = ['NVRM: Xid 79', 'ok']", "NVRM", True),
        ("summary: {'last': 'CUDA error: out of memory'}", "CUDA error", True),
    ],
)
def test_quoted_tells_a_quoting_person_from_a_quoting_framework(
    text: str, needle: str, expected: bool
) -> None:
    from analyzer.read.lines import quoted

    start = text.index(needle)
    assert quoted(text, start, len(text) if "device" in needle else start + len(needle)) is expected
