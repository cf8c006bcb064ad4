#!/usr/bin/env python3
"""Writes a tiny synthetic 32x32 RGB 10-class dataset as npz shards + train_index.txt."""
import os
import sys

import numpy as np

out = sys.argv[1]
n_shards = int(sys.argv[2]) if len(sys.argv) > 2 else 4
per = int(sys.argv[3]) if len(sys.argv) > 3 else 256
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
protos = rng.integers(0, 256, size=(10, 3, 32, 32))
names = []
for s in range(n_shards):
    y = rng.integers(0, 10, size=per)
    x = np.clip(protos[y] + rng.normal(0, 60, size=(per, 3, 32, 32)), 0, 255).astype(np.uint8)
    name = f"train-{s:05d}-of-{n_shards:05d}.npz"
    np.savez(os.path.join(out, name), x=x, y=y)
    names.append(name)
with open(os.path.join(out, "train_index.txt"), "w") as f:
    f.write("\n".join(names) + "\n")
print(f"wrote {n_shards} shards x {per} images to {out}")
