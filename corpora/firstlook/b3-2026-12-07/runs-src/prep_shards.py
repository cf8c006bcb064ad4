"""Writes pre-tokenised shards shard-000.pt .. for run-10: --sizes N0,N1,... samples each (padded to --max-len)."""
import argparse, os, random, torch
p = argparse.ArgumentParser(); p.add_argument("--out"); p.add_argument("--sizes"); p.add_argument("--max-len", type=int, default=64)
a = p.parse_args(); os.makedirs(a.out, exist_ok=True)
for k, n in enumerate(int(s) for s in a.sizes.split(",")):
    g = random.Random(k); t = torch.zeros(n, a.max_len, dtype=torch.long)
    for i in range(n):
        ln = g.randint(8, a.max_len); t[i, :ln] = torch.tensor([g.randrange(1, 512) for _ in range(ln)])
    tgt = (t.float().sum(1, keepdim=True) / (t != 0).sum(1, keepdim=True)) / 512
    torch.save({"tokens": t, "target": tgt}, os.path.join(a.out, f"shard-{k:03d}.pt"))
