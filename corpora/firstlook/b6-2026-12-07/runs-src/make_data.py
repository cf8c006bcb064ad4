"""Synthetic datasets for the b6 runs."""
import json, os, random, sys
import numpy as np
kind, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = random.Random(7)
def seq(n):  # a learnable-ish pattern with noise
    a = rng.randrange(512); s = rng.choice([1, 2, 3, 5])
    return [((a + s * i) % 512) if rng.random() > 0.1 else rng.randrange(512) for i in range(n)]
if kind == "jsonl-shards":      # out/shard-0000N.jsonl with input_ids
    for k in range(int(sys.argv[3]) if len(sys.argv) > 3 else 8):
        with open(os.path.join(out, f"shard-{k:05d}.jsonl"), "w") as f:
            for _ in range(1500):
                f.write(json.dumps({"input_ids": seq(65)}) + "\n")
elif kind == "text-jsonl":      # out/corpus.jsonl with text/source fields
    words = "the model data train loss step node rank batch token gradient layer weight bias norm".split()
    with open(os.path.join(out, "corpus.jsonl"), "w") as f:
        for i in range(20000):
            f.write(json.dumps({"id": i, "source": rng.choice(["web", "books", "code"]),
                                "text": " ".join(rng.choice(words) for _ in range(rng.randint(20, 60)))}) + "\n")
elif kind == "tokens-bin":      # out/train.bin uint16 tokens
    arr = np.array(seq(2_000_000), dtype=np.uint16)
    arr.tofile(os.path.join(out, "train.bin"))
elif kind == "images":          # out/images.npy float32 N x 3 x 64 x 64 + labels
    n = 2048
    x = np.random.RandomState(0).randn(n, 3, 64, 64).astype(np.float32)
    y = np.random.RandomState(1).randint(0, 10, n)
    x[np.arange(n), y % 3, :8, :8] += 2.0
    np.save(os.path.join(out, "images.npy"), x); np.save(os.path.join(out, "labels.npy"), y)
elif kind == "tabular":         # out/features.npy N x 32, targets.npy
    r = np.random.RandomState(3)
    x = r.randn(200000, 32).astype(np.float32); w = r.randn(32).astype(np.float32)
    np.save(os.path.join(out, "features.npy"), x); np.save(os.path.join(out, "targets.npy"), (x @ w + 0.1 * r.randn(200000)).astype(np.float32))
