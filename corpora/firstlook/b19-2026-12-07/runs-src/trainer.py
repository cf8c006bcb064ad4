# b19 trainer: small causal-conv token LM on indexed uint16 shards, DDP over gloo. Console format chosen by STYLE.
import os, sys, time, math, glob, socket, shutil, tempfile, datetime, threading, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import Dataset, DataLoader
from torch.distributed.elastic.multiprocessing.errors import record

E = os.environ.get
STYLE = E("STYLE", "wandb")
STEPS = int(E("STEPS", "400")); MAX_EPOCHS = int(E("MAX_EPOCHS", "1000")); BATCH = int(E("BATCH", "8"))
LR = float(E("LR", "3e-3")); WARMUP = int(E("WARMUP", "30")); LOG_EVERY = int(E("LOG_EVERY", "20"))
EVAL_EVERY = int(E("EVAL_EVERY", "100")); SAVE_EVERY = int(E("SAVE_EVERY", "200"))
DATA_DIR = E("DATA_DIR", "/data"); CKPT_DIR = E("CKPT_DIR", "/ckpt"); ATOMIC = E("CKPT_ATOMIC", "0") == "1"
NUM_WORKERS = int(E("NUM_WORKERS", "1")); STEP_SLEEP = float(E("STEP_SLEEP", "0")); PG_TIMEOUT = int(E("PG_TIMEOUT", "120"))
DIM = int(E("MODEL_DIM", "128")); VOCAB = 2048; RUN = E("RUN_NAME", "tokconv")
HOST = socket.gethostname()


class TokenShards(Dataset):
    def __init__(self, paths):
        self.bins, self.idx, self.map = [], [], []
        for s, p in enumerate(paths):
            self.bins.append(np.memmap(p, dtype=np.uint16, mode="r"))
            ix = np.load(p[:-4] + ".idx.npy"); self.idx.append(ix)
            self.map += [(s, i) for i in range(len(ix) - 1)]

    def __len__(self):
        return len(self.map)

    def __getitem__(self, k):
        s, i = self.map[k]
        return torch.from_numpy(self.bins[s][self.idx[s][i]:self.idx[s][i + 1]])


def collate_tokens(samples):
    x = torch.stack(samples).long()
    return x[:, :-1].contiguous(), x[:, 1:].contiguous()


class TokConv(nn.Module):
    def __init__(self, V, D):
        super().__init__()
        self.emb = nn.Embedding(V, D); self.conv = nn.Conv1d(D, D, 4)
        self.ln = nn.LayerNorm(D); self.ff1 = nn.Linear(D, 4 * D); self.ff2 = nn.Linear(4 * D, D); self.head = nn.Linear(D, V)

    def forward(self, x):
        h = self.emb(x)
        h = h + F.gelu(self.conv(F.pad(h.transpose(1, 2), (3, 0))).transpose(1, 2))
        h = h + self.ff2(F.gelu(self.ff1(self.ln(h))))
        return self.head(h)


# ---------------------------------------------------------------- console formats
class Console:
    def __init__(self, rank, world):
        self.r, self.w, self.t0 = rank, world, time.time()
        self.hist = []

    def p(self, s, file=sys.stdout):
        print(s, file=file, flush=True)

    # MindSpore-like record prefix
    def ms(self, msg, lvl="INFO", depth=1):
        f = sys._getframe(depth + 1)
        now = datetime.datetime.now()
        ts = now.strftime("%Y-%m-%d-%H:%M:%S.") + "%03d.%03d" % (now.microsecond // 1000, now.microsecond % 1000)
        self.p("[%s] TRN(%d:%d,MainProcess):%s [%s:%d] %s" % (lvl, os.getpid(), threading.get_ident(), ts,
               os.path.basename(f.f_code.co_filename), f.f_lineno, msg))

    def start(self, cfg, shards, nsamp, nb):
        if STYLE == "wandb":
            if self.r == 0:
                self.p("wandb: Tracking run with wandb version 0.17.4")
                self.p("wandb: W&B syncing is set to `offline` in this directory.  ")
                self.p("wandb: Run `wandb online` or set WANDB_MODE=online to enable cloud syncing.")
                self.p("config: " + " ".join("%s=%s" % kv for kv in cfg.items()))
            self.p("[rank%d/%d] host=%s shards=%s samples=%d batches/epoch=%d" % (self.r, self.w, HOST, shards, nsamp, nb))
        elif STYLE == "mindspore":
            self.ms("Init communication: backend gloo, rank_id %d, rank_size %d, host %s" % (self.r, self.w, HOST))
            self.ms("Dataset shards %s, dataset size %d, steps per epoch %d" % (shards, nsamp, nb))
            if self.r == 0:
                self.ms("Train config: %s" % cfg)
        elif STYLE == "pax":
            self.p("process_index=%d process_count=%d host=%s local_devices=[CpuDevice(id=%d)] input_shards=%s examples=%d"
                   % (self.r, self.w, HOST, self.r, shards, nsamp))
            if self.r == 0:
                for k, v in cfg.items():
                    self.p("  %-24s = %r" % (k, v))
                self.p("Starting training loop for %d steps" % STEPS)
        else:  # progmeter
            self.p("Use CPU for training, rank %d of %d (%s)" % (self.r, self.w, HOST))
            self.p("=> creating model '%s-%d'" % (RUN, DIM))
            self.p("=> train shards %s: %d samples, %d batches" % (shards, nsamp, nb))

    def step(self, ep, it, nb, step, loss, avg, lr, gn, dt, adt, data, adata, a1, a1avg, tps):
        self.hist.append(loss)
        if STYLE == "wandb":
            if self.r == 0:
                self.p("Step %5d/%d :: loss %.4f :: lr %.3e :: grad_norm %.3f :: %s tok/s :: %d ms/step"
                       % (step, STEPS, loss, lr, gn, format(int(tps), ","), int(dt * 1000)))
        elif STYLE == "mindspore":
            self.ms("epoch: %d step: %d, loss is %.6f" % (ep + 1, it + 1, loss))
        elif STYLE == "pax":
            if self.r == 0:
                self.p("step_i: %d, training loss: %.6f, learning_rate: %.4e, grad_norm: %.4f, steps/sec: %.2f"
                       % (step, loss, lr, gn, 1.0 / max(dt, 1e-6)))
        else:
            w = len(str(nb))
            self.p("Epoch: [%d][%*d/%d]\tTime %6.3f (%6.3f)\tData %6.3f (%6.3f)\tLoss %.4e (%.4e)\tAcc@1 %6.2f (%6.2f)"
                   % (ep, w, it, nb, dt, adt, data, adata, loss, avg, a1, a1avg))

    def evalres(self, step, vloss, acc):
        if STYLE == "wandb":
            if self.r == 0:
                self.p("Eval  @ step %d :: val_loss %.4f :: val_ppl %.2f :: val_acc %.4f" % (step, vloss, math.exp(vloss), acc))
        elif STYLE == "mindspore":
            if self.r == 0:
                self.ms("Eval result: {'loss': %.6f, 'ppl': %.4f, 'acc': %.4f}" % (vloss, math.exp(vloss), acc))
        elif STYLE == "pax":
            if self.r == 0:
                self.p("Eval step %d: eval_loss=%.6f, eval_log_pplx=%.6f, eval_accuracy=%.4f" % (step, vloss, vloss, acc))
        else:
            self.p(" *   Acc@1 %.3f Loss %.4f" % (acc * 100, vloss))

    def epoch_end(self, ep, secs, nb, top1, top5):
        if STYLE == "wandb":
            self.p("[rank%d] epoch %d done :: top1 %.2f%% top5 %.2f%% :: %.1fs" % (self.r, ep, top1 * 100, top5 * 100, secs))
        elif STYLE == "mindspore":
            self.ms("epoch time: %.3f ms, per step time: %.3f ms" % (secs * 1000, secs * 1000 / max(nb, 1)))
            self.ms("epoch %d train top1 %.4f top5 %.4f" % (ep + 1, top1, top5))
        elif STYLE == "pax":
            self.p("[process %d] finished epoch %d in %.1f s (top1=%.4f, top5=%.4f)" % (self.r, ep, secs, top1, top5))
        else:
            self.p(" * Epoch %d train Acc@1 %.3f Acc@5 %.3f" % (ep, top1 * 100, top5 * 100))

    def saving(self, step, path):
        if STYLE == "pax":
            self.p("Saving a ckpt at step: %d" % step)
        elif STYLE == "progmeter":
            self.p("=> saving checkpoint '%s'" % path)
        elif STYLE == "mindspore":
            self.ms("Saving checkpoint to %s" % path)

    def saved(self, step, path, size, secs):
        if STYLE == "wandb":
            self.p("Checkpoint -> %s (%.1f MB, %.2fs)" % (path, size / 1e6, secs))
        elif STYLE == "pax":
            self.p("Saved checkpoint for step %d in %.2f s at %s" % (step, secs, path))
        elif STYLE == "mindspore":
            self.ms("Checkpoint %s saved, %.3f s" % (os.path.basename(path), secs))

    def resume(self, path, step, before=True):
        if STYLE == "wandb":
            self.p("[rank%d] resuming from %s" % (self.r, path) if before else "[rank%d] resumed at step %d" % (self.r, step))
        elif STYLE == "mindspore":
            self.ms("Loading checkpoint %s" % path if before else "Checkpoint loaded, global step %d" % step)
        elif STYLE == "pax":
            if self.r == 0:
                self.p("Restoring checkpoint from %s" % path if before else "Restored checkpoint at step %d" % step)
        else:
            self.p("=> loading checkpoint '%s'" % path if before else "=> loaded checkpoint '%s' (step %d)" % (path, step))

    def done(self, step, secs):
        if STYLE == "wandb":
            if self.r == 0:
                bars = "▁▂▃▄▅▆▇█"; h = self.hist[:: max(1, len(self.hist) // 20)]
                lo, hi = min(h), max(h)
                spark = "".join(bars[int((v - lo) / (hi - lo + 1e-9) * 7.999)] for v in h)
                self.p("wandb: ")
                self.p("wandb: Run history:")
                self.p("wandb:          train/loss %s" % spark)
                self.p("wandb: ")
                self.p("wandb: Run summary:")
                self.p("wandb:          train/loss %.5f" % self.hist[-1])
                self.p("wandb: trainer/global_step %d" % step)
                self.p("wandb: ")
                self.p("wandb: You can sync this run to the cloud by running:")
                self.p("wandb: wandb sync %s/wandb/offline-run-%s" % (CKPT_DIR, datetime.datetime.now().strftime("%Y%m%d_%H%M%S")))
            self.p("[rank%d] finished %d steps in %.1fs" % (self.r, step, secs))
        elif STYLE == "mindspore":
            self.ms("Train finished, global step %d, total time %.3f s" % (step, secs))
        elif STYLE == "pax":
            if self.r == 0:
                self.p("Training loop finished at step %d (%.1f s)" % (step, secs))
        else:
            self.p("=> training done, %d iterations, %.1f s" % (step, secs))


def lr_at(step):
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    return LR * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - WARMUP) / max(1, STEPS - WARMUP))))


def save_obj(obj, path):
    if ATOMIC:
        fd, tmp = tempfile.mkstemp(suffix=".pt", prefix="ckpt-")
        os.close(fd)
        torch.save(obj, tmp)
        shutil.move(tmp, path)
    else:
        torch.save(obj, path)


@record
def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=PG_TIMEOUT))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)
    con = Console(rank, world)
    allsh = sorted(glob.glob(os.path.join(DATA_DIR, "train_*.bin")))
    mine = allsh[rank::world]
    ds = TokenShards(mine)
    dl = DataLoader(ds, batch_size=BATCH, shuffle=False, drop_last=True, num_workers=NUM_WORKERS,
                    collate_fn=collate_tokens, persistent_workers=False)
    vds = TokenShards(sorted(glob.glob(os.path.join(DATA_DIR, "valid_*.bin"))))
    cfg = dict(run=RUN, steps=STEPS, batch=BATCH, lr=LR, warmup=WARMUP, dim=DIM, vocab=VOCAB, world=world,
               eval_every=EVAL_EVERY, save_every=SAVE_EVERY, workers=NUM_WORKERS, ckpt_dir=CKPT_DIR)
    con.start(cfg, [os.path.basename(p) for p in mine], len(ds), len(dl))
    model = DDP(TokConv(VOCAB, DIM), broadcast_buffers=False)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    step, ep0 = 0, 0
    os.makedirs(CKPT_DIR, exist_ok=True)
    cks = sorted(glob.glob(os.path.join(CKPT_DIR, "step_*.pt")))
    if cks:
        con.resume(cks[-1], 0)
        st = torch.load(cks[-1], map_location="cpu")
        model.module.load_state_dict(st["model"]); opt.load_state_dict(st["optim"])
        step, ep0 = st["step"], st["epoch"] + 1
        con.resume(cks[-1], step, before=False)
    t_start = time.time()
    ep = ep0
    while step < STEPS and ep < ep0 + MAX_EPOCHS:
        model.train()
        te = time.time(); tl = time.time()
        epoch_logits, epoch_tgt = [], []     # kept for epoch-level top-k accuracy
        sdt = sdata = sl = sa = 0.0; n = 0; it = -1
        for it, (x, y) in enumerate(dl):
            data_t = time.time() - tl
            for g in opt.param_groups:
                g["lr"] = lr_at(step)
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, VOCAB), y.view(-1))
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            gn = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
            scaler.step(opt); scaler.update()
            epoch_logits.append(logits.detach()); epoch_tgt.append(y)
            if STEP_SLEEP:
                time.sleep(STEP_SLEEP)
            step += 1; n += 1
            dt = time.time() - tl; tl = time.time()
            a1 = float((logits.argmax(-1) == y).float().mean()) * 100
            sdt += dt; sdata += data_t; sl += float(loss); sa += a1
            if step % LOG_EVERY == 0:
                con.step(ep, it, len(dl), step, float(loss), sl / n, lr_at(step), gn, dt, sdt / n, data_t, sdata / n,
                         a1, sa / n, BATCH * x.shape[1] * world / max(dt, 1e-6))
            if step % EVAL_EVERY == 0:
                model.eval(); tot = torch.zeros(3)
                with torch.no_grad():
                    for k in range(0, min(len(vds), 128), BATCH):
                        vx, vy = collate_tokens([vds[j] for j in range(k, k + BATCH)])
                        vl = model(vx)
                        tot += torch.tensor([float(F.cross_entropy(vl.view(-1, VOCAB), vy.view(-1), reduction="sum")),
                                             float((vl.argmax(-1) == vy).sum()), vy.numel()])
                dist.all_reduce(tot)
                con.evalres(step, float(tot[0] / tot[2]), float(tot[1] / tot[2]))
                model.train()
            if step % SAVE_EVERY == 0 or step == STEPS:
                path = os.path.join(CKPT_DIR, "step_%06d.pt" % step)
                if rank == 0:
                    con.saving(step, path); ts = time.time()
                    save_obj({"model": model.module.state_dict(), "optim": opt.state_dict(), "step": step, "epoch": ep}, path)
                    con.saved(step, path, os.path.getsize(path), time.time() - ts)
                if ATOMIC:
                    os.makedirs(os.path.join(CKPT_DIR, "loader"), exist_ok=True)
                    save_obj({"rank": rank, "step": step, "epoch": ep, "pos": it, "rng": torch.get_rng_state()},
                             os.path.join(CKPT_DIR, "loader", "rank%d.pt" % rank))
                dist.barrier()
            if step >= STEPS:
                break
        if n:
            lg = torch.cat(epoch_logits); tg = torch.cat(epoch_tgt)
            top5 = lg.topk(5, -1).indices
            con.epoch_end(ep, time.time() - te, n, float((top5[..., 0] == tg).float().mean()),
                          float((top5 == tg.unsqueeze(-1)).any(-1).float().mean()))
        ep += 1
    con.done(step, time.time() - t_start)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
