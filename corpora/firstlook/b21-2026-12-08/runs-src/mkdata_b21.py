# b21 synthetic data.  usage: mkdata_b21.py KIND OUTDIR NSHARDS ROWS
#   KIND=text : OUTDIR/part-NNNNN.txt (ROWS lines of 33 space-separated word tokens "wNNN" from a sparse markov
#               chain over 500 words), OUTDIR/valid.txt, OUTDIR/vocab.txt (one token per line, specials first)
#   KIND=feat : OUTDIR/feat-NNNNN.npy float32 (ROWS, 33): 32 features + class id (10 classes) in the last column,
#               OUTDIR/heldout.npy
import sys, os, numpy as np
kind, out, n, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out, exist_ok=True)
if kind == "text":
    V, L = 500, 33
    nxt = np.random.default_rng(1).integers(0, V, size=(V, 4))
    def lines(rng, r):
        res = []
        for _ in range(r):
            t, toks = int(rng.integers(0, V)), []
            for _ in range(L):
                t = int(nxt[t, rng.integers(0, 4)]) if rng.random() > 0.1 else int(rng.integers(0, V))
                toks.append("w%03d" % t)
            res.append(" ".join(toks))
        return res
    for i in range(n):
        with open(os.path.join(out, "part-%05d.txt" % i), "w") as f:
            f.write("\n".join(lines(np.random.default_rng(200 + i), rows)) + "\n")
    with open(os.path.join(out, "valid.txt"), "w") as f:
        f.write("\n".join(lines(np.random.default_rng(9), 96)) + "\n")
    with open(os.path.join(out, "vocab.txt"), "w") as f:
        f.write("\n".join(["<pad>", "<s>", "</s>", "<unk>"] + ["w%03d" % i for i in range(V)]) + "\n")
else:
    W = np.random.default_rng(3).normal(size=(32, 10))
    def feats(rng, r):
        x = rng.normal(size=(r, 32)).astype(np.float32)
        y = np.argmax(x @ W + rng.normal(scale=1.5, size=(r, 10)), axis=1).astype(np.float32)
        return np.concatenate([x, y[:, None]], axis=1)
    for i in range(n):
        np.save(os.path.join(out, "feat-%05d.npy" % i), feats(np.random.default_rng(300 + i), rows))
    np.save(os.path.join(out, "heldout.npy"), feats(np.random.default_rng(11), 256))
