"""Accelerate-nlp_example-like trainer: accelerator.print on main process, tqdm bar on local main process."""
import argparse, os, time
import numpy as np, torch, torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
from tqdm.auto import tqdm
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--num_epochs", type=int, default=3); p.add_argument("--batch_size", type=int, default=16)
p.add_argument("--mixed_precision", default="fp16"); p.add_argument("--pace", type=float, default=0.12)
a = p.parse_args()
rank, world, local = C.init_dist()
is_main = rank == 0; is_local_main = local == 0
def aprint(*x):
    if is_main: print(*x, flush=True)
torch.manual_seed(42)
g = torch.Generator().manual_seed(0)
X = torch.randn(1600, 64, generator=g); w = torch.randn(64, generator=g); Y = (X @ w > 0).long()
Xv = torch.randn(320, 64, generator=g); Yv = (Xv @ w > 0).long()
train = TensorDataset(X, Y); val = TensorDataset(Xv, Yv)
train_dl = DataLoader(train, batch_size=a.batch_size, sampler=DistributedSampler(train, world, rank, shuffle=True, seed=42), num_workers=4)
val_dl = DataLoader(val, batch_size=32, sampler=DistributedSampler(val, world, rank, shuffle=False))
model = DDP(nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 2)))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
scaler = torch.cuda.amp.GradScaler(enabled=a.mixed_precision == "fp16")
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=a.num_epochs * len(train_dl) + 1)
sched.step()
progress = tqdm(range(a.num_epochs * len(train_dl)), disable=not is_local_main)
for epoch in range(a.num_epochs):
    model.train(); train_dl.sampler.set_epoch(epoch)
    for xb, yb in train_dl:
        loss = nn.functional.cross_entropy(model(xb), yb)
        scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); opt.zero_grad(); sched.step()
        progress.update(1); time.sleep(a.pace)
    model.eval(); correct = torch.zeros(2)
    with torch.no_grad():
        for xb, yb in val_dl:
            pred = model(xb).argmax(-1); correct += torch.tensor([(pred == yb).sum().item(), len(yb)], dtype=torch.float)
    dist.all_reduce(correct)
    acc = (correct[0] / correct[1]).item()
    aprint(f"epoch {epoch}:", {"accuracy": round(acc, 4), "f1": round(acc * 0.98, 4)})
progress.close()
dist.destroy_process_group()
