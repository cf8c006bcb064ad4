import os, sys, time, json, math, glob, datetime, struct
import torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP

STYLE = os.environ.get("STYLE", "ulysses")
DATA = os.environ.get("DATA_DIR", "")
CKPT = os.environ.get("CKPT_DIR", "")
STEPS = int(os.environ.get("STEPS", "200"))
STEP_SLEEP = float(os.environ.get("STEP_SLEEP", "0.2"))
EVAL_EVERY = int(os.environ.get("EVAL_EVERY", "0"))
EVAL_SECS = float(os.environ.get("EVAL_SECS", "0"))
SAVE_EVERY = int(os.environ.get("SAVE_EVERY", "0"))
WORKERS = int(os.environ.get("NUM_WORKERS", "0"))
TIMEOUT = int(os.environ.get("PG_TIMEOUT", "60"))

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"]); lrank = int(os.environ["LOCAL_RANK"])
host = os.uname().nodename
T0 = time.time()

def out(s):
    print(s, flush=True)

class ShardSet(Dataset):
    """records of 33 float32 (32 features + target) in shard-*.bin, located via index.json"""
    def __init__(self, root):
        with open(os.path.join(root, "index.json")) as f:
            self.idx = json.load(f)
        self.root = root
        self.entries = [(s["file"], i) for s in self.idx["shards"] for i in range(s["records"])]
    def __len__(self): return len(self.entries)
    def __getitem__(self, i):
        fn, j = self.entries[i]
        with open(os.path.join(self.root, fn), "rb") as f:
            f.seek(j * 33 * 4); b = f.read(33 * 4)
        v = struct.unpack("33f", b)
        return torch.tensor(v[:32]), torch.tensor(v[32:])

class Synth(Dataset):
    def __len__(self): return 100000
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(32, generator=g); return x, x[:1] * 0.5

def header():
    if STYLE == "t5x":
        if rank == 0:
            out("# Parameters for train:")
            out("# ==============================================================================")
            out(f"train.model = @models.DenseRegressor()")
            out(f"train.total_steps = {STEPS}")
            out(f"train.eval_period = {EVAL_EVERY or 'None'}")
            out(f"train.checkpoint_period = {SAVE_EVERY or 'None'}")
            out(f"train.checkpoint_dir = '{CKPT}'")
            out("# Parameters for utils.DatasetConfig:")
            out(f"utils.DatasetConfig.source = '{DATA or 'synthetic'}'")
            out(f"utils.DatasetConfig.batch_size = {16*world}")
            out("# ==============================================================================")
    elif STYLE == "ulysses":
        out(f"[Rank {rank}] host={host} local_rank={lrank} world_size={world} sequence_parallel_size={world} dp=1")
    elif STYLE == "booster":
        out(f"[booster] rank {rank}/{world} @ {host}: plugin=TorchDDPPlugin precision=fp32 grad_ckpt=False")
    elif STYLE == "rl":
        out(f"[actor-learner] rank={rank} host={host} envs_per_rank=4 unroll=16 world={world}")
    elif STYLE == "csv":
        if rank == 0: out("wall,host,rank,step,loss,lr,samples_per_s")

def log_step(step, loss, lr, dt, n):
    el = time.time() - T0
    if STYLE == "t5x":
        if rank == 0 and step % 10 == 0:
            out(f"Step {step:>6}  train/loss={loss:.5f}  train/learning_rate={lr:.2e}  timing/steps_per_second={1/dt:.3f}  timing/seconds={el:.1f}")
    elif STYLE == "ulysses":
        if step % 10 == 0:
            out(f"[Rank {rank}] step {step:05d}/{STEPS:05d} | loss {loss:.4f} | lr {lr:.3e} | seq_tokens/s {n*512/dt:.0f} | iter_time {dt*1000:.1f}ms")
    elif STYLE == "booster":
        if step % 10 == 0 and lrank == 0:
            out(f"Epoch {step//50} Step {step % 50:>3}/50 loss: {loss:.4f} lr: {lr:.6f} throughput: {n/dt:.1f} samples/s [{host}]")
    elif STYLE == "rl":
        if step % 10 == 0:
            out(f"iter {step:5d} | rank {rank} | env_steps {step*64*world:8d} | return_mean {10+loss*-3:.2f} | pg_loss {loss:.4f} | v_loss {loss/2:.4f} | entropy {1.38-step/STEPS:.3f} | fps {64/dt:.0f}")
    elif STYLE == "csv":
        if step % 10 == 0:
            out(f"{datetime.datetime.now().strftime('%H:%M:%S.%f')[:-3]},{host},{rank},{step},{loss:.5f},{lr:.3e},{n/dt:.1f}")

def log_msg(msg):
    if STYLE == "t5x": out(f"[{rank}] {msg}")
    elif STYLE == "ulysses": out(f"[Rank {rank}] {msg}")
    elif STYLE == "booster": out(f"[booster] {msg}")
    elif STYLE == "rl": out(f"[actor-learner] rank={rank} {msg}")
    elif STYLE == "csv": out(f"# {host} rank {rank}: {msg}")

def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=TIMEOUT))
    header()
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 1)))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    start = 0
    if CKPT and os.path.exists(os.path.join(CKPT, "last.pt")):
        log_msg(f"restoring from {os.path.join(CKPT, 'last.pt')}")
        sd = torch.load(os.path.join(CKPT, "last.pt"), map_location="cpu")
        model.module.load_state_dict(sd["model"]); opt.load_state_dict(sd["opt"]); start = sd["step"]
        log_msg(f"restored step {start}")
    ds = ShardSet(DATA) if DATA else Synth()
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    dl = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=WORKERS, drop_last=True)
    it = iter(dl); epoch = 0
    step = start
    while step < STEPS:
        t = time.time()
        try:
            x, y = next(it)
        except StopIteration:
            epoch += 1; sampler.set_epoch(epoch); it = iter(dl); x, y = next(it)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        step += 1
        time.sleep(STEP_SLEEP)
        lr = 1e-3 * 0.5 * (1 + math.cos(math.pi * step / STEPS))
        log_step(step, loss.item(), lr, time.time() - t, x.shape[0])
        if EVAL_EVERY and step % EVAL_EVERY == 0:
            log_msg(f"evaluation at step {step} started")
            te = time.time()
            if rank == 0:
                with torch.no_grad():
                    end = time.time() + EVAL_SECS
                    n = 0
                    while time.time() < end:
                        model.module(torch.randn(256, 32)); n += 256; time.sleep(0.05)
            dist.barrier()
            log_msg(f"evaluation at step {step} done: eval/loss={loss.item()*1.1:.4f} eval_time={time.time()-te:.1f}s")
        if SAVE_EVERY and step % SAVE_EVERY == 0 and rank == 0:
            p = os.path.join(CKPT, "last.pt")
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step,
                        "pad": torch.zeros(int(os.environ.get("CKPT_PAD", "0")))}, p + ".tmp")
            os.replace(p + ".tmp", p)
            log_msg(f"saved checkpoint {p} at step {step}")
    dist.barrier()
    log_msg(f"training finished at step {step} in {time.time()-T0:.1f}s")
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
