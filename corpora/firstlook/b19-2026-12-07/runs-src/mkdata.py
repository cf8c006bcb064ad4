# build indexed token shards: <prefix>_NN.bin (raw uint16 tokens) + <prefix>_NN.idx (int64 record offsets, npy)
# usage: mkdata.py OUTDIR PREFIX NSHARDS RECORDS_PER_SHARD RECORD_LEN [SEED]
import sys, os, numpy as np
out, prefix, n, r, L = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
seed = int(sys.argv[6]) if len(sys.argv) > 6 else 0
V = 2048
os.makedirs(out, exist_ok=True)
trans = np.random.default_rng(0).integers(0, V, size=(V, 4))   # fixed sparse markov chain -> learnable
rng = np.random.default_rng(seed)
for i in range(n):
    toks = np.empty(r * L, dtype=np.uint16)
    t = int(rng.integers(0, V))
    for j in range(r * L):
        t = int(trans[t, rng.integers(0, 4)]) if rng.random() > 0.05 else int(rng.integers(0, V))
        toks[j] = t
    np.save(os.path.join(out, f"{prefix}_{i:02d}.idx.npy"), np.arange(0, r * L + 1, L, dtype=np.int64))
    toks.tofile(os.path.join(out, f"{prefix}_{i:02d}.bin"))
