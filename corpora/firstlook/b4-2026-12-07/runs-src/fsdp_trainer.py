#!/usr/bin/env python3
"""Residual-MLP regressor sharded with FSDP2 (fully_shard) over gloo on CPU.
Sharded checkpoints via torch.distributed.checkpoint; stdlib logging."""
import argparse
import datetime
import logging
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.elastic.multiprocessing.errors import record
from torch.distributed.fsdp import fully_shard

log = logging.getLogger("fsdp_trainer")


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))


class ResMLP(nn.Module):
    def __init__(self, d_in, d, depth, d_out):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.out = nn.Linear(d, d_out)

    def forward(self, x):
        x = self.inp(x)
        for b in self.blocks:
            x = b(x)
        return self.out(x)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ckpt_dir", default="")
    p.add_argument("--ckpt_every", type=int, default=50)
    p.add_argument("--eval_every", type=int, default=0)
    p.add_argument("--eval_batches", type=int, default=8)
    p.add_argument("--eval_batch", type=int, default=4096)
    p.add_argument("--log_every", type=int, default=10)
    p.add_argument("--pg_timeout", type=int, default=120)
    return p.parse_args()


def synthetic_batch(g, n, d_in, d_out, w_true):
    x = torch.randn(n, d_in, generator=g)
    y = torch.tanh(x @ w_true) + 0.05 * torch.randn(n, d_out, generator=g)
    return x, y


@torch.no_grad()
def evaluate(model, args, w_true, d_in, d_out, step):
    # keep every prediction so the metrics can be computed over the full eval set
    g = torch.Generator().manual_seed(1234 + dist.get_rank())
    preds, targets = [], []
    for _ in range(args.eval_batches):
        x, y = synthetic_batch(g, args.eval_batch, d_in, d_out, w_true)
        preds.append(model(x))
        targets.append(y)
    p = torch.cat(preds)
    t = torch.cat(targets)
    gathered = [torch.empty_like(p) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, p)
    mse = torch.tensor([(p - t).pow(2).mean().item()])
    dist.all_reduce(mse)
    mse = mse.item() / dist.get_world_size()
    log.info("eval step=%d eval_mse=%.5f n_pred=%d", step, mse, sum(x.shape[0] for x in gathered))
    return mse


@record
def main():
    args = parse()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    host = socket.gethostname()
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)-7s [{host}:r{rank}] %(name)s: %(message)s",
    )
    d_in, d_out = 32, 8
    torch.manual_seed(0)
    w_true = torch.randn(d_in, d_out)
    model = ResMLP(d_in, args.width, args.depth, d_out)
    n_params = sum(p.numel() for p in model.parameters())
    for blk in model.blocks:
        fully_shard(blk)
    fully_shard(model)
    local_numel = sum(p.to_local().numel() for p in model.parameters())
    log.info("FSDP2 wrapped ResMLP: %d params total, %d local shard numel, world=%d", n_params, local_numel, world)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)

    start = 0
    if args.ckpt_dir:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        latest = os.path.join(args.ckpt_dir, "latest")
        if os.path.exists(latest):
            with open(latest) as f:
                tag = f.read().strip()
            msd, osd = get_state_dict(model, opt)
            state = {"model": msd, "optim": osd}
            dcp.load(state, checkpoint_id=os.path.join(args.ckpt_dir, tag))
            set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
            start = int(tag.split("_")[-1])
            log.info("resumed from %s", tag)

    g = torch.Generator().manual_seed(rank * 1000 + start)
    t_last = time.time()
    for step in range(start + 1, args.steps + 1):
        x, y = synthetic_batch(g, args.batch, d_in, d_out, w_true)
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % args.log_every == 0:
            l = loss.detach().clone()
            dist.all_reduce(l)
            dt = time.time() - t_last
            t_last = time.time()
            log.info("step=%d loss=%.5f lr=%.2e samples/s=%.1f", step, l.item() / world, args.lr,
                     args.log_every * args.batch * world / dt)
        if args.eval_every and step % args.eval_every == 0:
            evaluate(model, args, w_true, d_in, d_out, step)
        if args.ckpt_dir and step % args.ckpt_every == 0:
            tag = f"step_{step:06d}"
            t = time.time()
            msd, osd = get_state_dict(model, opt)
            dcp.save({"model": msd, "optim": osd}, checkpoint_id=os.path.join(args.ckpt_dir, tag))
            if rank == 0:
                with open(os.path.join(args.ckpt_dir, "latest"), "w") as f:
                    f.write(tag)
            log.info("saved sharded checkpoint %s in %.2fs", tag, time.time() - t)
    log.info("done: %d steps", args.steps)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
