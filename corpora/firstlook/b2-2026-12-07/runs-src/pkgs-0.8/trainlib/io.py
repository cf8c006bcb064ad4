"""Checkpoint I/O helpers."""
import glob
import io
import os
import re

import torch


def atomic_save(obj, path, chunk=1 << 20, legacy=False):
    """Serialize to memory, write to path.tmp, fsync, rename."""
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    data = buf.getbuffer()
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for off in range(0, len(data), chunk):
            f.write(data[off:off + chunk])
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return len(data)


def latest_checkpoint(ckpt_dir, pattern=r"step_(\d+)\.pt$"):
    found = []
    for p in glob.glob(os.path.join(ckpt_dir, "*")):
        m = re.search(pattern, p)
        if m:
            found.append((int(m.group(1)), p))
    found.sort()
    return found


def prune(ckpt_dir, keep):
    found = latest_checkpoint(ckpt_dir)
    for _, p in found[:-keep] if keep > 0 else []:
        os.remove(p)
