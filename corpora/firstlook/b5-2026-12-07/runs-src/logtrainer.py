#!/usr/bin/env python3
"""Small DDP classifier trainer that reports through Python logging.

Logger names carry the global rank ("pretrain.rank3"), the format is a custom
pipe-separated one. Features used by the b5 cases:
  * periodic evaluation whose metrics are averaged over a separate gloo
    "metrics" process group (unless EVAL_METRICS_LOCAL=1 in the environment:
    then the rank only reports its own numbers -- a debugging switch);
  * checkpoint save / automatic resume from <ckpt-dir>/latest.pt;
  * --stop-at-step: planned end of an allocation segment (save + exit 0).
"""
import argparse
import datetime
import logging
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def setup_logging(rank):
    fmt = "%(asctime)s.%(msecs)03d | %(levelname)-7s | %(name)s | %(message)s"
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter(fmt, datefmt="%Y-%m-%d %H:%M:%S"))
    root = logging.getLogger("pretrain")
    root.handlers[:] = [h]
    root.setLevel(logging.INFO)
    return logging.getLogger("pretrain.rank{}".format(rank))


class TeacherData(Dataset):
    """Deterministic synthetic samples: x ~ N(0, 1), label from a fixed teacher MLP."""

    def __init__(self, n, dim, classes, seed=7, teacher_seed=1):
        g = torch.Generator().manual_seed(teacher_seed)
        self.w1 = torch.randn(dim, 64, generator=g)
        self.w2 = torch.randn(64, classes, generator=g)
        self.n, self.dim, self.seed = n, dim, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        x = torch.randn(self.dim, generator=g)
        y = torch.argmax(torch.tanh(x @ self.w1) @ self.w2)
        return x, y


class Net(nn.Module):
    def __init__(self, dim, width, classes, depth):
        super().__init__()
        layers = [nn.Linear(dim, width), nn.GELU()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.LayerNorm(width), nn.GELU()]
        layers.append(nn.Linear(width, classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader, metrics_pg, log):
    model.eval()
    tot_loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            tot_loss += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(-1) == y).sum().item()
            n += y.numel()
    model.train()
    stats = torch.tensor([tot_loss, float(correct), float(n)], dtype=torch.float64)
    if os.environ.get("EVAL_METRICS_LOCAL", "0") == "1":
        log.debug("EVAL_METRICS_LOCAL=1: reporting rank-local eval metrics")
    else:
        dist.all_reduce(stats, group=metrics_pg)
    return stats[0].item() / stats[2].item(), stats[1].item() / stats[2].item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--eval-every", type=int, default=50)
    p.add_argument("--ckpt-dir", type=str, default="")
    p.add_argument("--save-every", type=int, default=0)
    p.add_argument("--stop-at-step", type=int, default=0)
    p.add_argument("--pg-timeout", type=float, default=60.0, help="seconds")
    args = p.parse_args()

    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    log = setup_logging(rank)
    log.info("process group ready: backend=gloo world_size=%d local_rank=%d host=%s pid=%d",
             world, local_rank, socket.gethostname(), os.getpid())
    metrics_pg = dist.new_group(backend="gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    if rank == 0:
        log.info("config: %s", " ".join("{}={}".format(k, v) for k, v in sorted(vars(args).items())))

    torch.manual_seed(0)
    model = DDP(Net(args.dim, args.width, args.classes, args.depth))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)

    train_ds = TeacherData(16384, args.dim, args.classes, seed=7)
    eval_ds = TeacherData(1024, args.dim, args.classes, seed=99)
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    eval_sampler = DistributedSampler(eval_ds, num_replicas=world, rank=rank, shuffle=False)
    loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, num_workers=args.num_workers,
                        drop_last=True, persistent_workers=args.num_workers > 0)
    eval_loader = DataLoader(eval_ds, batch_size=128, sampler=eval_sampler)
    steps_per_epoch = len(loader)

    step = 0
    latest = os.path.join(args.ckpt_dir, "latest.pt") if args.ckpt_dir else ""
    if latest and os.path.exists(latest):
        ck = torch.load(latest, map_location="cpu")
        model.module.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optim"])
        step = ck["step"]
        log.info("resumed from %s (step=%d, saved by %s at %s)", latest, step, ck["host"], ck["time"])
        # fast-forward the LR schedule to the resumed step
        for _ in range(step):
            sched.step()
        log.info("lr after fast-forward: %.6f", sched.get_last_lr()[0])
    elif latest:
        log.info("no checkpoint found in %s, starting from scratch", args.ckpt_dir)

    epoch = step // steps_per_epoch
    skip = step % steps_per_epoch
    if skip and rank == 0:
        log.warning("resuming mid-epoch: skipping the first %d batches of epoch %d to restore the data order", skip, epoch)
    t0 = time.time()
    running = 0.0
    done = False
    while not done:
        sampler.set_epoch(epoch)
        for bi, (x, y) in enumerate(loader):
            if bi < skip:
                continue
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            running += loss.item()
            if step % args.log_every == 0:
                if rank == 0:
                    dt = time.time() - t0
                    log.info("step %d/%d epoch %d loss %.4f grad_norm %.3f lr %.3e %.1f samples/s",
                             step, args.steps, epoch, running / args.log_every, gn.item(), sched.get_last_lr()[0],
                             args.log_every * args.batch_size * world / dt)
                running = 0.0
                t0 = time.time()
            if args.eval_every and step % args.eval_every == 0:
                vloss, vacc = evaluate(model, eval_loader, metrics_pg, log)
                log.info("eval @ step %d: loss %.4f acc %.4f", step, vloss, vacc)
            if args.ckpt_dir and ((args.save_every and step % args.save_every == 0) or step == args.stop_at_step):
                if rank == 0:
                    os.makedirs(args.ckpt_dir, exist_ok=True)
                    tmp = latest + ".tmp"
                    torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "step": step,
                                "host": socket.gethostname(), "time": time.strftime("%H:%M:%S")}, tmp)
                    os.replace(tmp, latest)
                    log.info("saved checkpoint step=%d -> %s", step, latest)
                dist.barrier()
            if args.stop_at_step and step == args.stop_at_step:
                log.info("reached --stop-at-step=%d (end of this allocation segment); exiting cleanly for requeue", step)
                done = True
                break
            if step >= args.steps:
                done = True
                break
        epoch += 1
        skip = 0
    if step >= args.steps:
        log.info("training finished at step %d", step)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
