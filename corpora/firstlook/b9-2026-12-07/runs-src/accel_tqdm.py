#!/usr/bin/env python3
"""Classifier fine-tune written like a Hugging Face `accelerate` no_trainer script:
main-process-only messages via an accelerator.print equivalent, a tqdm progress bar on the
local main process, torchmetrics for eval accuracy, save_state-style checkpoint folders."""
import argparse, math, os, sys, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from tqdm.auto import tqdm
import b9core as C
from torchmetrics.classification import MulticlassAccuracy

class Accel:
    def __init__(s):
        s.rank, s.world, s.local = C.setup()
        s.is_main_process = s.rank == 0; s.is_local_main_process = s.local == 0
    def print(s, *a, **k):
        if s.is_main_process: print(*a, **k)
    def wait_for_everyone(s): dist.barrier()
    def __repr__(s):
        return ("Distributed environment: MULTI_CPU  Backend: gloo\nNum processes: %d\nProcess index: %d\nLocal process index: %d\nDevice: cpu\n\nMixed precision type: no\n" % (s.world, s.rank, s.local))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train_dir"); ap.add_argument("--output_dir"); ap.add_argument("--num_train_epochs", type=int, default=6)
    ap.add_argument("--per_device_train_batch_size", type=int, default=32); ap.add_argument("--learning_rate", type=float, default=5e-4)
    ap.add_argument("--checkpointing_steps", default="epoch"); ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    acc = Accel(); print(repr(acc)) if acc.is_local_main_process else None
    torch.manual_seed(a.seed)
    ds = C.ShardSet(a.train_dir); vds = C.ShardSet(a.train_dir, "val")
    sam = DistributedSampler(ds, seed=a.seed); dl = DataLoader(ds, batch_size=a.per_device_train_batch_size, sampler=sam, drop_last=True)
    vdl = DataLoader(vds, batch_size=128, sampler=DistributedSampler(vds, shuffle=False))
    model = DDP(C.MLP(hidden=384)); opt = torch.optim.AdamW(model.parameters(), lr=a.learning_rate)
    total = a.num_train_epochs * len(dl)
    sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 100) * max(0.0, (total - s) / total))
    metric = MulticlassAccuracy(num_classes=10)
    acc.print("***** Running training *****")
    acc.print(f"  Num examples = {len(ds)}")
    acc.print(f"  Num Epochs = {a.num_train_epochs}")
    acc.print(f"  Instantaneous batch size per device = {a.per_device_train_batch_size}")
    acc.print(f"  Total train batch size (w. parallel, distributed & accumulation) = {a.per_device_train_batch_size * acc.world}")
    acc.print(f"  Gradient Accumulation steps = 1")
    acc.print(f"  Total optimization steps = {total}")
    bar = tqdm(range(total), disable=not acc.is_local_main_process, mininterval=5, file=sys.stderr)
    step = 0
    for ep in range(a.num_train_epochs):
        sam.set_epoch(ep); model.train()
        for x, y in dl:
            loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); sch.step(); opt.zero_grad()
            bar.update(1); step += 1
        model.eval(); metric.reset()
        with torch.no_grad():
            for x, y in vdl: metric.update(model(x).argmax(-1), y)
        t = torch.tensor([metric.compute().item()]); dist.all_reduce(t)
        acc.print(f"epoch {ep}: {{'accuracy': {t.item() / acc.world:.4f}}}")
        out = os.path.join(a.output_dir, f"epoch_{ep}")
        if acc.is_main_process:
            os.makedirs(out, exist_ok=True)
            torch.save(model.module.state_dict(), os.path.join(out, "pytorch_model.bin"))
            torch.save(opt.state_dict(), os.path.join(out, "optimizer.bin")); torch.save(sch.state_dict(), os.path.join(out, "scheduler.bin"))
        acc.wait_for_everyone(); acc.print(f"Saving current state to {out}")
    bar.close(); acc.print("Training completed."); dist.destroy_process_group()

if __name__ == "__main__":
    main()
