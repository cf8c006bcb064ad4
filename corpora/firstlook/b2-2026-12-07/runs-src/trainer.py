"""DDP regression trainer (CPU / gloo) over on-disk record shards.

Written for the second first-look batch; every failure in its logs is a real one,
produced by the data, the environment or the launch (see runs-src/caseNN.sh).
"""
import argparse
import collections
import ctypes
import datetime
import faulthandler
import json
import logging
import math
import os
import socket
import struct
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from trainlib.sched import build_scheduler
from trainlib import io as tio
import trainlib

RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
HOST = socket.gethostname()

log = logging.getLogger("train")


def setup_logging(stream):
    h = logging.StreamHandler(sys.stdout if stream == "stdout" else sys.stderr)
    h.setFormatter(logging.Formatter(
        f"%(asctime)s | %(levelname)s | {HOST} | rank {RANK} | %(name)s | %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [h]
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)


class RecordShards(Dataset):
    """Fixed-size float records: <int32 nbytes><float32 * (dim + 1)>."""

    def __init__(self, files, dim):
        self.dim = dim
        self.files = files
        self.bufs = []
        self.index = []
        for fi, path in enumerate(files):
            with open(path, "rb") as f:
                raw = f.read()
            cbuf = ctypes.create_string_buffer(raw, len(raw))
            self.bufs.append(cbuf)
            rec = 4 + 4 * (dim + 1)
            for off in range(0, len(raw), rec):
                self.index.append((fi, off))

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        fi, off = self.index[i]
        cbuf = self.bufs[fi]
        (nbytes,) = struct.unpack_from("<i", cbuf, off)
        payload = ctypes.string_at(ctypes.addressof(cbuf) + off + 4, nbytes)
        v = torch.frombuffer(bytearray(payload), dtype=torch.float32)
        return {"x": v[:self.dim], "y": v[self.dim:self.dim + 1], "idx": torch.tensor(i)}


def make_model(dim, hidden, extra_head=False):
    m = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                      nn.Linear(hidden, 1))
    return m


def run_validation(model, files, dim, batch):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for path in files:
            shard = torch.load(path, map_location="cpu")
            x, y = shard["x"], shard["y"]
            for i in range(0, len(x), batch):
                out = model(x[i:i + batch])
                total += nn.functional.mse_loss(out, y[i:i + batch], reduction="sum").item()
                n += len(out)
    model.train()
    return total, n


def post_json(url, payload, timeout=2):
    import urllib.request
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status


@record
def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--step-sleep", type=float, default=0.1)
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--pg-timeout", type=int, default=60)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--ckpt-every", type=int, default=0)
    p.add_argument("--ckpt-mode", choices=["rank0", "sharded"], default="rank0")
    p.add_argument("--ckpt-legacy", action="store_true", help="pre-1.6 serialization, for old tooling")
    p.add_argument("--keep", type=int, default=0)
    p.add_argument("--resume", default="", help="path, or 'auto' for the newest in --ckpt-dir")
    p.add_argument("--val-every", type=int, default=0)
    p.add_argument("--stall-dump", type=float, default=0, help="dump all stacks after N s without a step")
    p.add_argument("--max-nonfinite", type=int, default=0)
    p.add_argument("--replay", type=int, default=0, help="keep last N batches for hard-example replay")
    p.add_argument("--replay-every", type=int, default=4)
    p.add_argument("--metrics-url", default="")
    p.add_argument("--job-config", default="")
    p.add_argument("--autocast", action="store_true")
    p.add_argument("--find-unused", action="store_true")
    p.add_argument("--log-stream", default="stdout")
    args = p.parse_args()

    setup_logging(args.log_stream)
    faulthandler.enable()
    log.info("start pid=%d host=%s local_rank=%d world=%d master=%s:%s torch=%s trainlib=%s", os.getpid(), HOST,
             LOCAL_RANK, WORLD, os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"), torch.__version__,
             trainlib.__version__)
    if args.job_config and RANK == 0:
        with open(args.job_config) as f:
            log.info("job config: %s", json.dumps(json.load(f)))

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    log.info("process group ready: backend=%s world_size=%d timeout=%ds", dist.get_backend(),
             dist.get_world_size(), args.pg_timeout)
    torch.manual_seed(1234)

    model = make_model(args.dim, args.hidden)
    ddp = DDP(model, find_unused_parameters=args.find_unused)
    opt = torch.optim.AdamW(ddp.parameters(), lr=args.lr, weight_decay=0.01)
    sched = build_scheduler(opt, args.warmup, args.steps)
    nparams = sum(p.numel() for p in model.parameters())
    log.info("model: %d parameters", nparams)

    start_step = 0
    if args.resume:
        path = args.resume
        if path == "auto":
            found = tio.latest_checkpoint(args.ckpt_dir)
            log.info("auto-resume: %d checkpoint(s) in %s: %s", len(found), args.ckpt_dir,
                     ", ".join(os.path.basename(p) for _, p in found) or "-")
            path = found[-1][1] if found else ""
        if path:
            log.info("loading checkpoint %s", path)
            ck = torch.load(path, map_location="cpu")
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["optim"])
            sched.load_state_dict(ck["sched"])
            start_step = ck["step"]
            log.info("resumed from step %d", start_step)

    train_files = sorted(os.path.join(args.data, "train", f) for f in os.listdir(os.path.join(args.data, "train")))
    ds = RecordShards(train_files, args.dim)
    sampler = DistributedSampler(ds, num_replicas=WORLD, rank=RANK, shuffle=True, seed=0)
    loader = DataLoader(ds, batch_size=args.batch, sampler=sampler, num_workers=args.num_workers,
                        persistent_workers=args.num_workers > 0, drop_last=True)
    val_dir = os.path.join(args.data, "val")
    val_all = sorted(os.path.join(val_dir, f) for f in os.listdir(val_dir)) if os.path.isdir(val_dir) else []
    val_files = val_all[RANK::WORLD]
    log.info("data: %d train records in %d shards, %d batches/epoch/rank, workers=%d; val shards for this rank: %s",
             len(ds), len(train_files), len(loader), args.num_workers,
             ", ".join(os.path.basename(v) for v in val_files) or "none")

    replay = collections.deque(maxlen=args.replay) if args.replay else None
    loss_fn = nn.MSELoss()
    epoch = start_step // len(loader)
    sampler.set_epoch(epoch)
    it = iter(loader)
    t_last = time.time()
    streak, first_bad = 0, None
    for step in range(start_step + 1, args.steps + 1):
        if args.stall_dump:
            faulthandler.dump_traceback_later(args.stall_dump, repeat=True)
        try:
            batch = next(it)
        except StopIteration:
            epoch += 1
            sampler.set_epoch(epoch)
            log.info("epoch %d finished, starting epoch %d", epoch - 1, epoch)
            it = iter(loader)
            batch = next(it)
        x, y = batch["x"], batch["y"]
        if replay is not None:
            replay.append(batch)
            if step % args.replay_every == 0 and len(replay) > 8:
                old = replay[len(replay) // 2]
                x, y = torch.cat([x, old["x"][:8]]), torch.cat([y, old["y"][:8]])
        opt.zero_grad(set_to_none=True)
        if args.autocast:
            with torch.cuda.amp.autocast(enabled=False):
                out = ddp(x)
        else:
            out = ddp(x)
        loss = loss_fn(out, y)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), 1.0)
        opt.step()
        sched.step()
        time.sleep(args.step_sleep)
        lv = loss.item()
        if not math.isfinite(lv):
            streak += 1
            first_bad = first_bad or step
            log.warning("non-finite loss %s at step %d (grad_norm=%s), consecutive=%d", lv, step, gn.item(), streak)
            if args.max_nonfinite and streak >= args.max_nonfinite:
                raise FloatingPointError(
                    f"loss has been non-finite for {streak} consecutive steps (first at step {first_bad})")
        else:
            streak = 0
        if step == start_step + 1 or step % args.log_every == 0:
            dt = (time.time() - t_last) * 1000 / (1 if step == start_step + 1 else args.log_every)
            t_last = time.time()
            log.info("step %d/%d epoch %d loss=%.4f grad_norm=%.3f lr=%.3e %.0f ms/step", step, args.steps, epoch,
                     lv, gn.item(), sched.get_last_lr()[0], dt)
        if args.metrics_url and RANK == 0 and step % 10 == 0:
            payload = {"step": step, "loss": lv, "lr": sched.get_last_lr()[0]}
            for attempt in range(1, 4):
                try:
                    post_json(args.metrics_url, payload)
                    if attempt > 1:
                        log.info("metrics for step %d delivered on attempt %d", step, attempt)
                    break
                except Exception:
                    log.warning("metrics push for step %d failed (attempt %d/3)", step, attempt, exc_info=True)
                    time.sleep(0.5 * attempt)
        if args.val_every and step % args.val_every == 0:
            try:
                vsum, vn = run_validation(model, val_files, args.dim, 256)
            except Exception:
                log.warning("validation on this rank failed at step %d; its metrics are skipped", step,
                            exc_info=True)
                vsum, vn = 0.0, 0
            if vn > 0:
                stats = torch.tensor([vsum, float(vn)], dtype=torch.float64)
                dist.all_reduce(stats)
                if RANK == 0:
                    log.info("validation step %d: val_loss=%.4f over %d records", step,
                             stats[0].item() / stats[1].item(), int(stats[1].item()))
        if args.ckpt_every and step % args.ckpt_every == 0:
            state = {"model": model.state_dict(), "optim": opt.state_dict(), "sched": sched.state_dict(),
                     "step": step}
            if args.ckpt_mode == "rank0":
                if RANK == 0:
                    os.makedirs(args.ckpt_dir, exist_ok=True)
                    path = os.path.join(args.ckpt_dir, f"step_{step:06d}.pt")
                    t0 = time.time()
                    if args.ckpt_legacy:
                        torch.save(state, path, _use_new_zipfile_serialization=False)
                    else:
                        torch.save(state, path)
                    log.info("saved checkpoint %s (%.1f MB, %.2fs)", path, os.path.getsize(path) / 2**20,
                             time.time() - t0)
                    if args.keep:
                        tio.prune(args.ckpt_dir, args.keep)
            else:
                d = os.path.join(args.ckpt_dir, f"step_{step:06d}")
                os.makedirs(d, exist_ok=True)
                path = os.path.join(d, f"rank{RANK:02d}.pt")
                log.info("writing checkpoint shard %s", path)
                nb = tio.atomic_save(state, path)
                log.info("checkpoint shard written (%.1f MB)", nb / 2**20)
            dist.barrier()

    if args.stall_dump:
        faulthandler.cancel_dump_traceback_later()
    log.info("training finished: %d steps, last loss=%.4f", args.steps, lv)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
