"""Synthetic classification shards + index.json: mkdata.py OUTDIR [n_shards] [per_shard]"""
import json, os, sys
import numpy as np
out = sys.argv[1]; ns = int(sys.argv[2]) if len(sys.argv) > 2 else 8; per = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
os.makedirs(out, exist_ok=True)
g = np.random.default_rng(1234); dim, ncls = 64, 10
centers = g.normal(0, 1.0, size=(ncls, dim)).astype(np.float32)
idx = {"version": 2, "dim": dim, "num_classes": ncls, "shards": []}
for s in range(ns):
    y = g.integers(0, ncls, size=per)
    x = (centers[y] + g.normal(0, 3.2, size=(per, dim))).astype(np.float32)
    fn = "shard-%05d.npz" % s
    np.savez(os.path.join(out, fn), x=x, y=y.astype(np.int64))
    idx["shards"].append({"file": fn, "num_samples": per, "sha1": None})
json.dump(idx, open(os.path.join(out, "index.json"), "w"), indent=2)
print("wrote", ns, "shards to", out)
