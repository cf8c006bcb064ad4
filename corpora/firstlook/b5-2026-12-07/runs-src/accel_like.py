#!/usr/bin/env python3
"""Text classifier fine-tune loop in the style of an `accelerate` script.

Main-process messages go through logging with accelerate's usual format,
per-process messages are printed as "[rankN]: ...". Data: JSONL shards read
lazily (byte-offset index) inside DataLoader worker processes.
"""
import argparse
import datetime
import glob
import json
import logging
import os
import time
import zlib

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

logger = logging.getLogger(__name__)
VOCAB = 1 << 15


class JsonlShards(Dataset):
    def __init__(self, data_dir, max_len=32):
        self.files = sorted(glob.glob(os.path.join(data_dir, "*.jsonl")))
        if not self.files:
            raise FileNotFoundError("no *.jsonl shards under {}".format(data_dir))
        self.index = []
        for fi, path in enumerate(self.files):
            off = 0
            with open(path, "rb") as f:
                for line in f:
                    self.index.append((fi, off))
                    off += len(line)
        self.max_len = max_len

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        fi, off = self.index[i]
        with open(self.files[fi], "rb") as f:
            f.seek(off)
            raw = f.readline()
        ex = json.loads(raw.decode("utf-8"))
        ids = [zlib.crc32(w.encode()) % VOCAB for w in ex["text"].split()][: self.max_len]
        ids = ids + [0] * (self.max_len - len(ids))
        return torch.tensor(ids, dtype=torch.long), torch.tensor(ex["label"], dtype=torch.long)


class BagClassifier(nn.Module):
    def __init__(self, dim, labels):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, dim, mode="mean", padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, labels))

    def forward(self, ids):
        return self.mlp(self.emb(ids))


@record
def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", required=True)
    p.add_argument("--num-train-epochs", type=int, default=3)
    p.add_argument("--per-device-train-batch-size", type=int, default=32)
    p.add_argument("--learning-rate", type=float, default=5e-3)
    p.add_argument("--dataloader-num-workers", type=int, default=2)
    p.add_argument("--logging-steps", type=int, default=20)
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    is_main = rank == 0
    if not is_main:
        logging.getLogger().setLevel(logging.ERROR)
    print("[rank{}]: Distributed environment: MULTI_CPU  Backend: gloo".format(rank), flush=True)
    print("[rank{}]: Num processes: {}".format(rank, world), flush=True)
    print("[rank{}]: Process index: {}".format(rank, rank), flush=True)
    print("[rank{}]: Local process index: {}".format(rank, local_rank), flush=True)
    print("[rank{}]: Device: cpu".format(rank), flush=True)
    print("[rank{}]: Mixed precision type: no".format(rank), flush=True)
    torch.manual_seed(args.seed)

    ds = JsonlShards(args.data_dir)
    print("[rank{}]: indexed {} examples from {} shards in {}".format(rank, len(ds), len(ds.files), args.data_dir),
          flush=True)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    dl = DataLoader(ds, batch_size=args.per_device_train_batch_size, sampler=sampler,
                    num_workers=args.dataloader_num_workers, drop_last=True)
    model = DDP(BagClassifier(64, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    total = len(dl) * args.num_train_epochs
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / total))

    logger.info("***** Running training *****")
    logger.info("  Num examples = %d", len(ds))
    logger.info("  Num Epochs = %d", args.num_train_epochs)
    logger.info("  Instantaneous batch size per device = %d", args.per_device_train_batch_size)
    logger.info("  Total train batch size (w. parallel, distributed & accumulation) = %d",
                args.per_device_train_batch_size * world)
    logger.info("  Gradient Accumulation steps = 1")
    logger.info("  Total optimization steps = %d", total)
    step = 0
    t0 = time.time()
    for epoch in range(args.num_train_epochs):
        sampler.set_epoch(epoch)
        model.train()
        run_loss, run_acc, n = 0.0, 0.0, 0
        for bi, (ids, labels) in enumerate(dl):
            logits = model(ids)
            loss = F.cross_entropy(logits, labels)
            loss.backward()
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            run_loss += loss.item()
            run_acc += (logits.argmax(-1) == labels).float().mean().item()
            n += 1
            if step % args.logging_steps == 0:
                t = torch.tensor([run_loss / n, run_acc / n])
                dist.all_reduce(t)
                t /= world
                if is_main:
                    print("[rank0]: {{'loss': {:.4f}, 'accuracy': {:.4f}, 'learning_rate': {:.3e}, 'epoch': {:.2f}, "
                          "'step': {}, 'elapsed': {:.1f}}}".format(t[0].item(), t[1].item(), sched.get_last_lr()[0],
                                                                   epoch + (bi + 1) / len(dl), step, time.time() - t0),
                          flush=True)
                run_loss, run_acc, n = 0.0, 0.0, 0
        print("[rank{}]: epoch {} done ({} steps so far)".format(rank, epoch, step), flush=True)
    logger.info("Training completed. Do not forget to share your model on huggingface.co/models =)")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
