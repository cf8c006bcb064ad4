"""Small DDP trainer (CPU / gloo) used to produce first-look logs."""
import argparse
import datetime
import logging
import math
import os
import socket
import sys
import threading
import time
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
HOST = socket.gethostname()

log = logging.getLogger("trainer")


def setup_logging(stream):
    h = logging.StreamHandler(sys.stdout if stream == "stdout" else sys.stderr)
    h.setFormatter(logging.Formatter(
        f"%(asctime)s.%(msecs)03d %(levelname)-7s [{HOST} rank={RANK}/{WORLD}] %(name)s: %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S"))
    root = logging.getLogger()
    root.handlers[:] = [h]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)


class SyntheticRegression(Dataset):
    def __init__(self, n, dim, seed=0, slow=0.0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, dim, generator=g)
        w = torch.randn(dim, 1, generator=g) / dim ** 0.5
        self.y = self.x @ w + 0.1 * torch.randn(n, 1, generator=g)
        self.slow = slow

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if self.slow:
            time.sleep(self.slow)
        return {"x": self.x[i], "y": self.y[i]}


def make_model(dim, hidden):
    return nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                         nn.Linear(hidden, 1))


class Monitor(threading.Thread):
    """Periodic heartbeat so the log shows the process is alive."""

    def __init__(self, period):
        super().__init__(daemon=True, name="monitor")
        self.period = period
        self.step = 0
        self.last = time.time()

    def tick(self, step):
        self.step = step
        self.last = time.time()

    def run(self):
        while True:
            time.sleep(self.period)
            age = time.time() - self.last
            lvl = logging.WARNING if age > 3 * self.period else logging.INFO
            logging.getLogger("monitor").log(
                lvl, "heartbeat: step=%d last_progress=%.1fs ago rss=%.0fMB", self.step, age, rss_mb())


def rss_mb():
    try:
        with open(f"/proc/{os.getpid()}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def wait_for_shard_index(path):
    # poll until the data-prep job publishes the shard index for the next epoch
    n = 0
    while not os.path.exists(path):
        n += 1
        x = 0
        for i in range(20000):
            x += i * i
        if n % 2000 == 0:
            pass


def save_checkpoint(path, model, opt, step):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "step": step}, path)


def post_metrics(url, payload):
    import urllib.request
    req = urllib.request.Request(url, data=repr(payload).encode(), method="POST")
    with urllib.request.urlopen(req, timeout=2) as r:
        return r.status


@record
def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--n-samples", type=int, default=4096)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--step-sleep", type=float, default=0.3)
    p.add_argument("--log-every", type=int, default=2)
    p.add_argument("--pg-timeout", type=int, default=30)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--sample-delay", type=float, default=0.0)
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--ckpt-every", type=int, default=0)
    p.add_argument("--resume", default="")
    p.add_argument("--heartbeat", type=float, default=0.0)
    p.add_argument("--log-stream", default="stdout")
    p.add_argument("--shard-index", default="")
    p.add_argument("--shard-rank", type=int, default=-1)
    p.add_argument("--shard-step", type=int, default=-1)
    p.add_argument("--epoch-iter", action="store_true", help="single iterator over the loader")
    p.add_argument("--metrics-url", default="")
    p.add_argument("--legacy", action="store_true")
    args = p.parse_args()

    setup_logging(args.log_stream)
    log.info("starting pid=%d host=%s local_rank=%d master=%s:%s torch=%s", os.getpid(), HOST, LOCAL_RANK,
             os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"), torch.__version__)
    if args.legacy and RANK == 0:
        log.info("config: pg_timeout=%ds (raised after previous run hit "
                 "'Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1902, OpType=ALLREDUCE, "
                 "Timeout(ms)=600000) ran for 600123 milliseconds before timing out.')", args.pg_timeout)

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    log.info("process group initialized: backend=%s world_size=%d", dist.get_backend(), dist.get_world_size())
    torch.manual_seed(1234)

    mon = None
    if args.heartbeat > 0:
        mon = Monitor(args.heartbeat)
        mon.start()

    model = make_model(args.dim, args.hidden)
    if args.legacy:
        torch.set_default_tensor_type(torch.FloatTensor)
    ddp = DDP(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    nparams = sum(p.numel() for p in model.parameters())
    log.info("model params=%d (%.2f MB fp32)", nparams, nparams * 4 / 2**20)

    start_step = 0
    if args.resume:
        log.info("resuming from %s", args.resume)
        ck = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optim"])
        start_step = ck["step"]
        log.info("resumed at step %d", start_step)

    ds = SyntheticRegression(args.n_samples, args.dim, slow=args.sample_delay)
    sampler = DistributedSampler(ds, num_replicas=WORLD, rank=RANK, shuffle=True, seed=0)
    loader = DataLoader(ds, batch_size=args.batch, sampler=sampler, num_workers=args.num_workers,
                        persistent_workers=args.num_workers > 0, drop_last=True)
    log.info("data: %d samples, %d batches/epoch/rank, num_workers=%d", len(ds), len(loader), args.num_workers)

    if args.legacy:
        sched.step()  # warmup schedule tick (legacy order)

    loss_fn = nn.MSELoss()
    epoch = 0
    sampler.set_epoch(epoch)
    it = iter(loader)
    t_last = time.time()
    nan_skipped = 0
    for step in range(start_step + 1, args.steps + 1):
        if args.shard_index and RANK == args.shard_rank and step == args.shard_step:
            log.info("step %d: waiting for shard index %s", step, args.shard_index)
            wait_for_shard_index(args.shard_index)
        try:
            batch = next(it)
        except StopIteration:
            if args.epoch_iter:
                raise
            epoch += 1
            sampler.set_epoch(epoch)
            log.info("epoch %d done, starting epoch %d", epoch - 1, epoch)
            it = iter(loader)
            batch = next(it)
        opt.zero_grad(set_to_none=True)
        out = ddp(batch["x"])
        loss = loss_fn(out, batch["y"])
        if not torch.isfinite(loss):
            nan_skipped += 1
            continue
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), 1.0)
        opt.step()
        if step % 10 == 0:
            sched.step()
        time.sleep(args.step_sleep)
        if mon:
            mon.tick(step)
        if step == 1 or step % args.log_every == 0:
            dt = (time.time() - t_last) * 1000 / (1 if step == 1 else args.log_every)
            t_last = time.time()
            log.info("step %d/%d loss=%.4f grad_norm=%.3f lr=%.2e nan_skipped=%d %.0fms/step", step, args.steps,
                     loss.item(), gn.item(), sched.get_last_lr()[0], nan_skipped, dt)
        if args.metrics_url and RANK == 0 and step % 10 == 0:
            payload = {"step": step, "loss": loss.item(), "loss_is_nan": math.isnan(loss.item())}
            for attempt in range(1, 3):
                try:
                    post_metrics(args.metrics_url, payload)
                    break
                except Exception:
                    log.warning("metrics push failed (attempt %d/2), will retry", attempt, exc_info=True)
                    time.sleep(0.5)
            else:
                log.warning("metrics push gave up for step %d; buffering locally", step)
        if args.ckpt_every and step % args.ckpt_every == 0:
            if RANK == 0:
                path = os.path.join(args.ckpt_dir, f"step_{step:06d}.pt")
                log.info("saving checkpoint to %s", path)
                save_checkpoint(path, model, opt, step)
                log.info("checkpoint saved (%d bytes)", os.path.getsize(path))
            dist.barrier()

    log.info("training done: %d steps, final loss=%.4f", args.steps, loss.item())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
