# write N shards of (rows, 1+13+4) float32: [label, dense x13, sparse ids x4]
import sys, os, numpy as np
out, n, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pos = float(sys.argv[4]) if len(sys.argv) > 4 else 0.25
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(17)
for i in range(n):
    dense = rng.standard_normal((rows, 13)).astype(np.float32)
    sparse = rng.integers(0, 1000, (rows, 4)).astype(np.float32)
    logit = dense[:, :3].sum(1) * 0.8 + np.log(pos / (1 - pos))
    y = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    np.save(os.path.join(out, "part-%05d.npy" % i), np.concatenate([y[:, None], dense, sparse], 1))
print("wrote", n, "shards to", out)
