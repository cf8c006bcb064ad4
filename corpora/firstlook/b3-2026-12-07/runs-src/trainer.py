"""Small sequence-regression trainer (CPU / gloo) for the third first-look batch.

Token sequences of variable length are padded by pad_collate, embedded, mean-pooled and regressed.
Faults are injected only through the environment (FAULT*, see runs-src/caseNN.sh); the trainer
never prints anything about them.
"""
import argparse
import datetime
import glob
import logging
import os
import random
import socket
import sys
import threading
import time

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
FAULT = os.environ.get("FAULT", "")
FAULT_RANK = int(os.environ.get("FAULT_RANK", "-1"))
FAULT_STEP = int(os.environ.get("FAULT_STEP", "-1"))

log = logging.getLogger("seqreg")


class SeqData(Dataset):
    def __init__(self, n, vocab, max_len, seed, long_idx=-1):
        self.n, self.vocab, self.max_len, self.seed, self.long_idx = n, vocab, max_len, seed, long_idx

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = random.Random(self.seed * 1000003 + i)
        ln = g.randint(8, self.max_len)
        if i == self.long_idx:
            ln = self.max_len * 3 + 7
        toks = torch.tensor([g.randrange(1, self.vocab) for _ in range(ln)], dtype=torch.long)
        return {"idx": i, "tokens": toks, "target": torch.tensor([toks.float().mean().item() / self.vocab])}


def make_pad_collate(max_len):
    def pad_collate(samples):
        out = torch.zeros(len(samples), max_len, dtype=torch.long)
        for j, s in enumerate(samples):
            n = len(s["tokens"])
            if n > max_len:
                raise ValueError(f"sample {s['idx']} has {n} tokens, longer than max_len={max_len}")
            out[j, :n] = s["tokens"]
        return {"idx": torch.tensor([s["idx"] for s in samples]), "tokens": out,
                "target": torch.stack([s["target"] for s in samples])}
    return pad_collate


class ShardFile(Dataset):
    """Pre-tokenised shard written by prep: a dict with 'tokens' [N, L] and 'target' [N, 1]."""

    def __init__(self, path):
        d = torch.load(path)
        self.tokens, self.target = d["tokens"], d["target"]

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return {"idx": torch.tensor(i), "tokens": self.tokens[i], "target": self.target[i]}


class Model(nn.Module):
    def __init__(self, vocab, dim, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, 1))

    def forward(self, tokens):
        m = (tokens != 0).float().unsqueeze(-1)
        h = (self.emb(tokens) * m).sum(1) / m.sum(1).clamp(min=1)
        return self.mlp(h)


def to_device(obj, device="cpu"):
    if torch.is_tensor(obj):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: to_device(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(v, device) for v in obj)
    return obj


def read_model_cfg(path):
    cfg = {}
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                k, v = [t.strip() for t in line.split(":", 1)]
                cfg[k] = int(v)
    return cfg


def allreduce_grads(model):
    grads = [p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]
    flat = torch.cat(grads)
    dist.all_reduce(flat)
    flat /= WORLD
    off = 0
    for p in model.parameters():
        if p.grad is not None:
            n = p.grad.numel()
            p.grad.copy_(flat[off:off + n].view_as(p.grad))
            off += n


class MetricsPusher:
    """Node-local metrics: local rank 0 appends a line to the node agent's FIFO every `every` steps."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.pending = []

    def add(self, line):
        with self.lock:
            self.pending.append(line)

    def flush_async(self):
        def run():
            with self.lock:
                with open(self.path, "w") as f:
                    f.write("".join(self.pending))
                self.pending.clear()
        threading.Thread(target=run, name="metrics-flush", daemon=True).start()


def save_ckpt(path, state, compress):
    tmp = path + ".tmp"
    if compress == "zstd":
        import io
        import zstandard
        buf = io.BytesIO()
        torch.save(state, buf)
        with open(tmp, "wb") as f:
            f.write(zstandard.ZstdCompressor(level=3).compress(buf.getvalue()))
    else:
        torch.save(state, tmp)
    os.replace(tmp, path)
    return os.path.getsize(path)


@record
def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--model-cfg", default="")
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--samples", type=int, default=20000)
    p.add_argument("--data-seed", type=int, default=7)
    p.add_argument("--long-sample", type=int, default=-1)
    p.add_argument("--shards", default="", help="folder of pre-tokenised shard-NNN.pt files, one per rank (files[rank])")
    p.add_argument("--epochs", type=int, default=0, help="train N epochs over --shards instead of --steps")
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--grad-sync", choices=["ddp", "manual"], default="ddp")
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--step-sleep", type=float, default=0.05)
    p.add_argument("--pg-timeout", type=int, default=60)
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--ckpt-every", type=int, default=0)
    p.add_argument("--ckpt-sharded", action="store_true")
    p.add_argument("--ckpt-compress", choices=["none", "zstd"], default="none")
    p.add_argument("--resume", default="", help="'auto': newest step_*.pt in --ckpt-dir")
    p.add_argument("--stop-after", type=int, default=0, help="planned stop: save and exit after this step")
    p.add_argument("--metrics-fifo", default="")
    p.add_argument("--val-every", type=int, default=0)
    p.add_argument("--val-cache-mb", type=int, default=0)
    args = p.parse_args()

    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format=f"[%(asctime)s] [%(levelname)s] [{HOST}:{RANK}] %(name)s: %(message)s")
    log.info("starting: pid=%d local_rank=%d world_size=%d torch=%s python=%s", os.getpid(), LOCAL_RANK, WORLD,
             torch.__version__, sys.version.split()[0])
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    log.info("process group initialised (gloo, timeout %ds)", args.pg_timeout)

    if args.model_cfg:
        cfg = read_model_cfg(args.model_cfg)
        log.info("model config from %s: %s", args.model_cfg, cfg)
        args.dim, args.hidden = cfg.get("dim", args.dim), cfg.get("hidden", args.hidden)
    torch.manual_seed(0)
    model = Model(args.vocab, args.dim, args.hidden)
    net = DDP(model) if args.grad_sync == "ddp" else model
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    log.info("model ready: %d parameters, grad sync=%s", sum(x.numel() for x in model.parameters()), args.grad_sync)

    start = 0
    if args.resume:
        ck = sorted(glob.glob(os.path.join(args.ckpt_dir, "step_*.pt")))
        if ck:
            state = torch.load(ck[-1], map_location="cpu")
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optim"])
            start = state["step"]
            log.info("resumed from %s (step %d)", ck[-1], start)
        else:
            log.info("no checkpoint found in %s, starting from scratch", args.ckpt_dir)

    if args.shards:
        files = sorted(glob.glob(os.path.join(args.shards, "shard-*.pt")))
        ds = ShardFile(files[RANK])
        log.info("data: shard %s, %d samples", os.path.basename(files[RANK]), len(ds))
        loader = DataLoader(ds, batch_size=args.batch, shuffle=True, drop_last=True)
    else:
        ds = SeqData(args.samples, args.vocab, args.max_len, args.data_seed, args.long_sample)
        sampler = DistributedSampler(ds, num_replicas=WORLD, rank=RANK, shuffle=True, seed=0)
        loader = DataLoader(ds, batch_size=args.batch, sampler=sampler, num_workers=args.num_workers,
                            collate_fn=make_pad_collate(args.max_len), drop_last=True)
        log.info("data: %d samples, %d batches per epoch per rank, workers=%d", len(ds), len(loader),
                 args.num_workers)

    pusher = MetricsPusher(args.metrics_fifo) if args.metrics_fifo and LOCAL_RANK == 0 else None
    loss_fn = nn.MSELoss()
    total = args.epochs * len(loader) if args.epochs else args.steps

    def batches():
        ep = 0
        while True:
            if hasattr(loader.sampler, "set_epoch"):
                loader.sampler.set_epoch(ep)
            for b in loader:
                yield ep, b
            ep += 1
            if args.epochs and ep >= args.epochs:
                return

    step = start
    t0 = time.time()
    it = batches()
    if start:
        for _ in range(start):
            next(it)
    for ep, batch in it:
        step += 1
        if FAULT == "recursion" and RANK == FAULT_RANK and step == FAULT_STEP:
            batch["meta"] = {"epoch": ep}
            batch["meta"]["batch"] = batch
        batch = to_device(batch)
        opt.zero_grad(set_to_none=True)
        out = net(batch["tokens"])
        loss = loss_fn(out, batch["target"])
        loss.backward()
        if FAULT == "abort" and RANK == FAULT_RANK and step == FAULT_STEP:
            os.abort()
        if args.grad_sync == "manual":
            allreduce_grads(model)
        opt.step()
        time.sleep(args.step_sleep)
        lv = loss.item()
        if pusher:
            pusher.add(f"step={step} loss={lv:.5f}\n")
            if step % 10 == 0:
                pusher.flush_async()
            if step % args.log_every == 0:
                with pusher.lock:
                    queued = len(pusher.pending)
        if step == start + 1 or step % args.log_every == 0:
            dt = (time.time() - t0) / (1 if step == start + 1 else args.log_every)
            t0 = time.time()
            log.info("epoch %d step %d/%d loss %.5f (%.0f ms/step)", ep, step, total, lv, dt * 1000)
        if args.val_every and step % args.val_every == 0:
            if args.val_cache_mb and LOCAL_RANK == 0:
                log.info("caching validation set in memory (%d MB)", args.val_cache_mb)
                cache = bytearray(args.val_cache_mb * 2**20)
                del cache
            v = torch.tensor([lv, 1.0])
            dist.all_reduce(v)
            if RANK == 0:
                log.info("validation at step %d: mean train loss across ranks %.5f", step, v[0].item() / v[1].item())
        if args.ckpt_dir and args.ckpt_every and step % args.ckpt_every == 0:
            os.makedirs(args.ckpt_dir, exist_ok=True)
            state = {"model": model.state_dict(), "optim": opt.state_dict(), "step": step}
            if args.ckpt_sharded:
                path = os.path.join(args.ckpt_dir, f"step_{step:06d}-rank{RANK}.pt" +
                                    (".zst" if args.ckpt_compress == "zstd" else ""))
                nb = save_ckpt(path, state, args.ckpt_compress)
                log.info("saved checkpoint shard %s (%d bytes)", path, nb)
            elif RANK == 0:
                path = os.path.join(args.ckpt_dir, f"step_{step:06d}.pt")
                nb = save_ckpt(path, state, args.ckpt_compress)
                log.info("saved checkpoint %s (%d bytes)", path, nb)
            dist.barrier()
        if args.stop_after and step == args.stop_after:
            log.info("planned stop after step %d", step)
            break
        if not args.epochs and step >= args.steps:
            break

    log.info("finished at step %d", step)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
