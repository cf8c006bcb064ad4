"""Shared pieces for the b9 trainers: process-group setup, an MLP classifier, a shard
dataset driven by index.json, small helpers."""
import os, json, datetime
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
from torch.utils.data import Dataset

def env_ranks():
    return int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)), int(os.environ.get("LOCAL_RANK", 0))

def setup(timeout_s=120):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))
    return env_ranks()

class MLP(nn.Module):
    def __init__(s, dim=64, hidden=512, ncls=10, depth=3):
        super().__init__()
        layers = [nn.Linear(dim, hidden), nn.GELU()]
        for _ in range(depth - 1):
            layers += [nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU()]
        s.body = nn.Sequential(*layers); s.head = nn.Linear(hidden, ncls)
    def forward(s, x): return s.head(s.body(x))

def nparams(m): return sum(p.numel() for p in m.parameters())

class ShardSet(Dataset):
    def __init__(s, root, split="train"):
        with open(os.path.join(root, "index.json")) as f:
            s.index = json.load(f)
        xs, ys = [], []
        for sh in s.index["shards"]:
            z = np.load(os.path.join(root, sh["file"])); xs.append(z["x"]); ys.append(z["y"])
        x = np.concatenate(xs); y = np.concatenate(ys); nval = len(x) // 16
        s.x, s.y = (x[:nval], y[:nval]) if split == "val" else (x[nval:], y[nval:])
    def __len__(s): return len(s.x)
    def __getitem__(s, i): return torch.from_numpy(s.x[i]), int(s.y[i])

def allreduce_mean(v):
    t = torch.tensor([float(v)]); dist.all_reduce(t); return t.item() / dist.get_world_size()

@torch.no_grad()
def evaluate(model, loader):
    model.eval(); tot = torch.zeros(3)
    for x, y in loader:
        out = model(x)
        tot += torch.tensor([F.cross_entropy(out, y, reduction="sum").item(), (out.argmax(-1) == y).sum().item(), len(y)])
    dist.all_reduce(tot); model.train()
    return (tot[0] / tot[2]).item(), (tot[1] / tot[2]).item()

def grad_norm(model):
    return torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters() if p.grad is not None)).item()
