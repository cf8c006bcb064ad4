#!/usr/bin/env python3
"""Write N token shards (raw little-endian uint16, like nanoGPT's .bin files).

usage: make_token_bins.py OUT_DIR [--shards 600] [--tokens 8256] [--vocab 2048]
Tokens follow a fixed random bigram table so a model can learn something.
"""
import argparse
import os

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--shards", type=int, default=600)
p.add_argument("--tokens", type=int, default=8256)
p.add_argument("--vocab", type=int, default=2048)
a = p.parse_args()
rng = np.random.default_rng(11)
table = rng.integers(0, a.vocab, size=(a.vocab, 3))
os.makedirs(a.out, exist_ok=True)
for s in range(a.shards):
    t = np.empty(a.tokens, dtype=np.uint16)
    t[0] = rng.integers(a.vocab)
    ch = rng.integers(0, 3, size=a.tokens)
    for i in range(1, a.tokens):
        t[i] = table[t[i - 1], ch[i]]
    t.tofile(os.path.join(a.out, "shard_{:05d}.bin".format(s)))
print("wrote", a.shards, "shards to", a.out)
