"""Synthetic data for the b7 runs: a uint16 token stream with learnable structure
(order-1 Markov chain, 4 successors per token over a 512-token vocabulary), split into shards, plus small
synthetic 3x32x32 'images' with 100 classes."""
import numpy as np, os, sys
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)
V = 512
T = rng.integers(0, V, size=(V, 4))
n = 4_000_000
x = np.empty(n, dtype=np.uint16); x[0] = 1; x[1] = 2
choice = rng.integers(0, 4, size=n); noise = rng.random(n) < 0.1; rnd = rng.integers(0, V, size=n)
for i in range(2, n):
    x[i] = rnd[i] if noise[i] else T[int(x[i-1]), choice[i]]
x.tofile(os.path.join(out, "tokens.bin"))
for s in range(8):
    x[s * n // 8:(s + 1) * n // 8].tofile(os.path.join(out, "shard-%05d.bin" % s))
C = 100
proto = rng.normal(size=(C, 3, 32, 32)).astype(np.float32)
lab = rng.integers(0, C, size=20000)
img = (proto[lab] + 1.5 * rng.normal(size=(20000, 3, 32, 32))).astype(np.float16)
np.save(os.path.join(out, "images.npy"), img); np.save(os.path.join(out, "labels.npy"), lab.astype(np.int64))
print("ok", x[:20])
