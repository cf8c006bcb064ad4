#!/usr/bin/env python3
"""Classifier training in the style of a ColossalAI Booster script (TorchDDPPlugin):
rich-style logger lines from colossalai's logger on the master, tqdm epoch bars on rank 0,
booster.save_model / save_optimizer checkpoints."""
import argparse, datetime, inspect, os, sys, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
from tqdm import tqdm
import b9core as C

def _now(): return datetime.datetime.now().strftime("[%m/%d/%y %H:%M:%S]")
_last = [None]
class DistLogger:
    def __init__(s, name): s.name = name
    def info(s, msg, ranks=None):
        r = int(os.environ.get("RANK", 0))
        if ranks is not None and r not in ranks: return
        f = inspect.stack()[1]
        t = _now(); pre = t if t != _last[0] else " " * len(t); _last[0] = t
        print("%s INFO     %s - %s - INFO: %s:%d %s" % (pre, s.name, s.name, f.filename, f.lineno, f.function))
        print("%s INFO     %s - %s - INFO: %s" % (" " * len(t), s.name, s.name, msg))
    warning = info

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data"); ap.add_argument("--ckpt"); ap.add_argument("--epochs", type=int, default=7)
    ap.add_argument("--batch-size", type=int, default=32); ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--plugin", default="torch_ddp")
    a = ap.parse_args()
    logger = DistLogger("colossalai")
    rank, world, local = C.setup()
    logger.info("Distributed environment is initialized, world size: %d" % world, ranks=[0])
    model = C.MLP(hidden=384)
    logger.info("Booster init: plugin=TorchDDPPlugin, mixed_precision=None, params=%.2fM" % (C.nparams(model) / 1e6), ranks=[0])
    model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    train = C.ShardSet(a.data); val = C.ShardSet(a.data, "val")
    sampler = DistributedSampler(train, shuffle=True, seed=42)
    dl = DataLoader(train, batch_size=a.batch_size, sampler=sampler, drop_last=True)
    vdl = DataLoader(val, batch_size=256, sampler=DistributedSampler(val, shuffle=False))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=a.epochs * len(dl))
    for ep in range(a.epochs):
        sampler.set_epoch(ep); model.train()
        with tqdm(dl, desc=f"Epoch [{ep + 1}/{a.epochs}]", disable=rank != 0, mininterval=3, file=sys.stdout) as pbar:
            for x, y in pbar:
                loss = F.cross_entropy(model(x), y)
                opt.zero_grad(set_to_none=True); loss.backward(); opt.step(); sched.step()
                pbar.set_postfix({"loss": "%.4f" % loss.item()}, refresh=False)
        vl, acc = C.evaluate(model, vdl)
        logger.info("Epoch %d: val loss %.4f, accuracy %.2f%%" % (ep + 1, vl, acc * 100), ranks=[0])
        if rank == 0:
            os.makedirs(a.ckpt, exist_ok=True)
            torch.save(model.module.state_dict(), os.path.join(a.ckpt, "model_epoch%d.pt" % (ep + 1)))
            torch.save(opt.state_dict(), os.path.join(a.ckpt, "optimizer_epoch%d.pt" % (ep + 1)))
        dist.barrier()
        logger.info("Saved checkpoint to %s (model_epoch%d.pt, optimizer_epoch%d.pt)" % (a.ckpt, ep + 1, ep + 1), ranks=[0])
    logger.info("Finish training", ranks=[0])
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
