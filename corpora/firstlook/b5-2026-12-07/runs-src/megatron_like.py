#!/usr/bin/env python3
"""Tiny GPT pretraining loop that prints Megatron-LM style progress lines.

Written for batch b5 (2026-12-07). Data is a synthetic token stream from a
fixed random Markov chain, so the loss goes down over time.
"""
import argparse
import datetime
import math
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def print_rank_0(msg):
    if dist.get_rank() == 0:
        print(msg, flush=True)


def print_rank_last(msg):
    if dist.get_rank() == dist.get_world_size() - 1:
        print(msg, flush=True)


def stamp():
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")


class GPT(nn.Module):
    def __init__(self, vocab, hidden, layers, heads, seq):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(seq, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, 4 * hidden, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.wte(idx) + self.wpe(torch.arange(t))
        h = self.layers(h, mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(h))


class MarkovTokens:
    """Synthetic corpus: tokens drawn from a fixed sparse transition table."""

    def __init__(self, vocab, seq, seed):
        g = torch.Generator().manual_seed(1234)
        self.next_tok = torch.randint(0, vocab, (vocab, 4), generator=g)
        self.vocab, self.seq = vocab, seq
        self.g = torch.Generator().manual_seed(seed)

    def batch(self, bsz):
        x = torch.empty(bsz, self.seq + 1, dtype=torch.long)
        x[:, 0] = torch.randint(0, self.vocab, (bsz,), generator=self.g)
        for t in range(1, self.seq + 1):
            choice = torch.randint(0, 4, (bsz,), generator=self.g)
            x[:, t] = self.next_tok[x[:, t - 1], choice]
        return x[:, :-1], x[:, 1:]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--num-layers", type=int, default=2)
    p.add_argument("--hidden-size", type=int, default=64)
    p.add_argument("--num-attention-heads", type=int, default=4)
    p.add_argument("--seq-length", type=int, default=32)
    p.add_argument("--vocab-size", type=int, default=512)
    p.add_argument("--micro-batch-size", type=int, default=8)
    p.add_argument("--global-batch-size", type=int, default=32)
    p.add_argument("--train-iters", type=int, default=200)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--min-lr", type=float, default=3e-5)
    p.add_argument("--lr-warmup-iters", type=int, default=20)
    p.add_argument("--log-interval", type=int, default=10)
    p.add_argument("--save-interval", type=int, default=0)
    p.add_argument("--save", type=str, default="")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--distributed-timeout-minutes", type=float, default=1.0)
    args = p.parse_args()

    torch.set_num_threads(1)
    t_start = time.time()
    dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=args.distributed_timeout_minutes))
    rank, world = dist.get_rank(), dist.get_world_size()
    dp = world
    if rank == 0:
        print("using world size: {}, data-parallel size: {}, context-parallel size: 1, "
              "tensor-model-parallel size: 1, pipeline-model-parallel size: 1".format(world, dp), flush=True)
        print("------------------------ arguments ------------------------", flush=True)
        for k, v in sorted(vars(args).items()):
            print("  {} {} {}".format(k, "." * (48 - len(k)), v), flush=True)
        print("-------------------- end of arguments ---------------------", flush=True)
        print("> initializing torch distributed ...", flush=True)
        print("> setting random seeds to {} ...".format(args.seed), flush=True)
    torch.manual_seed(args.seed)
    grad_acc = args.global_batch_size // (args.micro_batch_size * dp)
    if grad_acc < 1:
        grad_acc = 1
    print_rank_0("building GPT model ...")
    model = GPT(args.vocab_size, args.hidden_size, args.num_layers, args.num_attention_heads, args.seq_length)
    nparams = sum(p.numel() for p in model.parameters())
    print(" > number of parameters on (tensor, pipeline) model parallel rank (0, 0) [global rank {}]: {}".format(
        rank, nparams), flush=True)
    model = DDP(model)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    print_rank_0("> learning rate decay style: cosine")
    print_rank_0("[after model, optimizer, and learning rate scheduler are built] datetime: {} ".format(stamp()))
    data = MarkovTokens(args.vocab_size, args.seq_length, args.seed + rank)
    print_rank_0("> building train, validation, and test datasets for GPT ...")
    print_rank_0(" > datasets target sizes (minimum size):")
    print_rank_0("    train:      {}".format(args.train_iters * args.global_batch_size))
    print_rank_0("[after dataloaders are built] datetime: {} ".format(stamp()))
    print_rank_0("time to initialize megatron (seconds): {:.3f}".format(time.time() - t_start))
    print_rank_0("done with setup ...")
    print_rank_0("training ...")
    print_rank_0("[before the start of training step] datetime: {} ".format(stamp()))

    def lr_at(it):
        if it < args.lr_warmup_iters:
            return args.lr * (it + 1) / args.lr_warmup_iters
        frac = (it - args.lr_warmup_iters) / max(1, args.train_iters - args.lr_warmup_iters)
        return args.min_lr + 0.5 * (args.lr - args.min_lr) * (1 + math.cos(math.pi * frac))

    consumed = 0
    acc_loss, acc_n = 0.0, 0
    t_last = time.time()
    for it in range(1, args.train_iters + 1):
        lr = lr_at(it - 1)
        for g in opt.param_groups:
            g["lr"] = lr
        opt.zero_grad(set_to_none=True)
        loss_val = 0.0
        for micro in range(grad_acc):
            x, y = data.batch(args.micro_batch_size)
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1)) / grad_acc
            if micro < grad_acc - 1:
                with model.no_sync():
                    loss.backward()
            else:
                loss.backward()
            loss_val += loss.item()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        opt.step()
        consumed += args.global_batch_size
        red = torch.tensor([loss_val])
        dist.all_reduce(red)
        acc_loss += red.item() / world
        acc_n += 1
        if it % args.log_interval == 0:
            el = (time.time() - t_last) * 1000.0 / args.log_interval
            t_last = time.time()
            line = " [{}] iteration {:>8d}/{:>8d} |".format(stamp(), it, args.train_iters)
            line += " consumed samples: {:>12d} |".format(consumed)
            line += " elapsed time per iteration (ms): {:.1f} |".format(el)
            line += " throughput per GPU (TFLOP/s/GPU): {:.1f} |".format(0.0)
            line += " learning rate: {:.6E} |".format(lr)
            line += " global batch size: {:>5d} |".format(args.global_batch_size)
            line += " lm loss: {:.6E} |".format(acc_loss / acc_n)
            line += " loss scale: 1.0 |"
            line += " grad norm: {:.3f} |".format(gnorm)
            line += " number of skipped iterations: {:>3d} |".format(0)
            line += " number of nan iterations: {:>3d} |".format(0)
            print_rank_last(line)
            acc_loss, acc_n = 0.0, 0
        if args.save and args.save_interval and it % args.save_interval == 0:
            dist.barrier()
            if rank == 0:
                d = os.path.join(args.save, "iter_{:07d}".format(it), "mp_rank_00")
                os.makedirs(d, exist_ok=True)
                torch.save({"iteration": it, "model": model.module.state_dict(),
                            "optimizer": opt.state_dict()}, os.path.join(d, "model_optim_rng.pt"))
                with open(os.path.join(args.save, "latest_checkpointed_iteration.txt"), "w") as f:
                    f.write(str(it))
            dist.barrier()
            print_rank_0("  successfully saved checkpoint from iteration {:7d} to {} [ t 1/1, p 1/1 ]".format(it, args.save))
    print_rank_0("[after training is done] datetime: {} ".format(stamp()))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
