#!/usr/bin/env python3
"""Tiny causal transformer LM trained with DDP; log lines in the style of a
Hugging Face Trainer run (dict-per-logging-step, progress bar, INFO banner)."""
import argparse
import datetime
import json
import logging
import math
import os
import socket
import sys
import time
import urllib.request
import warnings

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

logger = logging.getLogger("lm_trainer")

CORPUS = (
    "the quick brown fox jumps over the lazy dog. "
    "a stitch in time saves nine. all that glitters is not gold. "
    "to be or not to be, that is the question. "
    "the rain in spain stays mainly in the plain. "
)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--output_dir", required=True)
    p.add_argument("--max_steps", type=int, default=60)
    p.add_argument("--learning_rate", type=float, default=5e-4)
    p.add_argument("--optim", default="adamw_torch", choices=["adamw_torch", "sgd"])
    p.add_argument("--per_device_train_batch_size", type=int, default=8)
    p.add_argument("--seq_len", type=int, default=64)
    p.add_argument("--logging_steps", type=int, default=5)
    p.add_argument("--save_steps", type=int, default=0)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--warmup_steps", type=int, default=5)
    p.add_argument("--halt_on_nonfinite_loss", action="store_true")
    p.add_argument("--report_to", default="none", help="none | http://host:port/metrics")
    p.add_argument("--tokenizer_cache", default="")
    p.add_argument("--legacy_amp_api", action="store_true", help="use the pre-2.4 torch.cpu.amp / clip_grad_norm names")
    p.add_argument("--d_model", type=int, default=64)
    p.add_argument("--n_layers", type=int, default=2)
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


class CharTokenizer:
    def __init__(self, vocab):
        self.vocab = vocab
        self.stoi = {c: i for i, c in enumerate(vocab)}

    @classmethod
    def from_cache_or_build(cls, path, text):
        if path:
            try:
                with open(path) as f:
                    return cls(json.load(f)["vocab"])
            except (OSError, json.JSONDecodeError, KeyError) as e:
                logger.warning("Could not load tokenizer cache %s (%s: %s); rebuilding vocabulary from corpus",
                               path, type(e).__name__, e)
        tok = cls(sorted(set(text)))
        if path:
            try:
                with open(path, "w") as f:
                    json.dump({"vocab": tok.vocab}, f)
            except OSError:
                pass
        return tok

    def encode(self, s):
        return [self.stoi[c] for c in s]


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model, n_layers, seq_len):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=4 * d_model, dropout=0.0)
        self.blocks = nn.TransformerEncoder(layer, n_layers)
        self.ln = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.register_buffer("mask", torch.triu(torch.full((seq_len, seq_len), float("-inf")), diagonal=1))

    def forward(self, idx):
        b, t = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        x = self.blocks(x.transpose(0, 1), mask=self.mask[:t, :t]).transpose(0, 1)
        return self.head(self.ln(x))


class MetricsReporter:
    def __init__(self, url, retries=3):
        self.url = url if url != "none" else None
        self.retries = retries

    def push(self, payload):
        if not self.url:
            return
        body = json.dumps(payload).encode()
        for attempt in range(1, self.retries + 1):
            try:
                req = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"})
                urllib.request.urlopen(req, timeout=2)
                return
            except Exception:
                logger.warning("metrics push to %s failed (attempt %d/%d), retrying in %.1fs",
                               self.url, attempt, self.retries, 0.5 * attempt, exc_info=True)
                time.sleep(0.5 * attempt)
        logger.warning("metrics endpoint %s unreachable after %d attempts; disabling reporting for this run",
                       self.url, self.retries)
        self.url = None


def progress(step, total, t0, stream=sys.stderr):
    frac = step / total
    filled = int(frac * 10)
    bar = "\u2588" * filled + " " * (10 - filled)
    el = time.time() - t0
    rate = step / el if el > 0 else 0.0
    rem = (total - step) / rate if rate > 0 else 0
    fmt = lambda s: f"{int(s) // 60:02d}:{int(s) % 60:02d}"
    stream.write(f"\r{int(frac * 100):3d}%|{bar}| {step}/{total} [{fmt(el)}<{fmt(rem)}, {rate:5.2f}it/s]")
    stream.flush()


def main():
    args = parse()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    logging.basicConfig(
        format="[%(levelname)s|%(filename)s:%(lineno)s] %(asctime)s >> %(message)s",
        level=logging.INFO if rank == 0 else logging.WARNING,
        stream=sys.stdout,
    )
    logger.warning("Process rank: %d, world size: %d, local rank: %d, host: %s, device: cpu, distributed training: True",
                   rank, world, local_rank, socket.gethostname())
    torch.manual_seed(args.seed)

    text = CORPUS * 40
    tok = CharTokenizer.from_cache_or_build(args.tokenizer_cache, text)
    data = torch.tensor(tok.encode(text), dtype=torch.long)

    model = TinyLM(len(tok.vocab), args.d_model, args.n_layers, args.seq_len)
    model = DDP(model)
    if args.optim == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=args.learning_rate, momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / max(1, args.warmup_steps)) * max(0.0, 1 - s / args.max_steps))
    reporter = MetricsReporter(args.report_to if rank == 0 else "none")

    n_params = sum(p.numel() for p in model.parameters())
    logger.info("***** Running training *****")
    logger.info("  Num examples = %d", len(data) // args.seq_len)
    logger.info("  Instantaneous batch size per device = %d", args.per_device_train_batch_size)
    logger.info("  Total train batch size (w. parallel, distributed & accumulation) = %d",
                args.per_device_train_batch_size * world)
    logger.info("  Total optimization steps = %d", args.max_steps)
    logger.info("  Number of trainable parameters = %d", n_params)

    g = torch.Generator().manual_seed(args.seed + rank)
    steps_per_epoch = max(1, (len(data) // args.seq_len) // (args.per_device_train_batch_size * world))
    t0 = time.time()
    running = 0.0
    if args.legacy_amp_api:
        amp_ctx = torch.cpu.amp.autocast(enabled=False)
    else:
        amp_ctx = torch.autocast("cpu", enabled=False)
    for step in range(1, args.max_steps + 1):
        starts = torch.randint(0, len(data) - args.seq_len - 1, (args.per_device_train_batch_size,), generator=g)
        x = torch.stack([data[s:s + args.seq_len] for s in starts])
        y = torch.stack([data[s + 1:s + args.seq_len + 1] for s in starts])
        with amp_ctx:
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        loss.backward()
        if args.max_grad_norm > 0:
            clip = torch.nn.utils.clip_grad_norm if args.legacy_amp_api else torch.nn.utils.clip_grad_norm_
            gn = clip(model.parameters(), args.max_grad_norm)
        else:
            gn = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters() if p.grad is not None))
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)

        lval = loss.detach().clone()
        dist.all_reduce(lval)
        lval = (lval / world).item()
        if args.halt_on_nonfinite_loss and not math.isfinite(lval):
            raise FloatingPointError(
                f"Non-finite loss {lval} at step {step} (grad_norm={float(gn):.4g}, lr={sched.get_last_lr()[0]:.4g}); "
                f"halting because --halt_on_nonfinite_loss is set")
        running += lval
        if rank == 0:
            progress(step, args.max_steps, t0)
        if step % args.logging_steps == 0:
            rec = {"loss": round(running / args.logging_steps, 4), "grad_norm": round(float(gn), 4),
                   "learning_rate": sched.get_last_lr()[0], "epoch": round(step / steps_per_epoch, 2)}
            running = 0.0
            if rank == 0:
                sys.stderr.write("\n")
                print(rec, flush=True)
                reporter.push(rec)
        if args.save_steps and step % args.save_steps == 0:
            ck = os.path.join(args.output_dir, f"checkpoint-{step}")
            if rank == 0:
                os.makedirs(ck, exist_ok=True)
                torch.save(model.module.state_dict(), os.path.join(ck, "pytorch_model.bin"))
                torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "step": step},
                           os.path.join(ck, "optimizer.pt"))
                logger.info("Saving model checkpoint to %s", ck)
            dist.barrier()
    if rank == 0:
        sys.stderr.write("\n")
        el = time.time() - t0
        print({"train_runtime": round(el, 4), "train_samples_per_second": round(args.max_steps * args.per_device_train_batch_size * world / el, 3),
               "train_steps_per_second": round(args.max_steps / el, 3), "train_loss": round(lval, 4), "epoch": round(args.max_steps / steps_per_epoch, 2)},
              flush=True)
        logger.info("\n\nTraining completed.\n")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
