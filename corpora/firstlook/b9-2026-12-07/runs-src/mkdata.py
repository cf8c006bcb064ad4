"""Synthetic classification data: <out>/index.json + shard-XXXX.npz (x float32 [n,64], y int64)."""
import json, os, sys
import numpy as np
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(9)
W = rng.normal(size=(64, 10)).astype(np.float32)
shards = []
for i in range(8):
    x = rng.normal(size=(2048, 64)).astype(np.float32)
    y = (x @ W + 0.5 * rng.normal(size=(2048, 10))).argmax(1).astype(np.int64)
    f = "shard-%04d.npz" % i; np.savez(os.path.join(out, f), x=x, y=y)
    shards.append({"file": f, "num_samples": 2048})
json.dump({"version": 1, "dim": 64, "num_classes": 10, "shards": shards}, open(os.path.join(out, "index.json"), "w"), indent=1)
