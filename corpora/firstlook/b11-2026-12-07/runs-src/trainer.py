# shared toy trainer for b11 run cases; output style selected with --style
import argparse, datetime, os, socket, sys, time, glob, math, json
import numpy as np
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import Dataset, DataLoader, DistributedSampler

p = argparse.ArgumentParser()
p.add_argument("--style", default="glog")
p.add_argument("--steps", type=int, default=200)
p.add_argument("--epochs", type=int, default=0)
p.add_argument("--ckpt-dir", default="")
p.add_argument("--ckpt-every", type=int, default=50)
p.add_argument("--resume", action="store_true")
p.add_argument("--data-dir", default="")
p.add_argument("--workers", type=int, default=0)
p.add_argument("--seq-ramp", action="store_true")
p.add_argument("--pg-timeout", type=int, default=1800)
p.add_argument("--sleep", type=float, default=0.05)
p.add_argument("--width", type=int, default=256)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--warn-demo", action="store_true")
a = p.parse_args()

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"]); lrank = int(os.environ["LOCAL_RANK"])
host = socket.gethostname(); pid = os.getpid()
t0 = time.time()

def out(level, msg, kv=None):
    now = datetime.datetime.now()
    s = a.style
    if s == "glog":
        line = "%s%s %d %s:%d] %s" % (level[0], now.strftime("%m%d %H:%M:%S.%f"), pid, "trainer.py", sys._getframe(1).f_lineno, msg)
    elif s == "syslog":
        line = "%s %s trainer[%d]: <%s> r%d %s" % (now.strftime("%b %e %H:%M:%S"), host, pid, level.lower(), rank, msg)
    elif s == "pylog":
        line = "%s:trainer.rank%d:%s" % (level, rank, msg)
    elif s == "mllog":
        line = ":::MLLOG " + json.dumps({"namespace": "", "time_ms": int(time.time()*1000), "event_type": "POINT_IN_TIME", "key": msg, "value": kv, "metadata": {"file": "trainer.py", "lineno": sys._getframe(1).f_lineno, "rank": rank}})
    elif s == "speedo":
        line = "%s %s %s" % (now.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3], level, msg)
    else:
        line = msg
    stream = sys.stderr if level in ("WARNING", "ERROR") else sys.stdout
    print(line, file=stream, flush=True)

class Shards(Dataset):
    def __init__(self, d, seq):
        self.files = sorted(glob.glob(os.path.join(d, "shard-*.npy"))); self.per = 256; self.seq = seq
    def __len__(self): return len(self.files) * self.per
    def __getitem__(self, i):
        f = self.files[i // self.per]
        arr = np.load(f, mmap_mode="r")
        x = torch.from_numpy(np.array(arr[i % self.per]))
        return x[:-1], x[-1:]

class Synth(Dataset):
    def __init__(self, n, w): self.n = n; self.w = w
    def __len__(self): return self.n
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(self.w, generator=g)
        return x, x[:1].clone()

if a.style == "mllog": out("INFO", "init_start")
tmo = datetime.timedelta(seconds=a.pg_timeout)
dist.init_process_group("gloo", timeout=tmo)
torch.manual_seed(0)
W = a.width
model = nn.Sequential(nn.Linear(W, 4*W), nn.GELU(), nn.Linear(4*W, 4*W), nn.GELU(), nn.Linear(4*W, 1))
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(a.steps, 1))
if a.warn_demo:
    scaler = torch.cuda.amp.GradScaler()
    sched.step()
start = 0
if a.ckpt_dir and a.resume:
    fn = os.path.join(a.ckpt_dir, "latest", "rank%d.pt" % rank)
    if os.path.exists(fn):
        out("INFO", "resuming from %s" % fn, fn)
        sd = torch.load(fn, map_location="cpu")
        model.module.load_state_dict(sd["model"]); opt.load_state_dict(sd["opt"]); start = sd["step"]
        out("INFO", "resumed at step %d" % start, start)

if a.data_dir:
    ds = Shards(a.data_dir, W)
else:
    ds = Synth(200000, W)
sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True)
dl = DataLoader(ds, batch_size=a.batch, sampler=sampler, num_workers=a.workers, persistent_workers=False)

if a.style == "mllog":
    out("INFO", "init_stop"); out("INFO", "global_batch_size", a.batch*world); out("INFO", "run_start")
elif a.style == "table" and rank == 0:
    print("epoch  iteration  main/loss  lr         elapsed_time", flush=True)
else:
    out("INFO", "rank %d/%d on %s pid %d, params %d, data %s" % (rank, world, host, pid, sum(p.numel() for p in model.parameters()), a.data_dir or "synthetic"))

step = start; epoch = 0; keep = []
hist = []
def save(step):
    d = os.path.join(a.ckpt_dir, "step%06d" % step); os.makedirs(d, exist_ok=True)
    fn = os.path.join(d, "rank%d.pt" % rank)
    torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step}, fn)
    dist.barrier()
    if lrank == 0:
        lk = os.path.join(a.ckpt_dir, "latest"); tmp = lk + ".tmp%d" % pid
        os.symlink(d, tmp); os.replace(tmp, lk)
    out("INFO", "saved checkpoint %s (%.1f MB)" % (fn, os.path.getsize(fn)/2**20), fn)

tlast = time.time(); done = False
while not done:
    sampler.set_epoch(epoch)
    for x, y in dl:
        if a.seq_ramp:
            reps = 1 + step // 10
            x = x.repeat(reps, 1); y = y.repeat(reps, 1)
            hist.append(x.detach().clone())  # kept for the per-epoch input statistics
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        if a.warn_demo and step == start: scaler.scale(loss)
        step += 1
        time.sleep(a.sleep)
        if step % 10 == 0:
            dt = time.time() - tlast; tlast = time.time()
            lv = loss.item(); lr = sched.get_last_lr()[0]
            sps = 10 * a.batch * world / dt
            s = a.style
            if s == "glog": out("INFO", "step %d loss %.4f lr %.3e %.1f samples/s" % (step, lv, lr, sps))
            elif s == "syslog": out("INFO", "step=%d loss=%.4f lr=%.3e throughput=%.1f" % (step, lv, lr, sps))
            elif s == "pylog": out("INFO", "global_step %d | loss %.5f | lr %.2e | %.2fs/10it" % (step, lv, lr, dt))
            elif s == "mllog": out("INFO", "train_loss", {"step": step, "loss": round(lv, 5)}) if step % 20 == 0 else None
            elif s == "speedo": out("INFO", "Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec\tmse=%.6f" % (epoch, step, sps, lv))
            elif s == "table":
                if rank == 0: print("%-6d %-10d %-10.5f %-10.3e %.5f" % (epoch, step, lv, lr, time.time()-t0), flush=True)
            elif s == "mlogger":
                if rank == 0 or True:
                    eta = (a.steps - step) * dt / 10
                    print("Epoch: [%d]  [%4d/%d]  eta: %s  lr: %.6f  loss: %.4f (%.4f)  time: %.4f  data: %.4f" % (epoch, step, a.steps, str(datetime.timedelta(seconds=int(eta))), lr, lv, lv, dt/10, 0.001), flush=True)
            elif s == "template":
                print("Train Epoch: %d [%d/%d (%.0f%%)] Loss: %.6f" % (epoch, step*a.batch, a.steps*a.batch, 100.0*step/a.steps, lv), flush=True)
        if a.ckpt_dir and step % a.ckpt_every == 0:
            save(step)
        if step >= a.steps: done = True; break
    if a.seq_ramp: hist = []
    epoch += 1
    if a.style == "template" and rank == 0:
        print("    epoch          : %d\n    loss           : %.6f\n    steps          : %d" % (epoch, loss.item(), step), flush=True)
    if a.epochs and epoch >= a.epochs: done = True

if a.style == "mllog": out("INFO", "run_stop", {"status": "success"})
else: out("INFO", "finished %d steps in %.1fs" % (step, time.time() - t0))
dist.destroy_process_group()
