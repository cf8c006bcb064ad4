# b22 synthetic data.  usage: mkdata_b22.py KIND OUTDIR NSHARDS ROWS [YDIM] [HELDOUT_ROWS]
#   cls    : shard-NNNNN.npy float32 (ROWS, 33) = 32 features + class id (10 classes); heldout.npy
#   reg    : shard-NNNNN.npy float32 (ROWS, 32+YDIM) = 32 features + YDIM targets; heldout.npy
#   tok    : tokens.bin / valid.bin uint16 token streams (sparse markov chain over 512 ids), NSHARDS*ROWS tokens
#   bandit : env.npy (32, 10) reward matrix
import sys, os, numpy as np
kind, out, n, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ydim = int(sys.argv[5]) if len(sys.argv) > 5 else 32
hrows = int(sys.argv[6]) if len(sys.argv) > 6 else 2048
os.makedirs(out, exist_ok=True)
W = np.random.default_rng(3).normal(size=(32, 10))
A = np.random.default_rng(4).normal(size=(32, ydim)) / 6
def cls(rng, r):
    x = rng.normal(size=(r, 32)).astype(np.float32)
    y = np.argmax(x @ W + rng.normal(scale=1.5, size=(r, 10)), axis=1).astype(np.float32)
    return np.concatenate([x, y[:, None]], axis=1)
def reg(rng, r):
    x = rng.normal(size=(r, 32)).astype(np.float32)
    y = np.tanh(x @ A) + rng.normal(scale=0.05, size=(r, ydim))
    return np.concatenate([x, y.astype(np.float32)], axis=1).astype(np.float32)
if kind in ("cls", "reg"):
    f = cls if kind == "cls" else reg
    for i in range(n):
        np.save(os.path.join(out, "shard-%05d.npy" % i), f(np.random.default_rng(300 + i), rows))
    np.save(os.path.join(out, "heldout.npy"), f(np.random.default_rng(11), hrows))
elif kind == "tok":
    nxt = np.random.default_rng(1).integers(0, 512, size=(512, 4))
    def stream(rng, L):
        t, o = 0, np.empty(L, dtype=np.uint16)
        ch = rng.integers(0, 4, size=L); jump = rng.random(L) < 0.1; rnd = rng.integers(0, 512, size=L)
        for k in range(L):
            t = int(rnd[k]) if jump[k] else int(nxt[t, ch[k]]); o[k] = t
        return o
    stream(np.random.default_rng(7), n * rows).tofile(os.path.join(out, "tokens.bin"))
    stream(np.random.default_rng(9), hrows).tofile(os.path.join(out, "valid.bin"))
elif kind == "bandit":
    np.save(os.path.join(out, "env.npy"), W)
