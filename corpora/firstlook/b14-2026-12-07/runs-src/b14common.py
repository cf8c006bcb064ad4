"""Shared bits for the b14 trainer scripts: process group, tiny models, shard datasets."""
import datetime
import glob
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn


def init_dist():
    timeout = int(os.environ.get("TRAIN_PG_TIMEOUT_S", "1800"))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=timeout))
    return dist.get_rank(), dist.get_world_size(), int(os.environ.get("LOCAL_RANK", "0"))


class TinyGPT(nn.Module):
    def __init__(self, vocab=512, d=128, n_layer=2, n_head=4, block=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(block, d)
        layer = nn.TransformerEncoderLayer(d, n_head, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.block = block

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        mask = torch.triu(torch.full((t, t), float("-inf")), 1)
        x = self.blocks(x, mask=mask, is_causal=True)
        return self.head(self.ln(x))


class TinyUNet(nn.Module):
    def __init__(self, cin=1, ncls=3, w=8):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv2d(cin, w, 3, padding=1), nn.InstanceNorm2d(w, affine=True), nn.LeakyReLU(0.01))
        self.e2 = nn.Sequential(nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.InstanceNorm2d(2 * w, affine=True), nn.LeakyReLU(0.01))
        self.up = nn.ConvTranspose2d(2 * w, w, 2, stride=2)
        self.d1 = nn.Sequential(nn.Conv2d(2 * w, w, 3, padding=1), nn.InstanceNorm2d(w, affine=True), nn.LeakyReLU(0.01))
        self.out = nn.Conv2d(w, ncls, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(a)
        return self.out(self.d1(torch.cat([a, self.up(b)], 1)))


class SmallCNN(nn.Module):
    def __init__(self, ncls=10):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(32, ncls)

    def forward(self, x):
        return self.fc(self.f(x))


def shard_paths(data_dir, pattern="*.npy"):
    return sorted(glob.glob(os.path.join(data_dir, pattern)))


def make_token_shards(data_dir, n_shards=8, rows=256, block=65, vocab=512, seed=0):
    os.makedirs(data_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(n_shards):
        np.save(os.path.join(data_dir, f"train-{i:05d}-of-{n_shards:05d}.npy"),
                rng.integers(0, vocab, size=(rows, block), dtype=np.int64))


def make_image_shards(data_dir, n_shards=8, rows=64, size=32, seed=0, chans=1):
    os.makedirs(data_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(n_shards):
        x = rng.standard_normal((rows, chans, size, size)).astype(np.float32)
        y = (x[:, 0] > 0.5).astype(np.int64) + (x[:, 0] > 1.2).astype(np.int64)
        np.savez(os.path.join(data_dir, f"case_{i:04d}.npz"), data=x, seg=y)


if __name__ == "__main__":
    import sys
    kind, d = sys.argv[1], sys.argv[2]
    if kind == "tokens":
        make_token_shards(d)
    else:
        make_image_shards(d, chans=int(sys.argv[3]) if len(sys.argv) > 3 else 1)
