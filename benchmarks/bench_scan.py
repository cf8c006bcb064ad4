"""Scan throughput and peak memory of ha-analyze beside cat and grep on the same file.

Generates a realistic training log deterministically with benchmarks/genlogs.py
(Megatron-style iteration lines, NCCL INFO chatter, Python logging, tqdm redraws,
warnings, the odd caught traceback, a CUDA OOM at the end), then times, in one run on
this machine:
  cat FILE > /dev/null
  grep -c -E -f SIGNATURES FILE      (the built-in signature regexes converted to ERE, C locale)
  ha-analyze FILE --format json      (per automaton engine on one core, then on all cores)
and prints MB/s and peak RSS; with --compress the same for a gzip or zstd copy (the
decompressor alone is then the floor), with --job a multi-file job read by 1, 2 and all
cores. Ratios within one run are the figures to compare; absolute numbers depend on the
machine and its load.

With --profile (benchmarks/profiles.py: sparse, dense, plog, tqdm, job256, console, console-bare, console64; or all) each
profile is measured instead of the plain log, at --mib (default 64), against what a user
would grep for (benchmarks/usersets.py):
  cat FILE > /dev/null               (or the decompressor: the reading floor)
  grep -c -E -f user.ere FILE        (one hand-written ERE per signature, C locale)
  grep -c -F -f literals.txt FILE    (the catalogue's literals)
  the automaton pass alone           (start-up, reading, the engine's scan; no verdict:
                                      the floor of this design, and its ratio to grep)
  ha-analyze FILE --format json --workers 1, and --workers 2
  Hyperscan's bare scan                (the catalogue's database over the file's blocks in
                                      memory, matches unreported: above any design's ceiling)
with the speed ratios ha-analyze/grep, the share of lines the user EREs and the engine's
automaton flag, and whether the verdict names the planted root cause (category, line).

    python benchmarks/bench_scan.py [--mib 100 --mib 1024] [--compress gzip] [--job 16x64] [--repeat 3]
    python benchmarks/bench_scan.py --profile all [--mib 64] [--compress zstd] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import genlogs  # benchmarks/genlogs.py: this script's folder is sys.path[0]
import profiles
import usersets

from analyzer.read.scan import BLOCK
from analyzer.rules.automaton import available_engines
from analyzer.rules.export import to_ere
from analyzer.rules.matcher import Matcher
from analyzer.rules.signatures import load_patterns

OUT = Path(__file__).parent / "out"
REPO = Path(__file__).resolve().parent.parent


def grep_ere(rx: str) -> str | None:
    """The signature's ERE form (analyzer.rules.export), if GNU grep also builds it quickly."""
    ere = to_ere(rx)
    if ere is None:
        return None
    try:  # GNU grep builds some large bounded repeats very slowly: leave those out
        ok = subprocess.run(
            ["grep", "-E", "-e", ere, "/dev/null"], capture_output=True, check=False, timeout=2
        )
    except subprocess.TimeoutExpired:
        return None
    return None if ok.returncode == 2 else ere  # 2: grep cannot parse it


def timed(cmd: str, repeat: int) -> tuple[float, int]:
    """Best wall time over `repeat` runs and the peak RSS (KiB) of the command.

    The RSS comes from GNU time around `sh -c`: a child forked from this process would
    start with this process's own RSS as its peak.
    """
    best, peak = float("inf"), 0
    with tempfile.NamedTemporaryFile() as rss:
        for _ in range(repeat):
            t = time.perf_counter()
            status = subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", rss.name, "sh", "-c", cmd],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            ).returncode
            best = min(best, time.perf_counter() - t)
            peak = max(peak, int(Path(rss.name).read_text().split()[-1]))
            if status not in (0, 1):
                raise SystemExit(f"{cmd} failed with {status}")
    return best, peak


def _table(title: str, size_mb: float, rows: list[tuple[str, float, int]], base: int) -> None:
    print(title)
    print(f"{'command':<60} {'seconds':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    for name, secs, rss in rows:
        print(f"{name:<60} {secs:>8.2f} {size_mb / secs:>8.0f} {rss / 1024:>13.1f}")
    for name, secs, _ in rows[base + 1 :]:
        print(f"  {name}: {rows[base][1] / secs:.2f}x the speed of `{rows[base][0]}`")
    print()


def _decompress(path: Path) -> str:
    return {".gz": "gzip -dc", ".zst": "zstd -dc"}.get(path.suffix, "cat")


def bench_file(log: Path, ere: str, exe: str, repeat: int) -> None:
    """One file: its reading floor (cat, or the decompressor), grep on the plain bytes,
    ha-analyze on each engine."""
    plain = log.with_suffix("") if log.suffix in (".gz", ".zst") else log
    size_mb = plain.stat().st_size / 1e6
    floor = _decompress(log)
    rows = [(f"{floor} > /dev/null", *timed(f"{floor} {log} > /dev/null", repeat))]
    grep = f"LC_ALL=C grep -c -E -f {ere}"
    # into a file: with stdout on /dev/null GNU grep stops at the first match
    cmd = f"{grep} {plain} > {ere}.out" if floor == "cat" else f"{floor} {log} | {grep} > {ere}.out"
    rows.append((f"{'' if floor == 'cat' else floor + ' | '}grep -c -E -f", *timed(cmd, repeat)))
    for engine in available_engines():
        rows.append(
            (
                f"ha-analyze --engine {engine} --workers 1",
                *timed(f"{exe} {log} --format json --engine {engine} --workers 1", repeat),
            )
        )
    cores = os.cpu_count() or 1
    if cores > 1:  # 64 MiB parts of the file on every core
        rows.append((f"ha-analyze --workers {cores}", *timed(f"{exe} {log} --format json", repeat)))
    _table(f"{log.name}: {size_mb:,.0f} MB of log; best of {repeat}", size_mb, rows, 1)


def bench_job(job: Path, ere: str, exe: str, repeat: int, grep: bool) -> None:
    """A multi-file job: grep over every file, ha-analyze with one worker and with all."""
    files = sorted(str(p) for p in job.glob("rank_*"))
    size_mb = sum(os.stat(f).st_size for f in files) / 1e6
    cores = os.cpu_count() or 1
    rows = [("cat", *timed(f"cat {job}/rank_* > /dev/null", repeat))]
    if grep:
        rows.append(
            (
                "grep -c -E -f",
                *timed(f"LC_ALL=C grep -c -E -f {ere} {job}/rank_* > {ere}.out", repeat),
            )
        )
    for n in sorted({1, 2, cores}):
        rows.append(
            (
                f"ha-analyze --workers {n}",
                *timed(f"{exe} {job} --format json --workers {n}", repeat),
            )
        )
    base = 1 if grep else 0
    _table(
        f"{job.name}: {len(files)} files, {size_mb:,.0f} MB; best of {repeat}", size_mb, rows, base
    )
    one = rows[base + 1][1]
    for name, secs, _ in rows[base + 2 :]:
        print(f"  {name}: {one / secs:.2f}x one worker")
    print()


def analyzer_command() -> str:
    """The ha-analyze to time: the installed script if it runs, else this checkout's
    package through the interpreter (an editable install whose source moved leaves a
    script that cannot import analyzer).

    Run with its bytecode cached, as pip installs it: a shell that sets
    PYTHONDONTWRITEBYTECODE would have every timed run compile ~40 modules (~60 ms), and
    the run before the timings (on an empty file) fills that cache and the engine's.
    """
    env = f"env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={OUT / 'pycache'}"
    exe = shutil.which("ha-analyze")
    ok = exe is not None and subprocess.run([exe, "--help"], capture_output=True).returncode == 0
    cmd = f"{env} {exe}" if ok else f"{env} PYTHONPATH={REPO} {sys.executable} -m analyzer"
    with tempfile.NamedTemporaryFile(suffix=".log") as empty:
        subprocess.run(f"{cmd} {empty.name}", shell=True, capture_output=True, check=False)
    return cmd


def _rank_files(path: Path) -> list[Path]:
    return sorted(path.glob("rank_*")) if path.is_dir() else [path]


def _reader(path: Path) -> BinaryIO:
    if path.suffix == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if path.suffix == ".zst":
        import zstandard

        return zstandard.ZstdDecompressor().stream_reader(path.open("rb"))
    return path.open("rb")


def _blocks(path: Path) -> Iterator[bytes]:
    """The file in ~BLOCK pieces cut after a newline, as the engine's scan sees them."""
    carry = b""
    with _reader(path) as f:
        while chunk := f.read(BLOCK):
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            carry = data[cut:]
            yield data[:cut]
    if carry:
        yield carry


def flagged(paths: list[Path]) -> dict[str, int]:
    """Lines, and lines the engine's automaton hands on: with a signature candidate (step
    lines sampled as in a scan), and in all (also error-word and line-format hits)."""
    matcher = Matcher(load_patterns())
    auto, err = matcher.automaton, matcher.error_index
    lines = sig = anything = 0
    for path in paths:
        for block in _blocks(path):
            lines += block.count(b"\n") + (not block.endswith(b"\n"))
            hits = auto.scan(block)
            anything += len(hits)
            sig += sum(1 for _, _, sigs in hits if any(i < err for i in sigs))
    return {"lines": lines, "signature": sig, "any": anything}


def engine_ceiling(paths: list[Path], repeat: int) -> float | None:
    """MB/s of the catalogue's Hyperscan database alone over the profile's blocks, in
    memory, in this process, its matches not even reported (no start-up, no reading, no
    callback): more than any design that scans with Hyperscan can reach. None without
    Hyperscan."""
    matcher = Matcher(load_patterns())
    db = getattr(matcher.automaton, "_db", None)
    if db is None:
        return None
    import hyperscan as hs

    blocks = [b for path in paths for b in _blocks(path)]
    scratch = hs.Scratch(db)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for b in blocks:
            db.scan(b, match_event_handler=None, scratch=scratch)
        best = min(best, time.perf_counter() - t0)
    return sum(map(len, blocks)) / 1e6 / best


def _count(out: Path) -> int:
    """The total of a grep -c output (`N`, or `file:N` per file)."""
    return sum(int(line.rsplit(":", 1)[-1]) for line in out.read_text().split())


def _verdict(exe: str, path: Path, record: dict[str, Any]) -> str:
    """Whether ha-analyze's verdict names the planted cause: category, file and line."""
    r = subprocess.run(
        f"{exe} {path} --format json --workers 1",
        shell=True,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        v = json.loads(r.stdout)
    except ValueError:
        return f"no verdict (exit {r.returncode}): {r.stderr.strip()[-200:]}"
    rc = v.get("root_cause") or {}
    got = (v.get("category"), Path(str(rc.get("file"))).name, rc.get("line"))
    want = (record["category"], record["file"], record["line"])
    if got == want:
        return f"OK: {got[0]} at {got[1]} line {got[2]} ({rc.get('signature')})"
    return (
        f"MISMATCH: got {got[0]} at {got[1]} line {got[2]} ({rc.get('signature')}), planted "
        f"{want[0]} at {want[1]} line {want[2]} ({record['signature']})"
    )


def bench_profile(
    kind: str, path: Path, sets: dict[str, Path], exe: str, repeat: int, stats: bool
) -> dict[str, Any]:
    """One profile: the reading floor, grep with the user sets, ha-analyze on 1 and 2
    workers; then hit fractions and the verdict check. Returns the figures."""
    record = json.loads(genlogs.record_of(path).read_text())
    files = _rank_files(path)
    names = " ".join(str(f) for f in files)
    size_mb = record["bytes_written"] / 1e6
    floor = _decompress(files[0])
    out = sets["ere"].with_name(f"{kind}.out")
    rows = [(f"{floor} > /dev/null", *timed(f"{floor} {names} > /dev/null", repeat))]
    for flag, patterns in (("-E", sets["ere"]), ("-F", sets["literals"])):
        grep = f"LC_ALL=C grep -c {flag} -f {patterns}"
        # into a file: with stdout on /dev/null GNU grep stops at the first match
        cmd = f"{grep} {names} > {out}" if floor == "cat" else f"{floor} {names} | {grep} > {out}"
        label = f"{'' if floor == 'cat' else floor + ' | '}grep -c {flag} -f {patterns.name}"
        rows.append((label, *timed(cmd, repeat)))
    # The design's floor: start-up, catalogue, reading and the automaton pass, no verdict.
    here = Path(__file__).resolve()
    floor_cmd = f"PYTHONPATH={REPO} {sys.executable} {here} --automaton-pass {names}"
    rows.append(("automaton pass alone (no verdict)", *timed(floor_cmd, repeat)))
    for n in (1, 2):
        rows.append(
            (
                f"ha-analyze --format json --workers {n}",
                *timed(f"{exe} {path} --format json --workers {n}", repeat),
            )
        )
    what = f"{len(files)} files, " if len(files) > 1 else ""
    print(f"== profile {kind}: {path.name}: {what}{size_mb:,.0f} MB of log; best of {repeat}")
    print(f"{'command':<60} {'seconds':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    for name, secs, rss in rows:
        print(f"{name:<60} {secs:>8.2f} {size_mb / secs:>8.0f} {rss / 1024:>13.1f}")
    result: dict[str, Any] = {"kind": kind, "mb": size_mb, "rows": rows}
    for name, secs, _ in rows[3:]:
        ratios = ", ".join(
            f"{rows[i][1] / secs:.3g}x the speed of {g}"
            for i, g in ((1, "grep -E"), (2, "grep -F"))
        )
        print(f"  {name}: {ratios}")
        result[name] = {"vs_grep_E": rows[1][1] / secs, "vs_grep_F": rows[2][1] / secs}
    if stats:
        counts = {}
        for key, flag in (("ere", "-E"), ("ere_events", "-E"), ("literals", "-F")):
            cmd = f"LC_ALL=C grep -c {flag} -f {sets[key]}"
            full = (
                f"{cmd} {names} > {out}" if floor == "cat" else f"{floor} {names} | {cmd} > {out}"
            )
            subprocess.run(full, shell=True, check=False)
            counts[key] = _count(out)
        f = flagged(files)
        n = f["lines"]
        print(
            f"  lines {n:,}: user EREs match {counts['ere'] / n:.2%} (without progress "
            f"signatures {counts['ere_events'] / n:.2%}), literals {counts['literals'] / n:.2%}; "
            f"automaton flags {f['any'] / n:.2%} (signature candidates {f['signature'] / n:.2%})"
        )
        result |= {"lines": n, "counts": counts, "flagged": f}
    ceiling = None if floor != "cat" else engine_ceiling(files, repeat)
    if ceiling is not None:
        grep_e = size_mb / rows[1][1]
        print(
            f"  Hyperscan's bare scan, in memory, matches unreported: {ceiling:,.0f} MB/s "
            f"({ceiling / grep_e:.2f}x grep -E)"
        )
        result["hyperscan_alone"] = {"mb_s": ceiling, "vs_grep_E": ceiling / grep_e}
    verdict = _verdict(exe, path, record)
    print(f"  verdict: {verdict}\n")
    result["verdict"] = verdict
    return result


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--mib",
        type=int,
        action="append",
        help="single-file sizes (default 100; 64 with --profile)",
    )
    ap.add_argument("--compress", choices=["none", "gzip", "zstd"], action="append")
    ap.add_argument("--job", help="RANKSxMIB: also a multi-file job, e.g. 16x64 or 256x100")
    ap.add_argument(
        "--distinct",
        type=int,
        default=None,
        help="distinct healthy ranks in --job, the rest hard links (default: all distinct)",
    )
    ap.add_argument("--no-grep", action="store_true", help="leave grep out of --job")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--profile",
        action="append",
        choices=[*profiles.PROFILES, "all"],
        help="benchmark this profile (repeatable; all: every one) instead of the plain log",
    )
    ap.add_argument("--no-stats", action="store_true", help="skip the hit-fraction pass")
    ap.add_argument(
        "--automaton-pass",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="only read FILEs through the engine's automaton and print the line counts",
    )
    a = ap.parse_args()
    if a.automaton_pass:
        print(json.dumps(flagged(a.automaton_pass)))
        return
    OUT.mkdir(exist_ok=True)
    exe = analyzer_command()
    with tempfile.TemporaryDirectory() as tmp:
        if a.profile:
            kinds = profiles.PROFILES if "all" in a.profile else list(dict.fromkeys(a.profile))
            user, lit = usersets.write_sets(Path(tmp))
            events = Path(tmp) / "user-events.ere"
            no_progress = [s for s in load_patterns().signatures if s.role != "progress"]
            events.write_text("".join(e + "\n" for e in usersets.user_eres(no_progress)))
            sets = {"ere": user, "literals": lit, "ere_events": events}
            print(
                f"user sets: {len(user.read_text().splitlines())} EREs, "
                f"{len(lit.read_text().splitlines())} literals (benchmarks/usersets.py), "
                f"LC_ALL=C; ha-analyze = {exe}\n"
            )
            for mib in a.mib or [64]:
                for compress in a.compress or ["none"]:
                    for kind in kinds:
                        dest = profiles.default_path(OUT, kind, mib)
                        path = profiles.make(kind, dest, mib, compress)
                        bench_profile(kind, path, sets, exe, a.repeat, not a.no_stats)
        if not a.profile or a.job:  # the engine's own regexes as ERE (analyzer.rules.export)
            sigs = load_patterns().signatures
            eres = [e for s in sigs for rx in s.match if (e := grep_ere(rx))]
            print(
                f"{len(sigs)} signatures; grep gets {len(eres)} regexes (analyzer.rules.export), LC_ALL=C\n"
            )
            ere = str(Path(tmp) / "signatures.ere")
            Path(ere).write_text("\n".join(eres) + "\n")
            for mib in [] if a.profile else a.mib or [100]:
                for compress in a.compress or ["none"]:
                    log = genlogs.single(OUT / f"train-{mib}MiB.log", mib, compress)
                    if compress != "none":
                        genlogs.single(
                            OUT / f"train-{mib}MiB.log", mib
                        )  # grep reads the plain file
                    bench_file(log, ere, exe, a.repeat)
            if a.job:
                ranks, mib = (int(x) for x in a.job.split("x"))
                job = genlogs.job(OUT / f"job-{ranks}x{mib}MiB", ranks, mib, distinct=a.distinct)
                bench_job(job, ere, exe, a.repeat, not a.no_grep)


if __name__ == "__main__":
    main()
