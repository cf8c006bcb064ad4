# token shards: OUTDIR/shard-NNNN.npy, int16 array (ROWS, 65) from a fixed sparse markov chain; OUTDIR/val.npy
import sys, os, numpy as np
out, n, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); L = 65; V = 1024
os.makedirs(out, exist_ok=True)
trans = np.random.default_rng(0).integers(0, V, size=(V, 3))
def gen(rng, r):
    a = np.empty((r, L), dtype=np.int16)
    for i in range(r):
        t = int(rng.integers(0, V))
        for j in range(L):
            t = int(trans[t, rng.integers(0, 3)]) if rng.random() > 0.08 else int(rng.integers(0, V))
            a[i, j] = t
    return a
for i in range(n):
    np.save(os.path.join(out, "shard-%04d.npy" % i), gen(np.random.default_rng(100 + i), rows))
np.save(os.path.join(out, "val.npy"), gen(np.random.default_rng(7), 128))
