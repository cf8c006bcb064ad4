# ParlAI-like seq model trainer (b15 trainer B). Knows nothing about injected faults.
import os, sys, time, logging, math
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
import b15common as c

rank, world, local_rank = c.setup()
class Fmt(logging.Formatter):
    def format(self, r):
        lvl = "" if r.levelno == logging.INFO else (" WARN" if r.levelno == logging.WARNING else " " + r.levelname)
        return f"{self.formatTime(r, '%H:%M:%S')}{lvl} | {r.getMessage()}"
h = logging.StreamHandler(sys.stdout); h.setFormatter(Fmt())
log = logging.getLogger("parlai"); log.addHandler(h); log.setLevel(logging.INFO)
def info(m):
    if rank == 0 or os.environ.get("ALL_RANKS_LOG") == "1": log.info(m)

DATA = os.environ["DATA_DIR"]; MF = os.environ.get("MODEL_FILE", "")
STEPS = c.env_int("STEPS", 300); BS = c.env_int("BATCH", 16); NW = c.env_int("NUM_WORKERS", 0)
LOG_EVERY = c.env_int("LOG_EVERY", 25); VAL_EVERY = c.env_int("VAL_EVERY", 100); SLEEP = c.env_float("STEP_SLEEP", 0.0)

info(f"Opt:")
for k, v in [("batchsize", BS), ("datapath", DATA), ("distributed_world_size", world), ("log_every_n_steps", LOG_EVERY),
             ("max_train_steps", STEPS), ("model", "transformer/generator"), ("model_file", MF), ("num_workers", NW),
             ("validation_every_n_steps", VAL_EVERY), ("validation_metric", "ppl")]:
    info(f"    {k}: {v}")
info(f"Current internal commit: none")
info(f"building dictionary first...")
model = c.TinyLM()
info(f"Total parameters: {sum(p.numel() for p in model.parameters()):,} ({sum(p.numel() for p in model.parameters() if p.requires_grad):,} trainable)")
ds = c.ShardTokens(DATA, "train")
info(f"creating task(s): fromfile:parlaiformat")
info(f"Loading ParlAI text data: {DATA}/train.bin")
sampler = DistributedSampler(ds, world, rank, shuffle=True, seed=5)
dl = DataLoader(ds, batch_size=BS, sampler=sampler, num_workers=NW)
ddp = DDP(model); opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
info("training...")
tstart = time.time(); step = 0; ex = 0; acc = {"loss": 0.0, "n": 0, "gnorm": 0.0, "tok": 0}; tlast = time.time(); epoch = 0
vds = None
MDIR = os.environ.get("METRICS_DIR", "")
import json
_hist = []
def trainstats(d):
    # per-node stats file, rewritten atomically at every report (like model_file.trainstats)
    if MDIR and local_rank == 0:
        _hist.append(d)
        fn = os.path.join(MDIR, f"{os.uname().nodename}.trainstats")
        with open(fn + ".tmp", "w") as f:
            json.dump({"history": _hist}, f)
        os.replace(fn + ".tmp", fn)
trainstats({"event": "start", "world": world, "rank": rank})
def report(tag, m):
    keys = list(m.keys())
    if tag: info(f"{tag}")
    info("    " + "  ".join(f"{k:>8}" for k in keys))
    info("    " + "  ".join(f"{m[k]:>8.4g}" if isinstance(m[k], float) else f"{m[k]:>8}" for k in keys))
def validate():
    global vds
    info("running eval: valid")
    if vds is None:
        vds = c.ShardTokens(DATA, "valid")
    vdl = DataLoader(vds, batch_size=32, sampler=DistributedSampler(vds, world, rank, shuffle=False))
    ddp.eval(); t = torch.zeros(3)
    with torch.no_grad():
        for x, y in vdl:
            o = ddp(x); t[0] += F.cross_entropy(o.reshape(-1, o.size(-1)), y.reshape(-1), reduction="sum"); t[1] += y.numel()
            t[2] += (o.argmax(-1) == y).float().sum()
    dist.all_reduce(t); ddp.train()
    l = (t[0] / t[1]).item()
    report(f"valid:", {"exs": int(t[1].item() // 64), "loss": l, "ppl": math.exp(l), "token_acc": (t[2] / t[1]).item()})
    if MF and rank == 0:
        torch.save(model.state_dict(), MF + ".checkpoint"); info(f"saving model checkpoint: {MF}.checkpoint")
while step < STEPS:
    sampler.set_epoch(epoch); epoch += 1
    for x, y in dl:
        o = ddp(x); loss = F.cross_entropy(o.reshape(-1, o.size(-1)), y.reshape(-1))
        opt.zero_grad(); loss.backward(); gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), 0.1); opt.step()
        step += 1; ex += x.size(0) * world
        acc["loss"] += loss.item(); acc["n"] += 1; acc["gnorm"] += gn.item(); acc["tok"] += y.numel()
        if SLEEP: time.sleep(SLEEP)
        if step % LOG_EVERY == 0:
            dt = time.time() - tlast; el = time.time() - tstart
            info(f"time:{el:.0f}s total_exs:{ex} total_steps:{step} epochs:{ex/len(ds):.2f} time_left:{el/step*(STEPS-step):.0f}s")
            l = acc["loss"] / acc["n"]
            report("", {"clip": 1.0, "ctpb": float(acc['tok']/acc['n']), "exps": float(x.size(0)*world*acc['n']/dt), "exs": x.size(0)*world*acc['n'],
                        "gnorm": acc["gnorm"]/acc["n"], "loss": l, "lr": opt.param_groups[0]["lr"], "ppl": math.exp(l), "tps": float(acc['tok']*world/dt), "ups": float(acc['n']/dt)})
            trainstats({"step": step, "loss": l, "gnorm": acc["gnorm"]/acc["n"], "t": time.time()})
            acc = {"loss": 0.0, "n": 0, "gnorm": 0.0, "tok": 0}; tlast = time.time()
        if step % VAL_EVERY == 0:
            validate()
        if step >= STEPS: break
info(f"max_train_steps elapsed:{time.time()-tstart:.0f}s")
dist.barrier(); dist.destroy_process_group()
