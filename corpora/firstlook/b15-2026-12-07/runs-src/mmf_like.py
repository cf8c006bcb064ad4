# MMF-like image classification trainer (b15 trainer D). Knows nothing about injected faults.
import os, sys, time, logging, math, warnings
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
import b15common as c

rank, world, local_rank = c.setup()
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(asctime)s | %(name)s: %(message)s", datefmt="%Y-%m-%dT%H:%M:%S")
L = lambda n: logging.getLogger(n)
EXP = os.environ.get("EXPERIMENT", "run"); MAXU = c.env_int("MAX_UPDATES", 600); BS = c.env_int("BATCH", 32)
LOG_EVERY = c.env_int("LOG_EVERY", 20); EVAL_EVERY = c.env_int("EVAL_EVERY", 200); NW = c.env_int("NUM_WORKERS", 2)
SLEEP = c.env_float("STEP_SLEEP", 0.0); CACHE = os.environ.get("DECODE_CACHE", "0") == "1"; EVAL_SLOW = c.env_float("EVAL_SLEEP", 0.0)
PIN = os.environ.get("PIN_MEMORY", "0") == "1"; SAVE = os.environ.get("SAVE_DIR", "")

class SynthImages(Dataset):
    """decodes synthetic 3x96x96 'images' from a seed; optional decode cache (dict per worker)"""
    def __init__(self, n, seed): self.n = n; self.seed = seed; self.cache = {}
    def __len__(self): return self.n
    def __getitem__(self, i):
        if CACHE and i in self.cache: return self.cache[i]
        g = np.random.default_rng(self.seed * 100003 + i)
        img = torch.from_numpy(g.standard_normal((3, 96, 96), dtype=np.float32)); y = int(i % 10)
        img[y % 3] += 0.5
        if CACHE: self.cache[i] = (img, y)
        return img, y

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(3, 16, 5, 2, 2), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.h = nn.Linear(512, 10)
    def forward(self, x): return self.h(self.f(x).flatten(1))

L("mmf.utils.distributed").info(f"Distributed Init (Rank {rank}): tcp://{os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
L("mmf_cli.run").info(f"Torch version: {torch.__version__}")
L("mmf.trainers.mmf_trainer").info(f"Loading datasets (host {os.uname().nodename}, local rank {local_rank})")
tr = SynthImages(60000, 1); va = SynthImages(2000, 2)
samp = DistributedSampler(tr, world, rank, shuffle=True, seed=0)
dl = DataLoader(tr, batch_size=BS, sampler=samp, num_workers=NW, pin_memory=PIN, persistent_workers=NW > 0)
L("mmf.trainers.mmf_trainer").info("Loading model")
model = Net(); ddp = DDP(model, find_unused_parameters=os.environ.get("FIND_UNUSED", "0") == "1")
opt = torch.optim.AdamW(ddp.parameters(), lr=5e-4)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda u: min(1.0, (u + 1) / 100))
L("mmf.trainers.mmf_trainer").info("Loading optimizer"); L("mmf.trainers.mmf_trainer").info("Loading metrics")
L("mmf.trainers.core.device").info(f"Using PyTorch DistributedDataParallel")
L("mmf.utils.general").info(f"Total Parameters: {sum(p.numel() for p in model.parameters())}. Trained Parameters: {sum(p.numel() for p in model.parameters())}")
L("mmf.trainers.core.training_loop").info("Starting training...")
if os.environ.get("SCHED_FIRST") == "1":
    sched.step()
def fmt_t(s):
    s = int(s); h, m, sec = s // 3600, s % 3600 // 60, s % 60
    return (f"{h}h " if h else "") + (f"{m:02d}m " if (m or h) else "") + f"{sec:02d}s"
t_start = time.time(); t_last = time.time(); upd = 0; epoch = 0; avg = 0.0
def evaluate():
    L("mmf.trainers.core.training_loop").info("Evaluation time. Running on full validation set...")
    vdl = DataLoader(va, batch_size=64, sampler=DistributedSampler(va, world, rank, shuffle=False), num_workers=0)
    ddp.eval(); t = torch.zeros(3); t0 = time.time()
    with torch.no_grad():
        for x, y in vdl:
            o = ddp(x); t[0] += F.cross_entropy(o, y, reduction="sum"); t[1] += (o.argmax(1) == y).sum(); t[2] += len(y)
            if EVAL_SLOW and rank == 0: time.sleep(EVAL_SLOW)
    dist.all_reduce(t); ddp.train()
    L("mmf.trainers.callbacks.logistics").info(f"progress: {upd}/{MAXU}, val/synth_images/cross_entropy: {t[0]/t[2]:.4f}, val/total_loss: {t[0]/t[2]:.4f}, val/synth_images/accuracy: {t[1]/t[2]:.4f}, num_updates: {upd}, epoch: {epoch}, iterations: {upd}, max_updates: {MAXU}, val_time: {fmt_t(time.time()-t0)}, best_update: {upd}, best_iteration: {upd}, best_val/synth_images/accuracy: {t[1]/t[2]:.6f}")
    if SAVE and rank == 0:
        L("mmf.utils.checkpoint").info("Checkpoint time. Saving a checkpoint.")
        torch.save({"model": model.state_dict(), "num_updates": upd}, os.path.join(SAVE, "current.ckpt"))
while upd < MAXU:
    samp.set_epoch(epoch); epoch += 1
    for x, y in dl:
        o = ddp(x); loss = F.cross_entropy(o, y)
        opt.zero_grad(); loss.backward(); opt.step(); sched.step(); upd += 1
        avg = loss.item() if upd == 1 else 0.98 * avg + 0.02 * loss.item()
        if SLEEP: time.sleep(SLEEP)
        if upd % LOG_EVERY == 0:
            el = time.time() - t_start; ups = LOG_EVERY / (time.time() - t_last); t_last = time.time()
            L("mmf.trainers.callbacks.logistics").info(
                f"progress: {upd}/{MAXU}, train/synth_images/cross_entropy: {loss.item():.4f}, train/synth_images/cross_entropy/avg: {avg:.4f}, "
                f"train/total_loss: {loss.item():.4f}, train/total_loss/avg: {avg:.4f}, max mem: 0.0, experiment: {EXP}, epoch: {epoch}, num_updates: {upd}, "
                f"iterations: {upd}, max_updates: {MAXU}, lr: {opt.param_groups[0]['lr']:.5f}, ups: {ups:.2f}, time: {fmt_t(LOG_EVERY/ups)}, "
                f"time_since_start: {fmt_t(el)}, eta: {fmt_t(el/upd*(MAXU-upd))}")
        if upd % EVAL_EVERY == 0: evaluate()
        if upd >= MAXU: break
L("mmf.trainers.core.training_loop").info("Stepping into final validation check")
L("mmf.trainers.mmf_trainer").info("Finished run in " + fmt_t(time.time() - t_start))
dist.barrier(); dist.destroy_process_group()
