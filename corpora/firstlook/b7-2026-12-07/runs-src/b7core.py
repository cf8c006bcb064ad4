"""Small shared pieces for the b7 trainers: env/process-group setup, a tiny causal LM,
a token-window reader over a uint16 file."""
import os, datetime, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist

def dist_env(timeout_s=120):
    rank = int(os.environ.get("RANK", 0)); world = int(os.environ.get("WORLD_SIZE", 1))
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout_s))
    return rank, world, local

class Block(nn.Module):
    def __init__(s, d, h):
        super().__init__()
        s.ln1 = nn.LayerNorm(d); s.att = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d); s.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(s, x, mask):
        y = s.ln1(x); x = x + s.att(y, y, y, attn_mask=mask, need_weights=False)[0]
        return x + s.ff(s.ln2(x))

class TinyLM(nn.Module):
    def __init__(s, vocab=512, d=128, layers=2, heads=4, ctx=64):
        super().__init__()
        s.tok = nn.Embedding(vocab, d); s.pos = nn.Embedding(ctx, d)
        s.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        s.ln = nn.LayerNorm(d); s.head = nn.Linear(d, vocab, bias=False)
        s.register_buffer("mask", torch.triu(torch.full((ctx, ctx), float("-inf")), 1), persistent=False)
    def forward(s, idx):
        T = idx.shape[1]
        x = s.tok(idx) + s.pos(torch.arange(T))
        for b in s.blocks: x = b(x, s.mask[:T, :T])
        return s.head(s.ln(x))

def lm_loss(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

class Windows:
    """Random windows of ctx+1 tokens from a uint16 file (np.memmap)."""
    def __init__(s, path, ctx, seed):
        s.a = np.memmap(path, dtype=np.uint16, mode="r"); s.ctx = ctx
        s.g = np.random.default_rng(seed)
    def __len__(s): return len(s.a)
    def batch(s, bs):
        ix = s.g.integers(0, len(s.a) - s.ctx - 1, size=bs)
        w = np.stack([np.asarray(s.a[i:i + s.ctx + 1], dtype=np.int64) for i in ix])
        w = torch.from_numpy(w)
        return w[:, :-1], w[:, 1:]

def nparams(m): return sum(p.numel() for p in m.parameters())
