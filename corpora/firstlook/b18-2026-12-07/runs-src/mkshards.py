# write byte-level token shards in an llm.c-like .bin layout (256 x int32 header, then uint16 tokens)
# usage: mkshards.py OUTDIR PREFIX NSHARDS TOKENS_PER_SHARD [SEED]
import sys, os, glob, numpy as np
out, prefix, n, m = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 0
os.makedirs(out, exist_ok=True)
src = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))
buf = b"".join(open(f, "rb").read() for f in src[:200])
rng = np.random.default_rng(seed)
for i in range(n):
    off = int(rng.integers(0, len(buf) - m))
    tok = np.frombuffer(buf[off:off + m], dtype=np.uint8).astype(np.uint16)
    hdr = np.zeros(256, dtype=np.int32); hdr[0] = 20240520; hdr[1] = 1; hdr[2] = m
    with open(os.path.join(out, f"{prefix}_{i:06d}.bin"), "wb") as f:
        f.write(hdr.tobytes()); f.write(tok.tobytes())
