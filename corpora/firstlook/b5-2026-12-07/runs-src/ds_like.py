#!/usr/bin/env python3
"""Small CNN trained data-parallel, logging in the DeepSpeed engine's style.

Log lines use DeepSpeed's logger format
"[time] [LEVEL] [file:line:func] msg" and its step/throughput messages, printed
by hand (DeepSpeed itself is not used). Checkpoints mimic a ZeRO-1 layout:
every rank writes its own optimizer partition
<save_dir>/global_step<N>/zero_pp_rank_<r>_mp_rank_00_optim_states.pt, rank 0
also writes mp_rank_00_model_states.pt and the 'latest' tag file.
"""
import argparse
import datetime
import logging
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

logger = logging.getLogger("DeepSpeed")


def setup_logger():
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter("[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] %(message)s"))
    logger.handlers[:] = [h]
    logger.setLevel(logging.INFO)
    logger.propagate = False


def log_dist(msg, ranks=(0,)):
    r = dist.get_rank()
    if ranks is None or -1 in ranks or r in ranks:
        logger.info("[Rank {}] {}".format(r, msg))


class SmallCNN(nn.Module):
    def __init__(self, classes=8):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))


def make_batch(g, bsz, protos):
    y = torch.randint(0, protos.size(0), (bsz,), generator=g)
    x = protos[y] + 0.8 * torch.randn(bsz, 1, 16, 16, generator=g)
    return x, y


def save_checkpoint(save_dir, step, model, opt, rank, world):
    tag = "global_step{}".format(step)
    d = os.path.join(save_dir, tag)
    os.makedirs(d, exist_ok=True)
    if rank == 0:
        path = os.path.join(d, "mp_rank_00_model_states.pt")
        log_dist("Saving model checkpoint: {}".format(path), ranks=[0])
        logger.info("[Torch] Saving {}...".format(path))
        torch.save({"module": model.module.state_dict(), "global_steps": step, "dp_world_size": world}, path)
        logger.info("[Torch] Saved {}.".format(path))
    # ZeRO-1 style: each rank owns the optimizer state of every world-th tensor
    sd = opt.state_dict()
    part = {k: v for k, v in sd["state"].items() if k % world == rank}
    path = os.path.join(d, "zero_pp_rank_{}_mp_rank_00_optim_states.pt".format(rank))
    logger.info("[Torch] Saving {}...".format(path))
    torch.save({"optimizer_state_dict": {"state": part, "param_groups": sd["param_groups"]},
                "ds_version": "0.0.0-handwritten"}, path)
    logger.info("[Torch] Saved {}.".format(path))
    dist.barrier()
    if rank == 0:
        with open(os.path.join(save_dir, "latest"), "w") as f:
            f.write(tag)
    log_dist("zero checkpoint saved {}".format(os.path.join(d, "zero_pp_rank_{}_mp_rank_00_optim_states.pt".format(rank))),
             ranks=[0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--train-steps", type=int, default=1000)
    p.add_argument("--micro-batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--steps-per-print", type=int, default=20)
    p.add_argument("--save-dir", type=str, default="")
    p.add_argument("--save-interval", type=int, default=0)
    args = p.parse_args()

    setup_logger()
    torch.set_num_threads(1)
    logger.info("Setting ds_accelerator to cpu (auto detect)")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    logger.info("Initializing TorchBackend in DeepSpeed with backend gloo")
    log_dist("DeepSpeed info: version=0.0.0-handwritten, git-hash=unknown, git-branch=unknown", ranks=[0])
    torch.manual_seed(0)
    protos = torch.randn(8, 1, 16, 16, generator=torch.Generator().manual_seed(5))
    model = DDP(SmallCNN())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 50))
    log_dist("Creating ZeRO stage 1 optimizer", ranks=[0])
    log_dist("DeepSpeed Final Optimizer = Adam", ranks=[0])
    log_dist("DeepSpeed using configured LR scheduler = WarmupLR", ranks=[0])
    log_dist("DeepSpeed LR Scheduler = {}".format(sched.__class__.__name__), ranks=[0])
    log_dist("step=0, skipped=0, lr=[{}], mom=[(0.9, 0.999)]".format(sched.get_last_lr()[0]), ranks=[0])
    if rank == 0:
        logger.info("DeepSpeedEngine configuration:")
        for k, v in [("train_batch_size", args.micro_batch * world), ("train_micro_batch_size_per_gpu", args.micro_batch),
                     ("gradient_accumulation_steps", 1), ("steps_per_print", args.steps_per_print),
                     ("zero_optimization.stage", 1), ("checkpoint.save_dir", args.save_dir)]:
            logger.info("  {} {} {}".format(k, "." * (32 - len(k)), v))
    g = torch.Generator().manual_seed(100 + rank)
    t_int = time.time()
    fwd_t = bwd_t = step_t = 0.0
    for step in range(1, args.train_steps + 1):
        x, y = make_batch(g, args.micro_batch, protos)
        t0 = time.time()
        loss = F.cross_entropy(model(x), y)
        t1 = time.time()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        t2 = time.time()
        opt.step()
        sched.step()
        t3 = time.time()
        fwd_t += t1 - t0
        bwd_t += t2 - t1
        step_t += t3 - t2
        if step % args.steps_per_print == 0:
            n = args.steps_per_print
            el = time.time() - t_int
            log_dist("step={}, skipped=0, lr=[{:.6g}], mom=[(0.9, 0.999)]".format(step, sched.get_last_lr()[0]), ranks=[0])
            log_dist("time (ms) | fwd_microstep: {:.2f} | bwd_microstep: {:.2f} | step_microstep: {:.2f}".format(
                fwd_t * 1000 / n, bwd_t * 1000 / n, step_t * 1000 / n), ranks=[0])
            if rank == 0:
                logger.info("epoch=0/micro_step={}/global_step={}, RunningAvgSamplesPerSec={:.2f}, CurrSamplesPerSec={:.2f}, "
                            "MemAllocated=0.0GB, MaxMemAllocated=0.0GB".format(
                                step, step, n * args.micro_batch * world / el, args.micro_batch * world / (el / n)))
                print("steps: {} loss: {:.4f} iter time (s): {:.3f} samples/sec: {:.3f}".format(
                    step, loss.item(), el / n, n * args.micro_batch * world / el), flush=True)
            t_int = time.time()
            fwd_t = bwd_t = step_t = 0.0
        if args.save_dir and args.save_interval and step % args.save_interval == 0:
            save_checkpoint(args.save_dir, step, model, opt, rank, world)
    log_dist("training done after {} steps".format(args.train_steps), ranks=[0])
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
