#!/usr/bin/env python3
"""GRU sequence regressor, DDP over gloo, structured logging: one JSON object
per line on stdout. Handles SIGTERM by checkpointing at the next step boundary."""
import argparse
import datetime
import json
import logging
import os
import signal
import socket
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class JsonFormatter(logging.Formatter):
    def __init__(self, static):
        super().__init__()
        self.static = static

    def format(self, record):
        d = {"ts": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc).isoformat(timespec="milliseconds"),
             "level": record.levelname.lower(), "logger": record.name, "msg": record.getMessage()}
        d.update(self.static)
        d.update(getattr(record, "fields", {}))
        if record.exc_info:
            d["exc_type"] = record.exc_info[0].__name__
            d["exc_info"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(d)


def get_logger(rank, local_rank):
    lg = logging.getLogger("seqtrain")
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(JsonFormatter({"host": socket.gethostname(), "rank": rank, "local_rank": local_rank,
                                  "pid": os.getpid(), "job": os.environ.get("TORCHELASTIC_RUN_ID", "")}))
    lg.addHandler(h)
    lg.setLevel(logging.INFO)
    lg.propagate = False
    return lg


def ev(lg, msg, level=logging.INFO, **fields):
    lg.log(level, msg, extra={"fields": fields})


class SeqModel(nn.Module):
    def __init__(self, d_in=8, hidden=96):
        super().__init__()
        self.gru = nn.GRU(d_in, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out[:, -1])


def make_batch(g, n, t=48, d=8):
    x = torch.randn(n, t, d, generator=g)
    y = (x[:, :, 0].cumsum(1)[:, -1:] * 0.1).tanh() + x[:, -5:, 1].mean(1, keepdim=True)
    return x, y


STOP = {"sig": None}


def on_signal(signum, frame):
    STOP["sig"] = signal.Signals(signum).name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--log_interval", type=int, default=10)
    ap.add_argument("--ckpt", default="")
    ap.add_argument("--ckpt_interval", type=int, default=100)
    ap.add_argument("--timeout_s", type=int, default=120)
    args = ap.parse_args()

    signal.signal(signal.SIGTERM, on_signal)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout_s))
    rank, world = dist.get_rank(), dist.get_world_size()
    lg = get_logger(rank, int(os.environ.get("LOCAL_RANK", 0)))
    ev(lg, "process group initialised", backend="gloo", world_size=world,
       master=f"{os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
    try:
        train(args, rank, world, lg)
    except Exception:
        lg.error("training aborted by unhandled exception", exc_info=True)
        raise
    dist.destroy_process_group()


def train(args, rank, world, lg):
    torch.manual_seed(3)
    model = DDP(SeqModel())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = 0
    if args.ckpt and os.path.exists(args.ckpt):
        st = torch.load(args.ckpt, map_location="cpu")
        model.module.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["step"]
        ev(lg, "resumed", step=start, path=args.ckpt)
    g = torch.Generator().manual_seed(rank + 17 * start)
    t0 = time.time()
    ema = None
    for step in range(start + 1, args.steps + 1):
        x, y = make_batch(g, args.batch)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema = loss.item() if ema is None else 0.9 * ema + 0.1 * loss.item()
        if step % args.log_interval == 0:
            ev(lg, "train", step=step, loss=round(loss.item(), 5), loss_ema=round(ema, 5),
               steps_per_s=round(step / (time.time() - t0), 2))
        save_now = args.ckpt and (step % args.ckpt_interval == 0 or STOP["sig"])
        if STOP["sig"]:
            ev(lg, "termination signal received; checkpointing and exiting", logging.WARNING,
               signal=STOP["sig"], step=step)
        if save_now and rank == 0:
            tmp = args.ckpt + ".tmp"
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step}, tmp)
            os.replace(tmp, args.ckpt)
            ev(lg, "checkpoint saved", step=step, path=args.ckpt)
        if STOP["sig"]:
            ev(lg, "exiting after signal", logging.WARNING, signal=STOP["sig"], step=step, exit_code=143)
            sys.exit(143)
    ev(lg, "training finished", steps=args.steps, final_loss_ema=round(ema, 5), wall_s=round(time.time() - t0, 1))


if __name__ == "__main__":
    main()
