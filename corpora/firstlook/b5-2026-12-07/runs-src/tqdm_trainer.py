#!/usr/bin/env python3
"""LSTM language model on pre-tokenized .bin shards, tqdm progress bar on rank 0.

Shards are opened lazily with np.memmap and kept open in a per-process cache
(avoids re-opening a shard for every window). Samples are ordered shard by
shard (the shards themselves are pre-shuffled), split across ranks with a
non-shuffling DistributedSampler.
"""
import argparse
import datetime
import glob
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm


class BinWindows(Dataset):
    def __init__(self, root, seq_len, windows_per_shard):
        self.paths = sorted(glob.glob(os.path.join(root, "shard_*.bin")))
        self.seq_len = seq_len
        self.wps = windows_per_shard
        self._cache = {}

    def __len__(self):
        return len(self.paths) * self.wps

    def _shard(self, k):
        m = self._cache.get(k)
        if m is None:
            m = np.memmap(self.paths[k], dtype=np.uint16, mode="r")
            self._cache[k] = m
        return m

    def __getitem__(self, i):
        k, w = divmod(i, self.wps)
        m = self._shard(k)
        start = w * self.seq_len
        chunk = torch.from_numpy(m[start:start + self.seq_len + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


class LSTMLM(nn.Module):
    def __init__(self, vocab, dim, layers):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.LSTM(dim, dim, layers, batch_first=True)
        self.out = nn.Linear(dim, vocab)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--windows-per-shard", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--max-steps", type=int, default=600)
    p.add_argument("--vocab", type=int, default=2048)
    p.add_argument("--dim", type=int, default=96)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--eval-every", type=int, default=100)
    args = p.parse_args()

    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    ds = BinWindows(args.data, args.seq_len, args.windows_per_shard)
    if rank == 0:
        tqdm.write("data: {} shards, {} windows of {} tokens; world_size={}".format(
            len(ds.paths), len(ds), args.seq_len, world))
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=False)
    dl = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=0, drop_last=True)
    torch.manual_seed(0)
    model = DDP(LSTMLM(args.vocab, args.dim, 1))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    bar = tqdm(total=args.max_steps, desc="train", disable=rank != 0, ncols=110, mininterval=0.5,
               unit="it")
    step = 0
    ema = None
    t0 = time.time()
    while step < args.max_steps:
        for x, y in dl:
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, args.vocab), y.reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            lv = loss.item()
            ema = lv if ema is None else 0.95 * ema + 0.05 * lv
            bar.set_postfix(loss="{:.3f}".format(ema), shards_open=len(ds._cache), refresh=False)
            bar.update(1)
            if step % args.eval_every == 0:
                t = torch.tensor([ema])
                dist.all_reduce(t)
                if rank == 0:
                    tqdm.write("[{}] step {:>5d} | mean loss over ranks {:.4f} | ppl {:.1f} | {:.1f}s".format(
                        time.strftime("%H:%M:%S"), step, t.item() / world, float(np.exp(t.item() / world)),
                        time.time() - t0))
            if step >= args.max_steps:
                break
    bar.close()
    if rank == 0:
        tqdm.write("finished {} steps".format(step))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
