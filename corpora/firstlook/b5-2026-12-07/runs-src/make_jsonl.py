#!/usr/bin/env python3
"""Write a small synthetic text-classification corpus as JSONL shards.

usage: make_jsonl.py OUT_DIR [--shards 8] [--per-shard 1000] [--seed 3]
Each line: {"id": int, "text": str, "label": int}. Words for each label are
drawn from a label-specific slice of a fixed word list plus shared filler.
"""
import argparse
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--shards", type=int, default=8)
p.add_argument("--per-shard", type=int, default=1000)
p.add_argument("--labels", type=int, default=4)
p.add_argument("--seed", type=int, default=3)
a = p.parse_args()
rng = random.Random(a.seed)
syll = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "qu", "da"]
words = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(3000)})
rng.shuffle(words)
filler = words[:400]
topical = [words[400 + k * 300: 400 + (k + 1) * 300] for k in range(a.labels)]
os.makedirs(a.out, exist_ok=True)
i = 0
for s in range(a.shards):
    with open(os.path.join(a.out, "train-{:05d}-of-{:05d}.jsonl".format(s, a.shards)), "w") as f:
        for _ in range(a.per_shard):
            lab = rng.randrange(a.labels)
            n = rng.randint(8, 24)
            toks = [rng.choice(topical[lab]) if rng.random() < 0.35 else rng.choice(filler) for _ in range(n)]
            f.write(json.dumps({"id": i, "text": " ".join(toks), "label": lab}) + "\n")
            i += 1
print("wrote", i, "examples to", a.out)
