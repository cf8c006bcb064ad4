"""Small shared trainer for b10 runs; STYLE selects the logging flavour."""
import os, sys, time, json, glob, socket, logging, warnings, datetime as dt
import torch, torch.nn as nn, torch.distributed as tdist
from torch.nn.parallel import DistributedDataParallel as DDP

STYLE = os.environ.get("STYLE", "wallclock")
STEPS = int(os.environ.get("STEPS", "200"))
SLEEP = float(os.environ.get("STEP_SLEEP", "0.3"))
EPOCH_LEN = int(os.environ.get("EPOCH_LEN", "20"))
CKPT_DIR = os.environ.get("CKPT_DIR")
CKPT_EVERY = int(os.environ.get("CKPT_EVERY", "0"))
SHARDED = os.environ.get("SHARDED_CKPT", "0") == "1"
DATA_DIR = os.environ.get("DATA_DIR")
NUM_WORKERS = int(os.environ.get("NUM_WORKERS", "0"))
HIDDEN = int(os.environ.get("HIDDEN", "512"))
TIMEOUT = int(os.environ.get("TRAIN_DIST_TIMEOUT", "120"))

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"]); lrank = int(os.environ["LOCAL_RANK"])
host = socket.gethostname()

# ---------------- logging flavours ----------------
class JsonFmt(logging.Formatter):
    def format(self, r):
        d = {"ts": dt.datetime.utcnow().isoformat(timespec="milliseconds") + "Z", "level": r.levelname,
             "logger": r.name, "host": host, "rank": rank, "msg": r.getMessage()}
        d.update(getattr(r, "kv", {}))
        return json.dumps(d)

if STYLE == "jsonl":
    h = logging.StreamHandler(sys.stdout); h.setFormatter(JsonFmt())
    log = logging.getLogger("trainer"); log.addHandler(h); log.setLevel(logging.INFO)
    def info(msg, **kv): log.info(msg, extra={"kv": kv})
elif STYLE == "rich":
    from rich.logging import RichHandler
    from rich.console import Console
    logging.basicConfig(level="INFO", format="%(message)s", datefmt="[%X]",
                        handlers=[RichHandler(console=Console(width=120), rich_tracebacks=True, show_path=True)])
    log = logging.getLogger("trainer")
    def info(msg, **kv): log.info(msg + ("  " + "  ".join(f"{k}={v}" for k, v in kv.items()) if kv else ""))
elif STYLE == "absl":
    from absl import logging as alog
    alog.set_verbosity(alog.INFO); alog.use_absl_handler()
    def info(msg, **kv): alog.info("%s%s", msg, ("" if not kv else " " + ", ".join(f"{k}={v}" for k, v in kv.items())))
elif STYLE == "structlog":
    import structlog
    structlog.configure(processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso"),
                                    structlog.dev.ConsoleRenderer(colors=False)])
    slog = structlog.get_logger().bind(rank=rank, host=host)
    def info(msg, **kv): slog.info(msg, **kv)
else:
    def info(msg, **kv):
        print(f"[{dt.datetime.now():%Y-%m-%d %H:%M:%S}] " + msg + ("" if not kv else " " + " ".join(f"{k}={v}" for k, v in kv.items())), flush=True)

def out(line):  # plain table/progress styles write straight to stdout
    print(line, flush=True)

# ---------------- setup ----------------
tdist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT))
torch.manual_seed(1234 + rank)
FEAT = 256
model = nn.Sequential(nn.Linear(FEAT, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, 10))
ddp = DDP(model)
opt = torch.optim.AdamW(ddp.parameters(), lr=3e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=STEPS)
nparams = sum(p.numel() for p in model.parameters())
start_step = 0

def ckpt_path(step):
    return os.path.join(CKPT_DIR, f"step_{step:06d}", f"rank{rank}.pt" if SHARDED else "model.pt")

if CKPT_DIR and os.environ.get("RESUME") == "1" and os.path.exists(os.path.join(CKPT_DIR, "latest")):
    last = int(open(os.path.join(CKPT_DIR, "latest")).read().strip())
    info(f"resuming from {ckpt_path(last)}")
    st = torch.load(ckpt_path(last), map_location="cpu")
    model.load_state_dict(st["model"]); opt.load_state_dict(st["opt"]); start_step = st["step"]
    info(f"resumed at step {start_step}")

class DS(torch.utils.data.Dataset):
    def __init__(self, n, wide): self.n, self.wide = n, wide
    def __len__(self): return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i * 7 + rank)
        x = torch.randn(self.wide, FEAT, generator=g)
        return x, torch.randint(0, 10, (self.wide,), generator=g)

def batches():
    if DATA_DIR:
        shards = sorted(glob.glob(os.path.join(DATA_DIR, "*.pt")))
        names = [os.path.basename(s) for s in shards]
        i = rank
        while True:
            p = os.path.join(DATA_DIR, names[i % len(names)]); i += world
            d = torch.load(p)
            for j in range(0, d["x"].shape[0], 32):
                yield d["x"][j:j+32], d["y"][j:j+32]
    elif NUM_WORKERS > 0:
        dl = torch.utils.data.DataLoader(DS(100000, 1024), batch_size=1, num_workers=NUM_WORKERS)
        while True:
            for x, y in dl:
                yield x[0], y[0]
    else:
        g = torch.Generator().manual_seed(rank)
        while True:
            yield torch.randn(32, FEAT, generator=g), torch.randint(0, 10, (32,), generator=g)

def save(step):
    if SHARDED or rank == 0:
        os.makedirs(os.path.dirname(ckpt_path(step)), exist_ok=True)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, ckpt_path(step))
    tdist.barrier()
    if (SHARDED and lrank == 0) or rank == 0:
        with open(os.path.join(CKPT_DIR, "latest"), "w") as f: f.write(str(step))

# ---------------- banner ----------------
if STYLE == "yolo":
    out(f"Starting training on {host} (global rank {rank}/{world}), {nparams/1e6:.2f}M parameters, CPU")
    out(f"{'Epoch':>10}{'mem':>10}{'loss':>10}{'cls_loss':>10}{'Instances':>10}{'Size':>10}")
elif STYLE == "diffusers":
    out("***** Running training *****"); out(f"  Num examples = {STEPS*32*world}"); out(f"  Num Epochs = {STEPS//EPOCH_LEN}")
    out(f"  Instantaneous batch size per device = 32"); out(f"  Total train batch size (w. parallel, distributed & accumulation) = {32*world}")
    out(f"  Total optimization steps = {STEPS}")
elif STYLE == "asr":
    out(f"[asr] host={host} rank={rank} world={world} encoder params={nparams}")
elif STYLE == "gnn":
    out(f"Data(x=[{EPOCH_LEN*32}, {FEAT}], edge_index=[2, {EPOCH_LEN*320}], y=[{EPOCH_LEN*32}], train_mask=[{EPOCH_LEN*32}]) on rank {rank}")
elif STYLE == "clip":
    out(f"Running in distributed mode with multiple processes. Device: cpu.Process (global: {rank}, local {lrank}), total {world}.")
else:
    info("process group ready", world_size=world, local_rank=lrank, params=nparams)

lossf = nn.CrossEntropyLoss()
EVAL_BATCH = int(os.environ.get("EVAL_BATCH", "0"))
scaler = torch.cuda.amp.GradScaler() if os.environ.get("AMP_SCALER") == "1" else None
def evaluate():
    with torch.no_grad():
        xe = torch.randn(EVAL_BATCH, FEAT)
        return lossf(model(xe), torch.randint(0, 10, (EVAL_BATCH,))).item()
it = batches()
t0 = time.time(); ep_loss = 0.0
for step in range(start_step + 1, STEPS + 1):
    x, y = next(it)
    loss = lossf(ddp(x), y)
    if scaler is not None: loss = scaler.scale(loss)
    opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    time.sleep(SLEEP)
    lv = loss.item(); ep_loss += lv
    lr = sched.get_last_lr()[0]
    ep = (step - 1) // EPOCH_LEN
    if step % 10 == 0:
        dtm = (time.time() - t0) / 10; t0 = time.time()
        if STYLE == "absl":
            info(f"[{step}] collection=train", loss=f"{lv:.4f}", learning_rate=f"{lr:.3e}", timing_secs=f"{dtm:.3f}")
        elif STYLE == "diffusers":
            out(f"Steps: {step}/{STEPS} step_loss={lv:.4f} lr={lr:.6f}")
        elif STYLE == "asr":
            out(f"[train] ep {ep+1} it {step}/{STEPS} | ctc {lv*41.7:.2f} | att {lv*11.3:.2f} | wer {min(99.9, 100*lv/2.5):.1f}% | {32/max(dtm,1e-6):.1f} utt/s")
        elif STYLE == "clip":
            out(f"Train Epoch: {ep} [{step*32*world:>6}/{STEPS*32*world} ({100*step/STEPS:.0f}%)] Data (t): 0.001 Batch (t): {dtm:.3f}, {32*world/dtm:.2f}/s, {32/dtm:.2f}/s/gpu LR: {lr:.6f} Logit Scale: 14.286 Contrastive_loss: {lv:.4f} ({ep_loss/((step-1)%EPOCH_LEN+1):.4f}) Loss: {lv:.4f} ({ep_loss/((step-1)%EPOCH_LEN+1):.4f})")
        elif STYLE in ("yolo", "gnn"):
            pass
        else:
            info("train step", step=step, loss=round(lv, 4), lr=f"{lr:.2e}", step_time=round(dtm, 3))
    if step % EPOCH_LEN == 0:
        avg = ep_loss / EPOCH_LEN; ep_loss = 0.0
        if STYLE == "yolo":
            out(f"{f'{ep+1}/{STEPS//EPOCH_LEN}':>10}{'0G':>10}{avg:>10.4g}{avg/3:>10.4g}{32:>10}{640:>10}")
            out(f"{'Class':>22}{'Images':>11}{'Instances':>11}{'P':>11}{'R':>11}{'mAP50':>11}")
            out(f"{'all':>22}{128:>11}{640:>11}{max(0,1-avg/3):>11.3f}{max(0,1-avg/2.8):>11.3f}{max(0,1-avg/2.6):>11.3f}")
        elif STYLE == "gnn":
            out(f"Epoch: {ep+1:03d}, Loss: {avg:.4f}, Train: {max(0,1-avg/2.5):.4f}, Val: {max(0,1-avg/2.4):.4f}, Test: {max(0,1-avg/2.3):.4f}")
        elif STYLE == "asr":
            out(f"[valid] ep {ep+1} | loss {avg:.3f} | wer {min(99.9, 100*avg/2.6):.2f}% | cer {min(99.9, 100*avg/5.2):.2f}%")
    if EVAL_BATCH and step % EPOCH_LEN == 0:
        el = evaluate()
        if STYLE == "absl": info(f"[{step}] collection=eval", loss=f"{el:.4f}", examples=EVAL_BATCH)
        else: info("eval", step=step, loss=round(el, 4))
    if CKPT_DIR and CKPT_EVERY and step % CKPT_EVERY == 0:
        save(step)
        if STYLE == "yolo": out(f"Saved checkpoint {ckpt_path(step)} (epoch {ep+1})")
        elif STYLE == "diffusers": out(f"Saved state to {CKPT_DIR}/checkpoint-{step}")
        elif STYLE in ("asr", "gnn", "clip"): out(f"saved checkpoint step {step} -> {ckpt_path(step)}")
        else: info("checkpoint saved", step=step, path=ckpt_path(step))

tdist.barrier()
if STYLE in ("yolo", "gnn", "asr", "diffusers", "clip"):
    out(f"Training complete on rank {rank}: {STEPS} steps")
else:
    info("training finished", steps=STEPS)
tdist.destroy_process_group()
