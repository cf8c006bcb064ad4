"""Write a synthetic record-shard dataset; optionally damage parts of it (see caseNN.sh)."""
import argparse
import os
import struct

import torch
from torch.utils.data.distributed import DistributedSampler

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--n", type=int, default=16384)
p.add_argument("--dim", type=int, default=64)
p.add_argument("--shards", type=int, default=8)
p.add_argument("--val-shards", type=int, default=4)
p.add_argument("--val-n", type=int, default=512)
p.add_argument("--world", type=int, default=4)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--poison", default="", help="RANK:STEP:POS -> that record's features become 3e38")
p.add_argument("--bad-header", default="", help="RANK:STEP:POS -> that record's length field becomes 0x7ff00000")
p.add_argument("--cut-val", type=int, default=-1, help="cut this val shard to 60%% of its size")
a = p.parse_args()

g = torch.Generator().manual_seed(7)
w = torch.randn(a.dim, 1, generator=g) / a.dim ** 0.5
x = torch.randn(a.n, a.dim, generator=g)
y = torch.tanh(x @ w) + 0.05 * torch.randn(a.n, 1, generator=g)


def global_index(spec):
    r, s, pos = (int(v) for v in spec.split(":"))
    order = list(DistributedSampler(range(a.n), num_replicas=a.world, rank=r, shuffle=True, seed=0))
    return order[(s - 1) * a.batch + pos]


poison = global_index(a.poison) if a.poison else -1
bad = global_index(a.bad_header) if a.bad_header else -1
if poison >= 0:
    x[poison] = 3e38
    print("poisoned record", poison)
if bad >= 0:
    print("bad header record", bad)

os.makedirs(os.path.join(a.out, "train"), exist_ok=True)
per = a.n // a.shards
for s in range(a.shards):
    with open(os.path.join(a.out, "train", f"part-{s:05d}.rec"), "wb") as f:
        for i in range(s * per, (s + 1) * per):
            payload = torch.cat([x[i], y[i]]).numpy().tobytes()
            n = 0x7FF00000 if i == bad else len(payload)
            f.write(struct.pack("<i", n) + payload)

if a.val_shards:
    os.makedirs(os.path.join(a.out, "val"), exist_ok=True)
    for s in range(a.val_shards):
        vx = torch.randn(a.val_n, a.dim, generator=g)
        vy = torch.tanh(vx @ w)
        path = os.path.join(a.out, "val", f"val-{s:03d}.pt")
        torch.save({"x": vx, "y": vy}, path)
        if s == a.cut_val:
            os.truncate(path, os.path.getsize(path) * 6 // 10)
            print("cut", path)
print("wrote", a.out)
