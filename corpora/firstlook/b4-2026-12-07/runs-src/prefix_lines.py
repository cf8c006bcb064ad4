#!/usr/bin/env python3
"""Collector shim: read a node's console on stdin and append it, line by line, to a
shared file, prefixed the way a log collector would (srun --label: 'N: ';
kubectl logs --prefix --timestamps: '[pod/NAME/CONTAINER] <RFC3339Nano> ')."""
import datetime
import sys
import time

mode, tag, out = sys.argv[1], sys.argv[2], sys.argv[3]
with open(out, "ab", buffering=0) as f:
    for raw in sys.stdin.buffer:
        if mode == "srun":
            pre = f"{tag}: ".encode()
        else:
            ns = time.time_ns()
            ts = datetime.datetime.fromtimestamp(ns // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
            pre = f"[pod/{tag}/pytorch] {ts}.{ns % 10**9:09d}Z ".encode()
        if not raw.endswith(b"\n"):
            raw += b"\n"
        f.write(pre + raw)
