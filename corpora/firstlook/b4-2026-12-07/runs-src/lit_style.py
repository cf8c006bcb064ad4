#!/usr/bin/env python3
"""Small CNN image classifier with a Lightning-flavoured loop: module/trainer
split, model summary table, per-epoch tqdm-like progress lines, epoch=N-step=M.ckpt
checkpoints and --ckpt_path resume. DDP over gloo."""
import argparse
import datetime
import glob
import os
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def rank_zero_print(*a, **k):
    if int(os.environ.get("RANK", 0)) == 0:
        print(*a, **k, flush=True)


class ShardedNpzImages(Dataset):
    """Reads train-XXXXX-of-YYYYY.npz shards listed in <root>/index.txt."""

    def __init__(self, root, split="train"):
        index = os.path.join(root, f"{split}_index.txt")
        with open(index) as f:
            names = [l.strip() for l in f if l.strip()]
        xs, ys = [], []
        for n in names:
            with np.load(os.path.join(root, n)) as z:
                xs.append(z["x"])
                ys.append(z["y"])
        self.x = torch.from_numpy(np.concatenate(xs)).float().div_(255.0)
        self.y = torch.from_numpy(np.concatenate(ys)).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class LitCNN(nn.Module):
    def __init__(self, n_classes=10, lr=1e-3):
        super().__init__()
        self.hparams = {"n_classes": n_classes, "lr": lr}
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * 8 * 8, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.bn(self.conv2(x))), 2)
        return self.fc(x.flatten(1))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams["lr"])


def summarize(model):
    rows = [(n, type(m).__name__, sum(p.numel() for p in m.parameters())) for n, m in model.named_children()]
    total = sum(p.numel() for p in model.parameters())
    w = max(len(r[0]) for r in rows)
    lines = [f"  | Name{' ' * (w - 4)} | Type        | Params", "-" * (w + 30)]
    for i, (n, t, c) in enumerate(rows):
        lines.append(f"{i} | {n:<{w}} | {t:<11} | {c / 1000:.1f} K" if c >= 1000 else f"{i} | {n:<{w}} | {t:<11} | {c}")
    lines += ["-" * (w + 30), f"{total / 1000:.1f} K    Trainable params", "0         Non-trainable params",
              f"{total / 1000:.1f} K    Total params", f"{total * 4 / 1e6:.3f}     Total estimated model params size (MB)"]
    return "\n".join(lines)


class MiniTrainer:
    def __init__(self, max_epochs, default_root_dir, log_every_n_steps=5):
        self.max_epochs = max_epochs
        self.root = default_root_dir
        self.ckpt_dir = os.path.join(default_root_dir, "checkpoints")
        self.log_every = log_every_n_steps
        self.global_step = 0
        self.epoch = 0

    def _bar(self, epoch, i, n, t0, metrics):
        frac = i / n
        filled = int(frac * 10)
        el = time.time() - t0
        rate = i / el if el else 0.0
        rem = (n - i) / rate if rate else 0.0
        m = ", ".join(f"{k}={v}" for k, v in metrics.items())
        return (f"Epoch {epoch}: {int(frac * 100):3d}%|{'█' * filled}{' ' * (10 - filled)}| {i}/{n} "
                f"[{int(el) // 60:02d}:{int(el) % 60:02d}<{int(rem) // 60:02d}:{int(rem) % 60:02d}, {rate:.2f}it/s, {m}]")

    def save_checkpoint(self, model, opt):
        os.makedirs(self.ckpt_dir, exist_ok=True)
        path = os.path.join(self.ckpt_dir, f"epoch={self.epoch}-step={self.global_step}.ckpt")
        torch.save({"epoch": self.epoch, "global_step": self.global_step,
                    "state_dict": model.module.state_dict(), "optimizer_states": [opt.state_dict()],
                    "hparams": model.module.hparams}, path)
        return path

    def fit(self, module, dataset, batch_size, ckpt_path=None):
        rank, world = dist.get_rank(), dist.get_world_size()
        rank_zero_print("GPU available: False, used: False")
        print(f"Initializing distributed: GLOBAL_RANK: {rank}, MEMBER: {rank + 1}/{world}", flush=True)
        rank_zero_print("-" * 100 + f"\ndistributed_backend=gloo\nAll distributed processes registered. "
                        f"Starting with {world} processes\n" + "-" * 100 + "\n")
        model = DDP(module)
        opt = module.configure_optimizers()
        if ckpt_path:
            rank_zero_print(f"Restoring states from the checkpoint path at {ckpt_path}")
            ck = torch.load(ckpt_path, map_location="cpu")
            module.load_state_dict(ck["state_dict"])
            opt.load_state_dict(ck["optimizer_states"][0])
            self.epoch, self.global_step = ck["epoch"] + 1, ck["global_step"]
            rank_zero_print(f"Restored all states from the checkpoint at {ckpt_path}")
        rank_zero_print(summarize(module))
        sampler = DistributedSampler(dataset, shuffle=True)
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=True)
        n = len(loader)
        while self.epoch < self.max_epochs:
            sampler.set_epoch(self.epoch)
            t0 = time.time()
            metrics = {"v_num": 0}
            for i, batch in enumerate(loader, 1):
                x, y = batch
                loss = F.cross_entropy(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.global_step += 1
                if self.global_step % self.log_every == 0:
                    metrics["train_loss"] = f"{loss.item():.3f}"
                if i % max(1, n // 4) == 0 or i == n:
                    rank_zero_print(self._bar(self.epoch, i, n, t0, metrics))
            if rank == 0:
                p = self.save_checkpoint(model, opt)
                rank_zero_print(f"Epoch {self.epoch}, global step {self.global_step}: 'train_loss' reached "
                                f"{float(metrics.get('train_loss', 'nan')):.5f}, saving model to '{p}'")
            dist.barrier()
            self.epoch += 1
        rank_zero_print(f"`Trainer.fit` stopped: `max_epochs={self.max_epochs}` reached.")


@record
def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data_dir", required=True)
    p.add_argument("--default_root_dir", required=True)
    p.add_argument("--max_epochs", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--ckpt_path", default=None)
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=90))
    torch.manual_seed(7)
    ds = ShardedNpzImages(args.data_dir)
    rank_zero_print(f"Loaded {len(ds)} training images from {args.data_dir} on {socket.gethostname()}")
    trainer = MiniTrainer(args.max_epochs, args.default_root_dir)
    trainer.fit(LitCNN(lr=args.lr), ds, args.batch_size, ckpt_path=args.ckpt_path)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
