# b18 run trainer: tiny byte-level causal LM (or hashed-bigram embedding model for the pbg style),
# DDP over gloo, started by torchrun. Console format chosen by LOG_STYLE: llmc, maxtext, coqui, pbg, hvd.
import os, sys, time, json, glob, math, datetime, faulthandler, logging
faulthandler.enable()
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import Dataset, ConcatDataset, DataLoader, DistributedSampler

E = os.environ.get
STYLE = E("LOG_STYLE", "llmc")
torch.set_num_threads(1)
rank = int(E("RANK", "0")); ws = int(E("WORLD_SIZE", "1")); lrank = int(E("LOCAL_RANK", "0"))
host = os.uname().nodename
CFG_PATH = E("JOB_CONFIG", "config.json")
with open(CFG_PATH) as f:
    cfg = json.load(f)
STEPS = int(cfg["max_steps"]); LR = float(cfg["lr"]); B = int(cfg["batch_size"]); T = int(cfg["seq_len"])
LOG_EVERY = int(cfg.get("log_every", 10)); EVAL_EVERY = int(cfg.get("eval_every", 0))
SAVE_EVERY = int(cfg.get("save_every", 0)); WARMUP = int(cfg.get("warmup_steps", 0))
OPT = cfg.get("optimizer", "adamw"); CLIP = float(cfg.get("grad_clip", 1.0)); SEED = int(cfg.get("seed", 1337))
NUM_WORKERS = int(cfg.get("num_workers", 0)); AMP = bool(cfg.get("amp", False))
N_ENT = int(cfg.get("num_entities", 50000)); DIM = int(cfg.get("dim", 64))
TRAIN_PAT = E("TRAIN_DATA_PATTERN", "data/fineweb10B/fineweb_train_*.bin")
VAL_PAT = E("VAL_DATA_PATTERN", "")
CKPT_DIR = E("CKPT_DIR", "checkpoints"); RESUME = E("RESUME", "0") == "1"
SLEEP = float(E("STEP_SLEEP", "0.05")); PG_TIMEOUT = int(E("PG_TIMEOUT", "120"))
RUN_NAME = E("RUN_NAME", "run")

# ---------------------------------------------------------------- logging styles
if STYLE == "pbg":
    logging.basicConfig(format="%(asctime)s   %(message)s", level=logging.INFO, stream=sys.stdout)
    _pl = logging.getLogger("torchbiggraph")
    def plog(msg): _pl.info(f"[Trainer-{rank}] {msg}")
def now(): return datetime.datetime.now()
def p0(*a):
    if rank == 0: print(*a, flush=True)
def out(*a): print(*a, flush=True)

# ---------------------------------------------------------------- data
class Shard(Dataset):
    def __init__(self, path, n):
        hdr = np.frombuffer(open(path, "rb").read(1024), dtype=np.int32)
        if hdr[0] != 20240520:
            raise RuntimeError(f"magic number mismatch in the data .bin file {path}")
        self.tok = np.memmap(path, dtype=np.uint16, mode="r", offset=1024, shape=(int(hdr[2]),))
        self.n = n; self.path = path
    def __len__(self): return (len(self.tok) - 1) // self.n
    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.tok[i * self.n: i * self.n + self.n + 1], dtype=np.int64))
        return x

def make_ds(pat, n):
    files = sorted(glob.glob(pat))
    return files, ConcatDataset([Shard(f, n) for f in files])

# ---------------------------------------------------------------- models
class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1 = nn.LayerNorm(d); self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.ln2 = nn.LayerNorm(d); self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x, mask):
        h = self.ln1(x); x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))

class TinyLM(nn.Module):
    def __init__(self, d=DIM, L=2, h=4, T=T):
        super().__init__()
        self.wte = nn.Embedding(256, d); self.wpe = nn.Embedding(T, d)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(L)]); self.lnf = nn.LayerNorm(d)
        self.head = nn.Linear(d, 256, bias=False)
        self.register_buffer("mask", torch.triu(torch.ones(T, T, dtype=torch.bool), 1), persistent=False)
    def forward(self, idx):
        t = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(t))
        for b in self.blocks: x = b(x, self.mask[:t, :t])
        return self.head(self.lnf(x))

class EdgeEmb(nn.Module):
    def __init__(self):
        super().__init__()
        self.ent = nn.Embedding(N_ENT, DIM); self.rel = nn.Parameter(torch.zeros(DIM))
        nn.init.normal_(self.ent.weight, std=1e-3)
    def forward(self, lhs, rhs, neg):
        l = self.ent(lhs) + self.rel
        pos = -(l - self.ent(rhs)).norm(dim=-1)
        negs = -(l.unsqueeze(1) - self.ent(neg)).norm(dim=-1)
        return pos, negs

# ---------------------------------------------------------------- setup
t_start = time.time()
if STYLE == "maxtext":
    out(f"System Information: torch Version: {torch.__version__}, numpy Version: {np.__version__}, host: {host}")
    for k in sorted(cfg):
        out(f"Config param {k}: {cfg[k]}")
    out(f"Config param train_data_pattern: {TRAIN_PAT}")
elif STYLE == "pbg":
    plog("Loading entity counts...")
elif STYLE == "hvd":
    out(f"[{host}] process {rank}/{ws} local_rank={lrank} pid={os.getpid()}")

files, ds = make_ds(TRAIN_PAT, 2 * B if STYLE == "pbg" else T)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=PG_TIMEOUT))
torch.manual_seed(SEED)
model = EdgeEmb() if STYLE == "pbg" else TinyLM()
nparams = sum(p.numel() for p in model.parameters())
model = DDP(model)
if OPT == "sgd":
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
elif OPT == "adagrad":
    opt = torch.optim.Adagrad(model.parameters(), lr=LR)
else:
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, WARMUP)) if WARMUP else 1.0)
scaler = torch.cuda.amp.GradScaler(enabled=AMP) if AMP else None
sampler = DistributedSampler(ds, num_replicas=ws, rank=rank, shuffle=True, seed=SEED, drop_last=True)
loader = DataLoader(ds, batch_size=B if STYLE != "pbg" else 1, sampler=sampler, num_workers=NUM_WORKERS, drop_last=True)
steps_per_epoch = len(loader)
val_files, val_ds = (make_ds(VAL_PAT, T) if VAL_PAT else ([], None))

def ckpt_name(step):
    return {"llmc": f"model_{step:08d}.pt", "maxtext": f"{step}/items.pt", "coqui": f"checkpoint_{step}.pth",
            "pbg": f"embeddings_entity_0.v{step}.pt", "hvd": f"checkpoint-{step}.pth.tar"}[STYLE]

def latest_ckpt():
    best = None
    for f in glob.glob(os.path.join(CKPT_DIR, "**", "*"), recursive=True):
        if not os.path.isfile(f): continue
        digits = "".join(c if c.isdigit() else " " for c in os.path.relpath(f, CKPT_DIR)).split()
        if not digits: continue
        s = int(digits[-1]) if STYLE != "maxtext" else int(digits[0])
        if best is None or s > best[0]: best = (s, f)
    return best

step0 = 0
run_dir = os.path.join(CKPT_DIR, f"{RUN_NAME}-{now():%B-%d-%Y_%I+%M%p}")
if RESUME:
    lc = latest_ckpt()
    if lc:
        if STYLE == "coqui": p0(f" > Restoring from {os.path.basename(lc[1])} ...")
        sd = torch.load(lc[1], map_location="cpu")
        model.module.load_state_dict(sd["model"]); opt.load_state_dict(sd["optimizer"])
        for g in opt.param_groups: g["lr"] = LR; g["initial_lr"] = LR
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
        step0 = int(sd["step"])
        if STYLE == "coqui":
            p0(" > Restoring Model..."); p0(" > Restoring Optimizer..."); p0(f" > Model restored from step {step0}")
        elif STYLE == "llmc": p0(f"resuming from checkpoint {lc[1]} at step {step0}")
        elif STYLE == "maxtext": out(f"restoring from this run's directory latest step {step0}")
        elif STYLE == "pbg": plog(f"Loading checkpoint version {step0} from {lc[1]}")
        else: p0(f"=> loaded checkpoint '{lc[1]}' (step {step0})")

# ---------------------------------------------------------------- banners
if STYLE == "llmc":
    def row(k, v): p0(f"| {k:<21} | {str(v):<50} |")
    bar = "+-----------------------+----------------------------------------------------+"
    p0(bar); row("Parameter", "Value"); p0(bar)
    row("train data pattern", TRAIN_PAT); row("val data pattern", VAL_PAT or "NULL")
    row("output log dir", CKPT_DIR); row("checkpoint_every", SAVE_EVERY); row("resume", int(RESUME))
    row("micro batch size B", B); row("sequence length T", T); row("total batch size", B * T * ws)
    row("learning rate (LR)", f"{LR:e}"); row("warmup iterations", WARMUP); row("max_steps", STEPS)
    row("val_loss_every", EVAL_EVERY); row("num_processes", ws); row("device", "cpu (gloo)")
    p0(bar); row("num_parameters", nparams); row("train_num_batches", steps_per_epoch); p0(bar)
    out(f"[rank {rank}@{host}] DataLoader: {len(files)} shards matching {TRAIN_PAT}, {len(ds)} sequences, {steps_per_epoch} batches/epoch")
elif STYLE == "maxtext":
    out(f"Num_devices: {ws}, shape ({ws},), process_index: {rank}, hostname: {host}")
    out(f"number parameters: {nparams/1e9:.6f} billion")
elif STYLE == "coqui":
    if rank == 0:
        out(" > Training Environment:"); out(" | > Backend: Torch"); out(f" | > Mixed precision: {AMP}")
        out(" | > Precision: float32"); out(f" | > Current device: cpu"); out(f" | > Num. of CPUs: {os.cpu_count()}")
        out(f" | > Num. of Torch Threads: {torch.get_num_threads()}"); out(f" | > Torch seed: {SEED}")
        out(f" | > Torch CUDNN: False"); out(f" | > Distributed world size: {ws}")
        out(f" > Start Tensorboard: tensorboard --logdir={run_dir}")
        out(""); out(f" > Model has {nparams} parameters")
    else:
        out(f" > Using DDP rank {rank}/{ws} on {host} (local rank {lrank})")
elif STYLE == "pbg":
    plog(f"Initializing global model... entities={N_ENT} dimension={DIM} params={nparams}")
    plog(f"Loaded {len(files)} edge shards, {len(ds)} chunks of {2 * B} edges")
elif STYLE == "hvd":
    p0(f"Train set: {len(ds)} sequences in {len(files)} shards, {ws} processes, {steps_per_epoch} batches per process per epoch")

# ---------------------------------------------------------------- helpers
def allmean(x):
    t = torch.tensor([float(x)]); dist.all_reduce(t); return t.item() / ws

def evaluate():
    if val_ds is None: return float("nan"), float("nan")
    model.eval(); tot = n = acc = 0.0
    with torch.no_grad():
        for i in range(rank, min(len(val_ds), 40), ws):
            x = val_ds[i].unsqueeze(0)
            if STYLE == "pbg":
                ids = (x[0, :-1] * 256 + x[0, 1:]) % N_ENT
                pos, negs = model(ids[:-1], ids[1:], torch.randint(0, N_ENT, (ids.shape[0] - 1, 16)))
                tot += F.relu(0.1 - pos.unsqueeze(1) + negs).sum(1).mean().item(); n += 1
                acc += (negs < pos.unsqueeze(1)).float().mean().item(); continue
            lg = model(x[:, :-1]); tot += F.cross_entropy(lg.reshape(-1, 256), x[:, 1:].reshape(-1)).item(); n += 1
            acc += (lg.argmax(-1) == x[:, 1:]).float().mean().item()
    model.train()
    t = torch.tensor([tot, n, acc]); dist.all_reduce(t)
    return t[0].item() / max(t[1].item(), 1), t[2].item() / max(t[1].item(), 1)

def save(step):
    path = os.path.join(CKPT_DIR, ckpt_name(step))
    t0 = time.time()
    if rank == 0:
        if STYLE == "llmc": out(f"Writing model to {path}")
        elif STYLE == "maxtext": out(f"Saving checkpoint for step {step} to {path}")
        elif STYLE == "pbg": plog("Writing the checkpoint")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "step": step, "config": cfg}, f)
            f.flush(); os.fsync(f.fileno())
        os.replace(path + ".tmp", path)
    dist.barrier()
    dt = time.time() - t0
    if STYLE == "llmc": p0(f"Writing state to {path} done ({dt:.2f} s)")
    elif STYLE == "maxtext": out(f"saved a checkpoint at step {step} ({dt:.3f} seconds)")
    elif STYLE == "coqui": p0(f"\n > CHECKPOINT : {path}")
    elif STYLE == "pbg":
        if rank == 0: plog("Writing the metadata"); plog("Committing checkpoint"); plog(f"Switching to the new checkpoint version {step}")
        plog(f"Checkpoint barrier passed after {dt:.1f} s")
    elif STYLE == "hvd": p0(f"=> saved checkpoint '{path}' (step {step}, {dt:.1f}s)")

# ---------------------------------------------------------------- train
gstep = step0; epoch = 0; avg = {}
def upd(k, v):
    a = avg.setdefault(k, [0.0, 0]); a[0] += v; a[1] += 1; return a[0] / a[1]
t_last = time.time(); times = []
total_epochs = math.ceil(STEPS / max(1, steps_per_epoch))
while gstep < STEPS:
    sampler.set_epoch(epoch)
    if STYLE == "coqui":
        p0(f"\n > EPOCH: {epoch}/{total_epochs}\n --> {run_dir}\n\n > TRAINING ({now():%Y-%m-%d %H:%M:%S}) ")
    elif STYLE == "pbg":
        plog(f"Starting epoch {epoch + 1} / {total_epochs}, edge path 1 / 1, edge chunk 1 / 1")
        plog("Swapping partitioned embeddings None ( 0 , 0 )")
    tl0 = time.time()
    for bi, x in enumerate(loader):
        if gstep >= STEPS: break
        tl = time.time() - tl0; ts = time.time()
        if STYLE == "pbg":
            e = x[0].view(-1)
            ids = (e[:-1] * 256 + e[1:]) % N_ENT
            lhs, rhs = ids[0::2][: B], ids[1::2][: B]
            neg = torch.randint(0, N_ENT, (lhs.shape[0], 16))
            pos, negs = model(lhs, rhs, neg)
            loss = F.relu(0.1 - pos.unsqueeze(1) + negs).sum(1).mean()
            vl = int((negs > pos.unsqueeze(1)).any(1).sum()); vr = int((negs > pos.unsqueeze(1)).sum())
        else:
            logits = model(x[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, 256), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(loss).backward(); scaler.unscale_(opt)
        else:
            loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP if CLIP > 0 else float("inf")).item()
        if scaler is not None:
            scaler.step(opt); scaler.update()
        else:
            opt.step()
        sched.step(); gstep += 1
        time.sleep(SLEEP)
        st = time.time() - ts; times.append(st)
        lv = loss.item()
        if gstep % LOG_EVERY == 0 or gstep == 1:
            ml = allmean(lv)
            lr = opt.param_groups[0]["lr"]
            if STYLE == "llmc":
                p0(f"step {gstep:4d}/{STEPS} | loss {ml:7.6f} | norm {norm:6.4f} | lr {lr:.2e} | {st*1000:.2f} ms | {B*T*ws/st:.0f} tok/s")
            elif STYLE == "maxtext":
                out(f"completed step: {gstep}, seconds: {st:.3f}, TFLOP/s/device: {6*nparams*B*T/st/1e12:.6f}, "
                    f"Tokens/s/device: {B*T/st:.3f}, total_weights: {B*T}, loss: {lv:.3f}")
            elif STYLE == "coqui":
                if rank == 0:
                    out(f"\n   --> TIME: {now():%Y-%m-%d %H:%M:%S} -- STEP: {bi}/{steps_per_epoch} -- GLOBAL_STEP: {gstep}")
                    out(f"     | > loss: {ml:.5f}  ({upd('loss', ml):.5f})")
                    out(f"     | > grad_norm: {norm:.5f}  ({upd('gn', norm):.5f})")
                    out(f"     | > current_lr: {lr:.5e} ")
                    out(f"     | > step_time: {st:.4f}  ({upd('st', st):.4f})")
                    out(f"     | > loader_time: {tl:.4f}  ({upd('lt', tl):.4f})")
            elif STYLE == "pbg":
                plog(f"Processed {(bi + 1) * B} edges in {time.time() - t_last:.2f} s ({B * LOG_EVERY / max(time.time() - t_last, 1e-9) / 1e6:.4f}M/sec); load time: {tl:.3f} s")
                plog(f"Stats for edge path 0, bucket (0, 0): loss:  {lv:.4f} , reg:  0.0 , violators_lhs:  {vl} , violators_rhs:  {vr} , count:  {B}")
            elif STYLE == "hvd":
                out("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(epoch + 1, bi * B, len(sampler), 100.0 * bi / steps_per_epoch, lv))
            t_last = time.time()
        if EVAL_EVERY and gstep % EVAL_EVERY == 0:
            vloss, vacc = evaluate()
            if STYLE == "llmc": p0(f"val loss {vloss:.6f}")
            elif STYLE == "maxtext": out(f"eval metrics after step: {gstep}, loss={vloss:.3f}, total_weights={40 * T}")
            elif STYLE == "coqui":
                p0(f"\n > EVALUATION \n\n  --> EVAL PERFORMANCE\n     | > avg_loader_time: 0.0 (+0.0)\n     | > avg_loss: {vloss:.5f} (+0.0)")
            elif STYLE == "pbg": plog(f"Stats after training: eval loss:  {vloss:.4f} , count:  40")
            elif STYLE == "hvd": p0("\nTest set: Average loss: {:.4f}, Accuracy: {:.2f}%\n".format(vloss, 100.0 * vacc))
        if SAVE_EVERY and gstep % SAVE_EVERY == 0:
            save(gstep)
        tl0 = time.time()
    epoch += 1

# ---------------------------------------------------------------- end
dist.barrier()
el = time.time() - t_start
if STYLE == "llmc": p0(f"total average iteration time: {1000 * sum(times) / max(len(times), 1):.6f} ms")
elif STYLE == "maxtext": out(f"training finished at step {gstep}, {el:.1f} s")
elif STYLE == "coqui": p0(f"\n > Training finished: {gstep} steps in {el:.1f} s")
elif STYLE == "pbg": plog("Exiting")
elif STYLE == "hvd": p0(f"Done. {gstep} steps, {el:.1f}s")
dist.destroy_process_group()
