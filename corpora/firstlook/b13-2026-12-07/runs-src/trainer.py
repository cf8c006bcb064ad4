#!/usr/bin/env python3
"""Small DDP (gloo/CPU) classifier trainer used for the b13 torchrun runs.

The trainer knows nothing about the faults injected by the caseNN.sh scripts.
It only offers a choice of console log styles (--style) so that every job
prints a different log format.
"""
import argparse
import datetime
import glob
import logging
import math
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, Sampler

p = argparse.ArgumentParser()
p.add_argument("--style", required=True)
p.add_argument("--steps", type=int, default=120)
p.add_argument("--epochs", type=int, default=1)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--in-dim", type=int, default=128)
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--classes", type=int, default=10)
p.add_argument("--lr", type=float, default=3e-4)
p.add_argument("--step-sleep", type=float, default=0.2)
p.add_argument("--log-every", type=int, default=10)
p.add_argument("--eval-every", type=int, default=0)
p.add_argument("--eval-size", type=int, default=2048)
p.add_argument("--eval-batch", type=int, default=512)
p.add_argument("--eval-workers", type=int, default=0)
p.add_argument("--keep-eval-features", action="store_true")
p.add_argument("--workers", type=int, default=0)
p.add_argument("--data-dir", default="")
p.add_argument("--ckpt-dir", default="")
p.add_argument("--ckpt-every", type=int, default=0)
p.add_argument("--resume", action="store_true")
p.add_argument("--ckpt-keep-all", action="store_true")
p.add_argument("--pg-timeout", type=int, default=60)
p.add_argument("--grad-accum", type=int, default=1)
p.add_argument("--amp", action="store_true")
p.add_argument("--find-unused", action="store_true")
args = p.parse_args()

RANK = int(os.environ.get("RANK", 0))
WORLD = int(os.environ.get("WORLD_SIZE", 1))
LRANK = int(os.environ.get("LOCAL_RANK", 0))
HOST = socket.gethostname()


# ----------------------------------------------------------------- data
class SynthDS(Dataset):
    def __init__(self, n, dim, classes, seed):
        g = torch.Generator().manual_seed(seed)
        self.w = torch.randn(dim, classes, generator=g)
        self.n, self.dim, self.seed = n, dim, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        x = torch.randn(self.dim, generator=g)
        y = int((x @ self.w).argmax())
        return x, y


class ShardDS(Dataset):
    """Samples stored in shard files shard-XXXXX.pt (each a dict x, y)."""

    def __init__(self, data_dir):
        self.files = sorted(glob.glob(os.path.join(data_dir, "shard-*.pt")))
        meta = torch.load(self.files[0])
        self.per = meta["x"].shape[0]
        self._cache = (None, None)

    def __len__(self):
        return len(self.files) * self.per

    def __getitem__(self, i):
        fi, j = divmod(i, self.per)
        if self._cache[0] != fi:
            self._cache = (fi, torch.load(self.files[fi]))
        d = self._cache[1]
        return d["x"][j], int(d["y"][j])


class ShardOwnerSampler(Sampler):
    """Rank r reads whole shards r, r+W, r+2W, ... in order."""

    def __init__(self, ds, rank, world):
        self.idx = []
        for fi in range(rank, len(ds.files), world):
            self.idx.extend(range(fi * ds.per, (fi + 1) * ds.per))

    def __iter__(self):
        return iter(self.idx)

    def __len__(self):
        return len(self.idx)


class StrideSampler(Sampler):
    def __init__(self, n, rank, world):
        self.idx = list(range(rank, n, world))

    def __iter__(self):
        return iter(self.idx)

    def __len__(self):
        return len(self.idx)


class MLP(nn.Module):
    def __init__(self, d, h, c):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, h), nn.GELU())
        self.head = nn.Linear(h, c)

    def forward(self, x):
        f = self.enc(x)
        return self.head(f), f


# ----------------------------------------------------------------- log styles
def now():
    return datetime.datetime.now()


class Style:
    """Base: every style decides which ranks print what."""

    def __init__(self):
        self.t0 = time.time()

    def out(self, s):
        print(s, flush=True)

    def start(self, cfg, nparams, nsteps): ...
    def step(self, st, ep, m): ...
    def evaluate(self, st, ep, m): ...
    def saved(self, st, path): ...
    def resumed(self, st, path): ...
    def epoch_end(self, ep, m): ...
    def done(self, m): ...


class FlaxStyle(Style):
    # CLU metric-writer like: "[step] key=value, ..." plus a config dict dump
    def start(self, cfg, nparams, nsteps):
        self.out(f"jax-like process_index={RANK} process_count={WORLD} host={HOST} local_devices=[CpuDevice(id={RANK})]")
        if RANK == 0:
            self.out("Config:")
            for k, v in sorted(cfg.items()):
                self.out(f"  {k}: {v!r}")
            self.out(f"Parameter count: {nparams:,}")
            self.out(f"Starting training loop at step 1, num_train_steps={nsteps}")

    def step(self, st, ep, m):
        if RANK == 0:
            self.out(f"[{st}] train/loss={m['loss']:.6f}, train/grad_norm={m['gnorm']:.6f}, "
                     f"train/learning_rate={m['lr']:.7f}, train/steps_per_sec={m['sps']:.4f}, "
                     f"train/uptime={time.time() - self.t0:.2f}")

    def evaluate(self, st, ep, m):
        if RANK == 0:
            self.out(f"[{st}] eval/loss={m['loss']:.6f}, eval/accuracy={m['acc']:.6f}")

    def saved(self, st, path):
        self.out(f"Saved checkpoint at step {st}: {path}")

    def done(self, m):
        if RANK == 0:
            self.out(f"Finished training at step {m['step']}.")


class PPDetStyle(Style):
    def ts(self):
        return now().strftime("%m/%d %H:%M:%S")

    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        self.out(f"[{self.ts()}] ppdet.utils.checkpoint INFO: Init trainer on {HOST}, trainer_id: {RANK}, trainers_num: {WORLD}")
        if RANK == 0:
            self.out(f"[{self.ts()}] ppdet.engine INFO: ------------ Config ------------")
            for k, v in sorted(cfg.items()):
                self.out(f"[{self.ts()}] ppdet.engine INFO: {k}: {v}")
            self.out(f"[{self.ts()}] ppdet.engine INFO: Model params: {nparams}")

    def step(self, st, ep, m):
        if RANK == 0:
            eta = datetime.timedelta(seconds=int((self.nsteps - st) / max(m['sps'], 1e-6)))
            self.out(f"[{self.ts()}] ppdet.engine INFO: Epoch: [{ep}] [{st:>4}/{self.nsteps}] learning_rate: {m['lr']:.6f} "
                     f"loss: {m['loss']:.6f} loss_cls: {m['loss'] * 0.7:.6f} loss_reg: {m['loss'] * 0.3:.6f} "
                     f"eta: {eta} batch_cost: {1.0 / max(m['sps'], 1e-6):.4f} data_cost: {m['data_t']:.4f} "
                     f"ips: {m['sps'] * args.batch * WORLD:.4f} images/s")

    def evaluate(self, st, ep, m):
        if RANK == 0:
            self.out(f"[{self.ts()}] ppdet.metrics.metrics INFO: Accumulating evaluatation results...")
            self.out(f"[{self.ts()}] ppdet.engine INFO: Total sample number: {m['n']}, average FPS: {m['fps']:.2f}")
            self.out(f"[{self.ts()}] ppdet.engine INFO: Best test acc is {m['acc']:.5f}.")

    def saved(self, st, path):
        self.out(f"[{self.ts()}] ppdet.utils.checkpoint INFO: Save checkpoint: {path}")

    def done(self, m):
        if RANK == 0:
            self.out(f"[{self.ts()}] ppdet.engine INFO: Training finished.")


class TRLStyle(Style):
    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        if RANK == 0:
            self.out("***** Running training *****")
            self.out(f"  Num examples = {cfg['num_examples']:,}")
            self.out(f"  Num Epochs = {args.epochs}")
            self.out(f"  Instantaneous batch size per device = {args.batch}")
            self.out(f"  Total train batch size (w. parallel, distributed & accumulation) = {args.batch * WORLD * args.grad_accum}")
            self.out(f"  Gradient Accumulation steps = {args.grad_accum}")
            self.out(f"  Total optimization steps = {nsteps:,}")
            self.out(f"  Number of trainable parameters = {nparams:,}")

    def step(self, st, ep, m):
        if RANK == 0:
            ch, rj = -m['loss'] * 0.11, -m['loss'] * 0.19
            self.out(str({'loss': round(m['loss'], 4), 'grad_norm': round(m['gnorm'], 6), 'learning_rate': float(f"{m['lr']:.4e}"),
                          'rewards/chosen': round(ch, 4), 'rewards/rejected': round(rj, 4),
                          'rewards/accuracies': round(m['acc'], 4), 'rewards/margins': round(ch - rj, 4),
                          'logps/rejected': round(-60 - m['loss'] * 10, 3), 'logps/chosen': round(-55 - m['loss'] * 9, 3),
                          'epoch': round(st / self.nsteps * args.epochs, 2)}))

    def evaluate(self, st, ep, m):
        if RANK == 0:
            self.out(str({'eval_loss': round(m['loss'], 4), 'eval_runtime': round(m['t'], 4),
                          'eval_samples_per_second': round(m['fps'], 3), 'eval_rewards/accuracies': round(m['acc'], 4),
                          'epoch': round(st / self.nsteps * args.epochs, 2)}))

    def saved(self, st, path):
        if RANK == 0:
            self.out(f"Saving model checkpoint to {path}")

    def done(self, m):
        if RANK == 0:
            self.out(str({'train_runtime': round(time.time() - self.t0, 4), 'train_samples_per_second': round(m['sps'] * args.batch * WORLD, 3),
                          'train_steps_per_second': round(m['sps'], 3), 'train_loss': round(m['loss'], 4), 'epoch': float(args.epochs)}))


class TorchrecStyle(Style):
    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        self.out(f"[rank {RANK}] world_size={WORLD} host={HOST} backend=gloo device=cpu")
        self.out(f"[rank {RANK}] sharding plan: dense DDP ({nparams} params), embedding tables: none")

    def step(self, st, ep, m):
        self.out(f"[rank {RANK}] Epoch {ep} iter {st}/{self.nsteps} train_loss={m['loss']:.6f} "
                 f"ne={m['loss'] / math.log(args.classes):.6f} auroc={min(0.99, m['acc'] + 0.4):.4f} qps={m['sps'] * args.batch:.1f}")

    def evaluate(self, st, ep, m):
        self.out(f"[rank {RANK}] Eval iter {st}: val_loss={m['loss']:.6f} val_accuracy={m['acc']:.4f}")

    def saved(self, st, path):
        self.out(f"[rank {RANK}] wrote sharded state to {path}")

    def done(self, m):
        self.out(f"[rank {RANK}] training done after {m['step']} iterations")


class MonaiStyle(Style):
    def __init__(self):
        super().__init__()
        logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s - %(name)s - %(levelname)s - %(message)s")
        self.lg = logging.getLogger("ignite.engine.engine.SupervisedTrainer")
        self.ev = logging.getLogger("ignite.engine.engine.SupervisedEvaluator")
        self.ck = logging.getLogger("monai.handlers.CheckpointSaver")

    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        self.per_epoch = max(1, nsteps // args.epochs)
        self.lg.info(f"Engine run resuming from iteration 0, epoch 0 until {args.epochs} epochs" if RANK == 0 else f"rank {RANK} on {HOST} ready")

    def step(self, st, ep, m):
        if RANK == 0:
            it = (st - 1) % self.per_epoch + 1
            self.lg.info(f"Epoch: {ep + 1}/{args.epochs}, Iter: {it}/{self.per_epoch} -- train_loss: {m['loss']:.4f} ")

    def evaluate(self, st, ep, m):
        if RANK == 0:
            self.ev.info(f"Got new best metric of val_acc: {m['acc']}")
            self.ev.info(f"Epoch[{ep + 1}] Metrics -- val_acc: {m['acc']:.4f} val_loss: {m['loss']:.4f} ")

    def saved(self, st, path):
        if RANK == 0:
            self.ck.info(f"Saved checkpoint at iteration {st}: {path}")

    def resumed(self, st, path):
        self.lg.info(f"Restored all variables from {path}")

    def epoch_end(self, ep, m):
        if RANK == 0:
            self.lg.info(f"Epoch[{ep + 1}] Complete. Time taken: {datetime.timedelta(seconds=round(time.time() - self.t0, 3))}")

    def done(self, m):
        if RANK == 0:
            self.lg.info(f"Train completed, saved final checkpoint: {args.ckpt_dir}")


class SBertStyle(Style):
    def __init__(self):
        super().__init__()
        logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s - %(message)s", datefmt="%Y-%m-%d %H:%M:%S")
        self.lg = logging.getLogger("sentence_transformers")

    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        self.lg.info(f"Use pytorch device: cpu (rank {RANK}/{WORLD} on {HOST})")
        if RANK == 0:
            self.lg.info(f"Load pretrained SentenceTransformer: mlp-{args.hidden}-mean")
            self.lg.info(f"Training with {cfg['num_examples']} pairs, {nsteps} steps, warmup 10")

    def step(self, st, ep, m):
        self.lg.info(f"Epoch {ep} step {st}/{self.nsteps} rank {RANK}: loss={m['loss']:.4f} lr={m['lr']:.2e}")

    def evaluate(self, st, ep, m):
        if RANK == 0:
            self.lg.info(f"EmbeddingSimilarityEvaluator: Evaluating the model on sts-dev dataset in epoch {ep} after {st} steps:")
            self.lg.info(f"Cosine-Similarity :\tPearson: {m['acc']:.4f}\tSpearman: {m['acc'] * 0.97:.4f}")
            self.lg.info(f"Save model to {args.ckpt_dir or 'output'}")

    def done(self, m):
        if RANK == 0:
            self.lg.info("Training done")


class DSChatStyle(Style):
    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        if RANK == 0:
            self.out("***** Running training *****")
            self.out("***** Evaluating perplexity, Epoch 0/%d *****" % args.epochs)
            self.out("ppl: %.4f, loss: %.4f" % (math.exp(math.log(args.classes)), math.log(args.classes)))
            self.out(f"Beginning of Epoch 1/{args.epochs}, Total Micro Batches {nsteps}")

    def step(self, st, ep, m):
        self.out(f"Epoch: {ep}, Step: {st}, Rank: {RANK}, loss = {m['loss']}")

    def evaluate(self, st, ep, m):
        if RANK == 0:
            self.out(f"***** Evaluating perplexity, Epoch {ep + 1}/{args.epochs} *****")
            self.out(f"ppl: {math.exp(m['loss'])}, loss: {m['loss']}")

    def done(self, m):
        if RANK == 0:
            self.out("saving the final model ...")


class IsoStyle(Style):
    def line(self, lvl, comp, msg):
        ts = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")
        self.out(f"{ts} | {lvl:<5} | rank={RANK}/{WORLD} | {HOST} | {comp} | {msg}")

    def start(self, cfg, nparams, nsteps):
        self.line("INFO", "setup", f"pid={os.getpid()} local_rank={LRANK} params={nparams}")
        if RANK == 0:
            self.line("INFO", "setup", "config " + " ".join(f"{k}={v}" for k, v in sorted(cfg.items())))

    def step(self, st, ep, m):
        self.line("INFO", "train", f"epoch={ep} step={st} loss={m['loss']:.5f} gnorm={m['gnorm']:.4f} lr={m['lr']:.3e} samples_per_s={m['sps'] * args.batch:.1f}")

    def evaluate(self, st, ep, m):
        self.line("INFO", "eval", f"step={st} loss={m['loss']:.5f} acc={m['acc']:.4f}")

    def saved(self, st, path):
        self.line("INFO", "ckpt", f"step={st} path={path}")

    def done(self, m):
        self.line("INFO", "train", f"finished step={m['step']}")


class SpeechBrainStyle(Style):
    def __init__(self):
        super().__init__()
        logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(name)s - %(message)s")
        self.core = logging.getLogger("speechbrain.core")
        self.tr = logging.getLogger("speechbrain.utils.train_logger")

    def start(self, cfg, nparams, nsteps):
        self.core.info(f"Info: ddp rank {RANK}, world size {WORLD}, host {HOST}")
        if RANK == 0:
            self.core.info(f"Gradscaler enabled: False. Using precision: fp32.")
            self.core.info(f"MLP Model Statistics:\n* Total Number of Trainable Parameters: {nparams/1e3:.1f}K")

    def epoch_end(self, ep, m):
        if RANK == 0:
            self.tr.info(f"epoch: {ep + 1}, lr: {m['lr']:.2e} - train loss: {m['loss']:.2f} - valid loss: {m.get('vloss', 0):.2f}, valid error: {1 - m.get('vacc', 0):.2e}")

    def saved(self, st, path):
        if RANK == 0:
            logging.getLogger("speechbrain.utils.checkpoints").info(f"Saved an end-of-epoch checkpoint in {path}")


class FlairStyle(Style):
    SEP = "-" * 100

    def start(self, cfg, nparams, nsteps):
        self.nsteps = nsteps
        self.per_epoch = max(1, nsteps // args.epochs)
        self.tstart = time.time()
        if RANK == 0:
            self.out(self.SEP)
            self.out(f'Model: "MLPClassifier(in={args.in_dim}, hidden={args.hidden}, classes={args.classes})"')
            self.out(self.SEP)
            self.out(f"Corpus: {cfg['num_examples']} train + {args.eval_size} dev + 0 test sentences")
            self.out(self.SEP)
            self.out("Train:  %d sentences" % cfg['num_examples'])
            self.out("        (train_with_dev=False, train_with_test=False)")
            self.out(self.SEP)
            self.out("Training Params:")
            self.out(f' - learning_rate: "{args.lr}" ')
            self.out(f' - mini_batch_size: "{args.batch}"')
            self.out(f' - max_epochs: "{args.epochs}"')
            self.out(f' - shuffle: "True"')
            self.out(self.SEP)
            self.out(f"Computation:")
            self.out(f" - compute on device: cpu (distributed: {WORLD} processes)")
            self.out(self.SEP)

    def step(self, st, ep, m):
        if RANK == 0:
            it = (st - 1) % self.per_epoch + 1
            el = time.time() - self.tstart
            self.out(f"epoch {ep + 1} - iter {it}/{self.per_epoch} - loss {m['loss']:.8f} - time (sec): {el:.2f} - "
                     f"samples/sec: {m['sps'] * args.batch:.2f} - lr: {m['lr']:.6f} - momentum: 0.000000")

    def epoch_end(self, ep, m):
        if RANK == 0:
            self.out(self.SEP)
            self.out(f"EPOCH {ep + 1} done: loss {m['loss']:.4f} - lr: {m['lr']:.6f}")
            self.out(f"DEV : loss {m.get('vloss', 0):.8f} - f1-score (micro avg)  {m.get('vacc', 0):.4f}")
            self.out(" - 0 epochs without improvement")
            self.out("saving best model")
            self.out(self.SEP)
        self.tstart = time.time()

    def done(self, m):
        if RANK == 0:
            self.out("Done.")
            self.out(self.SEP)


STYLES = {"flax": FlaxStyle, "ppdet": PPDetStyle, "trl": TRLStyle, "torchrec": TorchrecStyle,
          "monai": MonaiStyle, "sbert": SBertStyle, "dschat": DSChatStyle, "iso": IsoStyle,
          "speechbrain": SpeechBrainStyle, "flair": FlairStyle}


# ----------------------------------------------------------------- main
def main():
    log = STYLES[args.style]()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    torch.manual_seed(1234)
    torch.set_num_threads(1)

    if args.data_dir:
        ds = ShardDS(args.data_dir)
        sampler = ShardOwnerSampler(ds, RANK, WORLD)
    else:
        ds = SynthDS(args.steps * args.batch * WORLD, args.in_dim, args.classes, seed=7)
        sampler = StrideSampler(len(ds), RANK, WORLD)
    loader = DataLoader(ds, batch_size=args.batch, sampler=sampler, num_workers=args.workers, drop_last=True)
    eval_ds = SynthDS(args.eval_size, args.in_dim, args.classes, seed=99)

    model = MLP(args.in_dim, args.hidden, args.classes)
    ddp = DDP(model, find_unused_parameters=args.find_unused)
    opt = torch.optim.AdamW(ddp.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, args.steps))
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp) if args.amp else None
    nparams = sum(p.numel() for p in model.parameters())

    cfg = {"batch_size": args.batch, "lr": args.lr, "hidden": args.hidden, "in_dim": args.in_dim,
           "steps": args.steps, "epochs": args.epochs, "workers": args.workers, "world_size": WORLD,
           "num_examples": len(ds), "ckpt_dir": args.ckpt_dir or None}

    start_step = 0
    if args.resume and args.ckpt_dir:
        path = os.path.join(args.ckpt_dir, f"rank{RANK}.pt")
        if os.path.exists(path):
            sd = torch.load(path, map_location="cpu")
            model.load_state_dict(sd["model"])
            opt.load_state_dict(sd["opt"])
            sched.load_state_dict(sd["sched"])
            start_step = sd["step"]
            log.resumed(start_step, path)

    log.start(cfg, nparams, args.steps)

    def save(st):
        os.makedirs(args.ckpt_dir, exist_ok=True)
        path = os.path.join(args.ckpt_dir, f"step{st:06d}-rank{RANK}.pt" if args.ckpt_keep_all else f"rank{RANK}.pt")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": st}, path)
        log.saved(st, path)

    eval_feats = []

    def evaluate(st, ep):
        ddp.eval()
        t = time.time()
        el = DataLoader(eval_ds, batch_size=args.eval_batch, sampler=StrideSampler(len(eval_ds), RANK, WORLD),
                        num_workers=args.eval_workers)
        tot, correct, n = 0.0, 0, 0
        with torch.no_grad():
            for x, y in el:
                logits, f = model(x)
                if args.keep_eval_features:
                    eval_feats.append(torch.cat([f, f * f, logits.repeat(1, 8)], 1).repeat(1, 6))
                tot += F.cross_entropy(logits, y, reduction="sum").item()
                correct += int((logits.argmax(1) == y).sum())
                n += y.numel()
        buf = torch.tensor([tot, correct, n], dtype=torch.float64)
        dist.all_reduce(buf)
        ddp.train()
        return {"loss": buf[0].item() / buf[2].item(), "acc": buf[1].item() / buf[2].item(), "n": int(buf[2].item()),
                "t": time.time() - t, "fps": buf[2].item() / max(time.time() - t, 1e-6)}

    st = start_step
    per_epoch = max(1, args.steps // args.epochs)
    m = {"loss": float("nan"), "lr": args.lr, "sps": 0.0, "step": st}
    last_t = time.time()
    done = False
    ep = st // per_epoch
    while not done:
        it = iter(loader)
        while True:
            t_data = time.time()
            try:
                x, y = next(it)
            except StopIteration:
                break
            data_t = time.time() - t_data
            logits, _ = ddp(x)
            loss = F.cross_entropy(logits, y) / args.grad_accum
            loss.backward()
            if args.grad_accum > 1:
                sched.step()
            if (st + 1) % args.grad_accum == 0:
                gnorm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
                opt.step()
                opt.zero_grad(set_to_none=True)
                if args.grad_accum == 1:
                    sched.step()
            else:
                gnorm = float("nan")
            st += 1
            time.sleep(args.step_sleep)
            acc = float((logits.argmax(1) == y).float().mean())
            if st % args.log_every == 0:
                nt = time.time()
                m = {"loss": loss.item() * args.grad_accum, "gnorm": gnorm, "lr": sched.get_last_lr()[0],
                     "sps": args.log_every / (nt - last_t), "acc": acc, "data_t": data_t, "step": st}
                last_t = nt
                log.step(st, ep, m)
            if args.eval_every and st % args.eval_every == 0:
                em = evaluate(st, ep)
                log.evaluate(st, ep, em)
                m["vloss"], m["vacc"] = em["loss"], em["acc"]
            if args.ckpt_every and args.ckpt_dir and st % args.ckpt_every == 0:
                save(st)
            if st % per_epoch == 0:
                log.epoch_end(ep, m)
                ep += 1
            if st >= args.steps:
                done = True
                break
        if args.data_dir and not done:
            done = True
    m["step"] = st
    log.done(m)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
