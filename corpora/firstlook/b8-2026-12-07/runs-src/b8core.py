"""Shared pieces for the b8 trainers: process-group setup, an MLP classifier, a shard
reader driven by index.json, checkpoint helpers."""
import os, json, time, datetime
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

def setup(timeout_s=None):
    rank = int(os.environ.get("RANK", 0)); world = int(os.environ.get("WORLD_SIZE", 1))
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.set_num_threads(1)
    t = timeout_s or int(os.environ.get("B8_PG_TIMEOUT", "120"))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=t))
    return rank, world, local

class MLP(nn.Module):
    def __init__(s, dim=64, hidden=512, ncls=10, depth=3, value_head=False):
        super().__init__()
        layers = [nn.Linear(dim, hidden), nn.GELU()]
        for _ in range(depth - 1):
            layers += [nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU()]
        s.body = nn.Sequential(*layers)
        s.head = nn.Linear(hidden, ncls)
        s.value = nn.Linear(hidden, 1) if value_head else None
    def forward(s, x):
        h = s.body(x)
        if s.value is not None:
            return s.head(h), s.value(h).squeeze(-1)
        return s.head(h)

def nparams(m): return sum(p.numel() for p in m.parameters())

class ShardData:
    """Reads <root>/index.json, loads the listed .npz shards, serves rank-strided batches."""
    def __init__(s, root, rank=0, world=1, seed=0, split="train"):
        with open(os.path.join(root, "index.json")) as f:
            s.index = json.load(f)
        xs, ys = [], []
        for sh in s.index["shards"]:
            z = np.load(os.path.join(root, sh["file"]))
            xs.append(z["x"]); ys.append(z["y"])
        x = np.concatenate(xs); y = np.concatenate(ys)
        nval = len(x) // 16
        if split == "val":
            x, y = x[:nval], y[:nval]
        else:
            x, y = x[nval:], y[nval:]
        s.x = torch.from_numpy(x[rank::world].copy()); s.y = torch.from_numpy(y[rank::world].copy())
        s.g = torch.Generator().manual_seed(seed + rank)
        s.epoch = 0
    def __len__(s): return len(s.x)
    def steps_per_epoch(s, bs): return len(s.x) // bs
    def epoch_batches(s, bs):
        p = torch.randperm(len(s.x), generator=s.g)
        for i in range(len(s.x) // bs):
            j = p[i * bs:(i + 1) * bs]
            yield s.x[j], s.y[j]
        s.epoch += 1
    def forever(s, bs):
        while True:
            yield from s.epoch_batches(bs)

def accuracy(logits, y): return (logits.argmax(-1) == y).float().mean().item()

def allreduce_mean(v):
    t = torch.tensor([float(v)]); dist.all_reduce(t); return t.item() / dist.get_world_size()

@torch.no_grad()
def evaluate(model, data, bs=256):
    model.eval(); tot = torch.zeros(3)
    for x, y in data.epoch_batches(bs):
        out = model(x); out = out[0] if isinstance(out, tuple) else out
        tot += torch.tensor([F.cross_entropy(out, y, reduction="sum").item(), (out.argmax(-1) == y).sum().item(), len(y)])
    dist.all_reduce(tot); model.train()
    return (tot[0] / tot[2]).item(), (tot[1] / tot[2]).item()

def grad_norm(model):
    return torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters() if p.grad is not None)).item()
