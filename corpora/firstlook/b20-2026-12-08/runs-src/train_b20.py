# b20 trainer: tiny causal transformer LM on int16 .npy token shards, DDP over gloo, torchrun launched.
# Console format chosen by STYLE: levanter | neox | dino | dgl | sacred | catalyst | pgt
import os, sys, time, json, math, glob, socket, datetime, logging, warnings
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import IterableDataset, DataLoader, get_worker_info
from torch.distributed.elastic.multiprocessing.errors import record

E = os.environ.get
STYLE = E("STYLE", "levanter")
HOST = socket.gethostname()
VOCAB, SEQ = 1024, 64


def load_cfg(path, depth=0):
    """JSON config with optional "_base_" (path relative to the file) merged underneath."""
    with open(path) as f:
        cfg = json.load(f)
    base = cfg.pop("_base_", None)
    if base:
        merged = load_cfg(os.path.join(os.path.dirname(path), base), depth + 1)
        merged.update(cfg)
        cfg = merged
    return cfg


DEFAULTS = dict(run_name="tokxf", steps=400, epochs=100, batch=8, lr=2e-3, warmup=20, log_every=20, eval_every=100,
                save_every=100, data_dir="/data", ckpt_dir="/ckpt", num_workers=0, step_sleep=0.0, pg_timeout=120,
                dim=64, heads=4, keep_teacher=0, find_unused=0, legacy=0, reload_cfg=0, aux_head=0)


def get_cfg():
    cfg = dict(DEFAULTS)
    if E("CONFIG"):
        cfg.update(load_cfg(E("CONFIG")))
    for k, v in list(cfg.items()):
        ev = E(k.upper())
        if ev is not None:
            cfg[k] = type(v)(ev) if not isinstance(v, bool) else ev == "1"
    return cfg


class ShardStream(IterableDataset):
    """streams this rank's shards one file at a time (opened when reached)"""
    def __init__(self, paths, batch):
        self.paths, self.batch = paths, batch

    def __iter__(self):
        wi = get_worker_info()
        paths = self.paths if wi is None else self.paths[wi.id::wi.num_workers]
        for p in paths:
            a = np.load(p)
            for i in range(0, len(a) - self.batch + 1, self.batch):
                x = torch.from_numpy(a[i:i + self.batch].astype(np.int64))
                yield x[:, :-1], x[:, 1:]

    def nbatches(self):
        return sum(np.load(p, mmap_mode="r").shape[0] // self.batch for p in self.paths)


class TokXF(nn.Module):
    def __init__(self, V, D, H, unused_head=False):
        super().__init__()
        self.emb = nn.Embedding(V, D); self.pos = nn.Parameter(torch.zeros(SEQ, D))
        self.blk = nn.TransformerEncoderLayer(D, H, 2 * D, dropout=0.0, batch_first=True, norm_first=True)
        self.ln = nn.LayerNorm(D); self.head = nn.Linear(D, V)
        self.aux = nn.Linear(D, 8) if unused_head else None
        self.register_buffer("mask", torch.triu(torch.full((SEQ, SEQ), float("-inf")), 1))

    def forward(self, x):
        T = x.shape[1]
        h = self.emb(x) + self.pos[:T]
        h = self.blk(h, src_mask=self.mask[:T, :T])
        return self.head(self.ln(h))


# ------------------------------------------------------------------ console formats
class Con:
    def __init__(self, rank, world, cfg):
        self.r, self.w, self.c, self.t0 = rank, world, cfg, time.time()
        self.name = cfg["run_name"]
        if STYLE == "levanter":
            logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                                format="%(asctime)s - %(process)d - %(name)s - %(filename)s:%(lineno)d - %(levelname)s :: %(message)s")
        elif STYLE == "sacred":
            logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s - %(name)s - %(message)s")
        self.lt = logging.getLogger("levanter.trainer"); self.lc = logging.getLogger("levanter.checkpoint")
        self.ld = logging.getLogger("levanter.data"); self.ls = logging.getLogger(self.name)

    def p(self, s):
        print(s, flush=True)

    def z(self):
        return self.r == 0

    def start(self, nsh, nb, ntok):
        c, r, w = self.c, self.r, self.w
        if STYLE == "levanter":
            self.lt.info("Setting run id to %s", self.name)
            self.lt.info("Distributed: process_index=%d process_count=%d host=%s devices=[cpu:0]", r, w, HOST)
            self.ld.info("Loading %d shards from %s (%d batches/epoch, %d tokens)", nsh, c["data_dir"], nb, ntok)
            if self.z():
                self.lt.info("TrainerConfig(num_train_steps=%d, train_batch_size=%d, learning_rate=%g, warmup=%d, steps_per_eval=%d, checkpointer.save_interval=%d, base_path=%s)",
                             c["steps"], c["batch"] * w, c["lr"], c["warmup"], c["eval_every"], c["save_every"], c["ckpt_dir"])
        elif STYLE == "neox":
            if self.z():
                self.p("NeoXArgs.configure_distributed_args() using world size: %d and model-parallel size: 1 " % w)
                self.p("> initializing torch distributed ...")
                self.p("> setting random seeds to 1234 ...")
                self.p("building GPT2 model ...")
                self.p(" > number of parameters on model parallel rank 0: %d" % self.nparams)
                self.p("> building train, validation, and test datasets ...")
                self.p("    train:      %d tokens per rank, %d shards" % (ntok, nsh))
            self.p("[rank %d] host %s: data shards %d, batches per epoch %d" % (r, HOST, nsh, nb))
            if self.z():
                self.p("done with setups ...")
                self.p("training ...")
        elif STYLE == "dino":
            self.p("| distributed init (rank %d): env://" % r)
            if self.z():
                self.p("git:\n  sha: N/A, status: clean, branch: N/A\n")
                for k in sorted(c):
                    self.p("%s: %s" % (k, c[k]))
                self.p("Data loaded: there are %d sequences." % (ntok // SEQ * w))
                self.p("Student and Teacher are built: they are both tokxf_tiny network.")
                self.p("Loss, optimizer and schedulers ready.")
                self.p("Starting DINO training !")
        elif STYLE == "dgl":
            self.p("rank: %d" % r)
            self.p("part %d, train: %d (local: %d), shards: %d, host: %s" % (r, ntok // SEQ * w, ntok // SEQ, nsh, HOST))
        elif STYLE == "sacred":
            self.ls.info("Running command 'main'")
            self.ls.info('Started run with ID "%d"' % (r + 1))
            self.ls.info("rank %d/%d on %s: %d shards, %d batches/epoch" % (r, w, HOST, nsh, nb))
        elif STYLE == "catalyst":
            if self.z():
                self.p("Catalyst-style runner: DDP(gloo) world_size=%d, stages=['train'], epochs=%d, ckpt=%s" % (w, c["epochs"], c["ckpt_dir"]))
            self.p("[rank %d] loaders: train=%d batches, valid=1 | host=%s" % (r, nb, HOST))
        elif STYLE == "pgt":
            self.p("[r%d] %s | temporal signal: %d snapshots/epoch from %d shard files | world %d" % (r, HOST, nb, nsh, w))

    def resume(self, path, step, before):
        if before:
            {"levanter": lambda: self.lc.info("Loading checkpoint from %s", path),
             "neox": lambda: self.p(" loading checkpoint from %s" % path),
             "dino": lambda: self.p("Found checkpoint at %s" % path),
             "dgl": lambda: self.p("Part %d | loading model state from %s" % (self.r, path)),
             "sacred": lambda: self.ls.info("restoring from %s" % path),
             "catalyst": lambda: self.p("=> Loading checkpoint %s" % path),
             "pgt": lambda: self.p("[r%d] resume: %s" % (self.r, path))}[STYLE]()
        else:
            {"levanter": lambda: self.lc.info("Resuming training from step %d", step),
             "neox": lambda: self.p("  successfully loaded checkpoint from %s at iteration %d" % (path, step)),
             "dino": lambda: self.p("=> loaded 'student', 'teacher', 'optimizer' from checkpoint '%s' (step %d)" % (path, step)),
             "dgl": lambda: self.p("Part %d | resumed at step %d" % (self.r, step)),
             "sacred": lambda: self.ls.info("restored step %d" % step),
             "catalyst": lambda: self.p("loaded state checkpoint %s (global batch step %d)" % (path, step)),
             "pgt": lambda: self.p("[r%d] resumed at step %d" % (self.r, step))}[STYLE]()

    def step(self, s):
        c, r = self.c, self.r
        if STYLE == "levanter":
            if self.z():
                self.lt.info("Progress on:train %d/%d loss=%.4f lr=%.3e grad_norm=%.3f throughput/tokens_per_second=%.1f throughput/duration=%.3f",
                             s["step"], c["steps"], s["loss"], s["lr"], s["gn"], s["tps"], s["dt"])
        elif STYLE == "neox":
            if self.z():
                self.p(" samples/sec: %.3f | iteration %8d/%8d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | approx flops per GPU: %.1fGFLOPS | lm_loss: %.6E | loss scale: 1.0 | number of skipped iterations: %3d | number of nan iterations: %3d |"
                       % (s["sps"], s["step"], c["steps"], s["adt"] * 1000, s["lr"], s["flops"] / 1e9, s["aloss"], 0, 0))
        elif STYLE == "dino":
            if self.z():
                self.p("Epoch [%d/%d] it [%4d/%d] loss %.4f (%.4f) lr %.2e wd %.4f mom %.5f t_temp %.4f %.3fs/it"
                       % (s["ep"], c["epochs"], s["it"], s["nb"], s["loss"], s["aloss"], s["lr"], s["wd"], s["mom"], s["tt"], s["adt"]))
        elif STYLE == "dgl":
            self.p("Part %d | Epoch %05d | Step %05d | Loss %.4f | Train Acc %.4f | Speed (samples/sec) %.4f | GPU %.1f MB | time %.3f s"
                   % (r, s["ep"], s["it"], s["loss"], s["acc"], s["sps"], 0.0, s["dt"]))
        elif STYLE == "sacred":
            self.ls.info("step %d/%d | epoch %d | loss %.4f | acc %.4f | lr %.2e | %.3f s/step" % (s["step"], c["steps"], s["ep"], s["loss"], s["acc"], s["lr"], s["adt"]))
        elif STYLE == "catalyst":
            self.p("%d/%d * Epoch (train) %d/%d: loss=%.4f | accuracy01=%.4f | lr=%.5f | %.2f batch/s"
                   % (s["ep"] + 1, c["epochs"], s["it"] + 1, s["nb"], s["loss"], s["acc"], s["lr"], 1.0 / max(s["adt"], 1e-6)))
        elif STYLE == "pgt":
            self.p("[r%d] Epoch: %03d, Snapshot: %03d/%03d, CE: %.4f, Acc: %.4f, lr: %.2e, %.3fs"
                   % (r, s["ep"], s["it"], s["nb"], s["loss"], s["acc"], s["lr"], s["dt"]))

    def evalres(self, step, ep, loss, acc):
        if STYLE == "levanter":
            if self.z():
                self.lt.info("eval loss: %.3f | ppl: %.2f | acc: %.4f (step %d)", loss, math.exp(loss), acc, step)
        elif STYLE == "neox":
            if self.z():
                l = " validation results at iteration %d | lm_loss value: %.6E | lm_loss_ppl value: %.6E | " % (step, loss, math.exp(loss))
                self.p("-" * (len(l) + 1)); self.p(l); self.p("-" * (len(l) + 1))
        elif STYLE == "dino":
            if self.z():
                self.p("* proxy eval at it %d: teacher CE %.4f, top-1 %.2f%%" % (step, loss, acc * 100))
        elif STYLE == "dgl":
            self.p("Part %d, Val Acc %.4f, Val Loss %.4f, step %d" % (self.r, acc, loss, step))
        elif STYLE == "sacred":
            self.ls.info("validation @%d: loss %.4f acc %.4f" % (step, loss, acc))
        elif STYLE == "catalyst":
            if self.z():
                self.p("valid (%d/%d) loss: %.4f | accuracy01: %.4f" % (ep + 1, self.c["epochs"], loss, acc))
        elif STYLE == "pgt":
            self.p("[r%d] Epoch: %03d, Val CE: %.4f, Val Acc: %.4f" % (self.r, ep, loss, acc))

    def saving(self, step, path):
        {"levanter": lambda: self.lc.info("Saving checkpoint to %s for step %d", path, step),
         "neox": lambda: self.p("saving checkpoint at iteration %7d to %s" % (step, path)) if self.z() else None,
         "dino": lambda: None, "dgl": lambda: None,
         "sacred": lambda: self.ls.info("saving shard %s" % path),
         "catalyst": lambda: None, "pgt": lambda: None}[STYLE]()

    def saved(self, step, path, nbytes, dt):
        {"levanter": lambda: self.lc.info("Saved checkpoint for step %d (%d bytes, %.2fs)", step, nbytes, dt),
         "neox": lambda: self.p("  successfully saved checkpoint at iteration %7d to %s" % (step, path)) if self.z() else None,
         "dino": lambda: self.p("[rank %d] checkpoint written: %s" % (self.r, path)),
         "dgl": lambda: self.p("Part %d | saved model state to %s (%.1f KB)" % (self.r, path, nbytes / 1024)),
         "sacred": lambda: self.ls.info("saved %s (%d bytes)" % (path, nbytes)),
         "catalyst": lambda: self.p("=> Saved checkpoint %s" % path) if self.z() else None,
         "pgt": lambda: self.p("[r%d] Checkpoint saved: %s" % (self.r, path))}[STYLE]()

    def epoch_end(self, ep, s):
        c = self.c
        if STYLE == "dino":
            if self.z():
                self.p("Averaged stats: loss: %.6f (%.6f)  lr: %.6f  wd: %.6f" % (s["loss"], s["aloss"], s["lr"], s["wd"]))
        elif STYLE == "dgl":
            self.p("Part %d, Epoch Time(s): %.4f, sample+data_copy: %.4f, forward: %.4f, backward: %.4f, update: %.4f, #seeds: %d, #inputs: %d"
                   % (self.r, s["et"], s["td"], s["tf"], s["tb"], s["tu"], s["n"] * c["batch"], s["n"] * c["batch"] * SEQ))
        elif STYLE == "catalyst":
            if self.z():
                self.p("train (%d/%d) loss: %.4f | accuracy01: %.4f | lr: %.5f | _timer/batch_time: %.4f | _timer/_fps: %.2f"
                       % (ep + 1, c["epochs"], s["aloss"], s["aacc"], s["lr"], s["adt"], c["batch"] / max(s["adt"], 1e-6)))
                self.p("* Epoch (%d/%d) lr: %.5f | momentum: 0.9000" % (ep + 1, c["epochs"], s["lr"]))
        elif STYLE == "pgt":
            self.p("[r%d] Epoch: %03d done, mean CE: %.4f, %.1fs" % (self.r, ep, s["aloss"], s["et"]))
        elif STYLE == "sacred":
            self.ls.info("epoch %d finished: mean loss %.4f in %.1fs" % (ep, s["aloss"], s["et"]))
        elif STYLE == "levanter":
            if self.z():
                self.ld.info("Finished pass %d over data (%d batches)", ep, s["n"])

    def done(self, step, result):
        dt = datetime.timedelta(seconds=int(time.time() - self.t0))
        {"levanter": lambda: self.lt.info("Training complete: %d steps, final loss %.4f", step, result) if self.z() else None,
         "neox": lambda: self.p("Training complete after %d iterations" % step) if self.z() else None,
         "dino": lambda: self.p("Training time %s" % dt) if self.z() else None,
         "dgl": lambda: self.p("Part %d | training done, %d steps" % (self.r, step)),
         "sacred": lambda: (self.ls.info("Result: %.4f" % result), self.ls.info("Completed after %s" % dt)),
         "catalyst": lambda: self.p("Top best models:\n%s/last.pth\t%.4f" % (self.c["ckpt_dir"], result)) if self.z() else None,
         "pgt": lambda: self.p("[r%d] finished: %d steps" % (self.r, step))}[STYLE]()


def lr_at(c, step):
    if step < c["warmup"]:
        return c["lr"] * (step + 1) / c["warmup"]
    return c["lr"] * 0.5 * (1 + math.cos(math.pi * min(1.0, (step - c["warmup"]) / max(1, c["steps"] - c["warmup"]))))


def train(cfg):
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=int(cfg["pg_timeout"])))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)
    con = Con(rank, world, cfg)
    allsh = sorted(glob.glob(os.path.join(cfg["data_dir"], "shard-*.npy")))
    mine = allsh[rank::world]
    ds = ShardStream(mine, cfg["batch"])
    nb = ds.nbatches()
    net = TokXF(VOCAB, cfg["dim"], cfg["heads"], unused_head=bool(cfg["aux_head"]))
    con.nparams = sum(p.numel() for p in net.parameters())
    con.start(len(mine), nb, nb * cfg["batch"] * SEQ)
    ddp_kw = dict(broadcast_buffers=False) if cfg["legacy"] else {}
    model = DDP(net, find_unused_parameters=bool(cfg["find_unused"]), **ddp_kw)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.04)
    val = torch.from_numpy(np.load(os.path.join(cfg["data_dir"], "val.npy")).astype(np.int64))[rank::world][:32]
    ckdir = cfg["ckpt_dir"]; os.makedirs(ckdir, exist_ok=True)
    step, ep0 = 0, 0
    lat = os.path.join(ckdir, "latest")
    if os.path.exists(lat):
        tag = open(lat).read().strip()
        path = os.path.join(ckdir, tag, "rank_%02d.pt" % rank)
        if not os.path.exists(path):
            path = os.path.join(ckdir, tag, "rank_00.pt")
        con.resume(path, 0, True)
        st = torch.load(path, map_location="cpu")
        model.module.load_state_dict(st["model"]); opt.load_state_dict(st["optim"])
        step, ep0 = st["step"], st["epoch"] + 1
        con.resume(path, step, False)
    dl = DataLoader(ds, batch_size=None, num_workers=int(cfg["num_workers"])) if int(cfg["num_workers"]) > 0 else ds
    teacher_bank = []
    last = float("nan")
    for ep in range(ep0, ep0 + cfg["epochs"]):
        if step >= cfg["steps"]:
            break
        te = tl = time.time(); acc_ = dict(n=0, l=0.0, a=0.0, dt=0.0, td=0.0, tf=0.0, tb=0.0, tu=0.0)
        it = -1
        for it, (x, y) in enumerate(dl):
            t1 = time.time(); acc_["td"] += t1 - tl
            lr = lr_at(cfg, step)
            for g in opt.param_groups:
                g["lr"] = lr
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
            t2 = time.time(); acc_["tf"] += t2 - t1
            opt.zero_grad(set_to_none=True)
            loss.backward()
            t3 = time.time(); acc_["tb"] += t3 - t2
            gn = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
            opt.step()
            if cfg["keep_teacher"]:
                teacher_bank.append(F.softmax(logits.detach() / 0.04, -1))   # teacher outputs kept for epoch centering
            if cfg["step_sleep"]:
                time.sleep(cfg["step_sleep"])
            step += 1
            dt = time.time() - tl; tl = time.time(); acc_["tu"] += tl - t3
            a1 = float((logits.argmax(-1) == y).float().mean())
            if cfg["legacy"]:
                last = float(loss)
            else:
                last = float(loss.detach())
            acc_["n"] += 1; acc_["l"] += last; acc_["a"] += a1; acc_["dt"] += dt
            n = acc_["n"]
            if step % cfg["log_every"] == 0:
                prog = min(1.0, step / cfg["steps"])
                con.step(dict(step=step, ep=ep, it=it, nb=nb, loss=last, aloss=acc_["l"] / n, acc=a1, lr=lr, gn=gn, dt=dt,
                              adt=acc_["dt"] / n, tps=x.numel() * world / max(dt, 1e-6), sps=x.shape[0] * world / max(dt, 1e-6),
                              flops=6 * con.nparams * x.numel() / max(dt, 1e-6), wd=0.04 + 0.36 * prog,
                              mom=1 - 0.004 * (math.cos(math.pi * prog) + 1) / 2, tt=0.04 + 0.03 * prog))
            if step % cfg["eval_every"] == 0:
                model.eval()
                with torch.no_grad():
                    vl = model(val[:, :-1]); vy = val[:, 1:]
                    t = torch.tensor([float(F.cross_entropy(vl.reshape(-1, VOCAB), vy.reshape(-1), reduction="sum")),
                                      float((vl.argmax(-1) == vy).sum()), float(vy.numel())])
                dist.all_reduce(t)
                con.evalres(step, ep, float(t[0] / t[2]), float(t[1] / t[2]))
                if cfg["reload_cfg"] and E("CONFIG"):      # pick up edited schedule knobs between evals
                    new = load_cfg(E("CONFIG"))
                    for k in ("lr", "warmup", "log_every", "eval_every"):
                        if k in new and new[k] != cfg[k]:
                            cfg[k] = type(cfg[k])(new[k])
                            if STYLE == "pgt":
                                con.p("[r%d] config: %s -> %s" % (rank, k, new[k]))
                model.train()
            if step % cfg["save_every"] == 0 or step == cfg["steps"]:
                tag = "step_%06d" % step
                os.makedirs(os.path.join(ckdir, tag), exist_ok=True)
                path = os.path.join(ckdir, tag, "rank_%02d.pt" % rank)
                con.saving(step, path); ts = time.time()
                torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "step": step, "epoch": ep}, path)
                con.saved(step, path, os.path.getsize(path), time.time() - ts)
                dist.barrier()
                if rank == 0:
                    with open(os.path.join(ckdir, tag, "meta.json"), "w") as f:
                        json.dump({"step": step, "epoch": ep, "world_size": world, "time": time.time()}, f)
                    with open(lat, "w") as f:
                        f.write(tag + "\n")
            if step >= cfg["steps"]:
                break
        n = max(1, acc_["n"])
        if teacher_bank:
            center = torch.cat(teacher_bank).mean((0, 1))
        con.epoch_end(ep, dict(et=time.time() - te, n=acc_["n"], aloss=acc_["l"] / n, aacc=acc_["a"] / n, loss=last,
                               lr=lr_at(cfg, step), wd=0.04, adt=acc_["dt"] / n, td=acc_["td"], tf=acc_["tf"], tb=acc_["tb"], tu=acc_["tu"]))
    dist.barrier()
    con.done(step, last)
    dist.destroy_process_group()


@record
def main():
    cfg = get_cfg()
    if STYLE == "sacred":
        logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s - %(name)s - %(message)s")
        t0 = time.time()
        try:
            train(cfg)
        except BaseException:
            logging.getLogger(cfg["run_name"]).error("Failed after %s!" % datetime.timedelta(seconds=int(time.time() - t0)))
            raise
    else:
        train(cfg)


if __name__ == "__main__":
    main()
