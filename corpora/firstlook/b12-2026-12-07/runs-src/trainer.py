# Shared toy DDP trainer (gloo). --style selects the log format only.
import argparse, os, sys, time, math, datetime, logging, glob, warnings
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

p = argparse.ArgumentParser()
p.add_argument("--style", required=True)
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--steps", type=int, default=40)
p.add_argument("--step-sleep", type=float, default=0.2)
p.add_argument("--ckpt-dir", default="")
p.add_argument("--save-every", type=int, default=20)
p.add_argument("--resume", action="store_true")
p.add_argument("--data-dir", default="")
p.add_argument("--workers", type=int, default=0)
p.add_argument("--pg-timeout", type=int, default=60)
p.add_argument("--hidden", type=int, default=256)
p.add_argument("--amp-scaler", action="store_true")
p.add_argument("--sched-early", action="store_true")
p.add_argument("--val-size", type=int, default=512)
a = p.parse_args()

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"]); lrank = int(os.environ["LOCAL_RANK"])
host = os.uname().nodename
S = a.style

def P(*x):
    print(*x, flush=True)

log = None
if S == "tfest":
    logging.basicConfig(level=logging.INFO); log = logging.getLogger("trainer")
elif S == "allen":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
    log = logging.getLogger("trainer.gradient_descent_trainer")
elif S == "gensim":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s : %(levelname)s : %(message)s"); log = logging.getLogger("w2v")

if S == "metric":
    P(f"| distributed init (rank {rank}): env://")
elif S == "allen":
    log.info(f"Rank {rank} on host {host}: initializing process group (world_size={world})")
elif S == "gensim":
    log.info(f"worker rank {rank}/{world} starting on {host}")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
torch.manual_seed(1234 + rank)

class DS(torch.utils.data.Dataset):
    def __init__(self, n, files=None):
        self.n, self.files = n, files
    def __len__(self): return self.n
    def __getitem__(self, i):
        if self.files:
            f = self.files[i % len(self.files)]
            t = torch.load(f)
            return t["x"][i % t["x"].shape[0]], t["y"][i % t["y"].shape[0]]
        g = torch.Generator().manual_seed(i)
        x = torch.randn(64, generator=g); return x, (x[:10].argmax())

model = nn.Sequential(nn.Linear(64, a.hidden), nn.ReLU(), nn.Linear(a.hidden, a.hidden), nn.ReLU(), nn.Linear(a.hidden, 10))
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.5)
scaler = None
if a.amp_scaler:
    scaler = torch.cuda.amp.GradScaler()
lossf = nn.CrossEntropyLoss()
start_epoch, gstep = 0, 0

if a.resume and a.ckpt_dir:
    f = os.path.join(a.ckpt_dir, f"model-rank{rank}.pt") if S == "nanogpt" else os.path.join(a.ckpt_dir, "model.ckpt")
    if S == "tfest": log.info(f"Restoring parameters from {f}")
    st = torch.load(f, map_location="cpu")
    model.load_state_dict(st["model"]); opt.load_state_dict(st["opt"]); start_epoch, gstep = st["epoch"], st["step"]
    if S == "tfest": log.info(f"Restored global_step = {gstep}")

def save(epoch):
    if not a.ckpt_dir: return
    st = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": gstep}
    if S == "nanogpt":
        f = os.path.join(a.ckpt_dir, f"model-rank{rank}-iter{gstep}.pt")
        if rank == 0: P(f"saving checkpoint to {a.ckpt_dir}")
        torch.save(st, f)
    elif rank == 0:
        f = os.path.join(a.ckpt_dir, "model.ckpt")
        if S == "tfest": log.info(f"Saving checkpoints for {gstep} into {f}.")
        torch.save(st, f)
    dist.barrier()

files = sorted(glob.glob(os.path.join(a.data_dir, "*.pt"))) if a.data_dir else None
if files: files = files[rank::world]
ds = DS(a.steps * 16, files)
sampler = torch.utils.data.distributed.DistributedSampler(ds, shuffle=True)
dl = torch.utils.data.DataLoader(ds, batch_size=16, sampler=sampler, num_workers=a.workers)

def header():
    if rank != 0: return
    if S == "metric": P("Start training")
    elif S == "fastai": P("epoch     train_loss  valid_loss  accuracy  time    ")
    elif S == "chainer": P("epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy  elapsed_time")
    elif S == "spacy":
        P("\u2139 Using CPU"); P("=" * 27 + " Initializing pipeline " + "=" * 27); P("\u2714 Initialized pipeline")
        P("=" * 29 + " Training pipeline " + "=" * 29); P("\u2139 Pipeline: ['encoder', 'classifier']")
        P("E    #       LOSS ENCODER  LOSS CLASSI  ACC     SCORE "); P("---  ------  ------------  -----------  ------  ------")
    elif S == "sb3": P("Using cpu device")
    elif S == "gensim": log.info(f"training model with {world} workers on {a.steps*16} examples, {a.epochs} epochs")

t0 = time.time(); header()
for epoch in range(start_epoch, a.epochs):
    sampler.set_epoch(epoch)
    if S == "allen": log.info(f"Epoch {epoch}/{a.epochs-1}"); log.info("Training")
    te = time.time(); run_loss, run_acc, n = 0.0, 0.0, 0
    for i, (x, y) in enumerate(dl):
        ts = time.time()
        if a.sched_early and i == 0 and epoch == start_epoch:
            sched.step()
        out = ddp(x); loss = lossf(out, y)
        opt.zero_grad()
        if scaler: scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        else: loss.backward(); opt.step()
        if not a.sched_early: sched.step()
        elif i > 0: sched.step()
        gstep += 1; n += 1
        acc = (out.argmax(1) == y).float().mean().item()
        run_loss += loss.item(); run_acc += acc
        time.sleep(a.step_sleep)
        dt = time.time() - ts
        if i % 10 == 0:
            if S == "metric" and rank == 0:
                eta = str(datetime.timedelta(seconds=int(dt * (len(dl) - i))))
                P(f"Epoch: [{epoch}]  [{i:>3}/{len(dl)}]  eta: {eta}  lr: {opt.param_groups[0]['lr']:.6f}  loss: {loss.item():.4f} ({run_loss/n:.4f})  acc1: {acc*100:.4f} ({run_acc/n*100:.4f})  time: {dt:.4f}  data: 0.0009  max mem: 0")
            elif S == "tfest" and rank == 0:
                if gstep > 1: log.info(f"global_step/sec: {1/dt:.4f}")
                log.info(f"loss = {loss.item():.6f}, step = {gstep}" + (f" ({dt*10:.3f} sec)" if gstep > 1 else ""))
            elif S == "allen":
                log.info(f"accuracy: {run_acc/n:.4f}, batch_loss: {loss.item():.4f}, loss: {run_loss/n:.4f} ||: {i+1}/{len(dl)} [rank {rank}]")
            elif S == "nanogpt" and rank == 0:
                P(f"iter {gstep}: loss {loss.item():.4f}, time {dt*1000:.2f}ms, mfu -100.00%")
            elif S == "gensim" and rank == 0:
                log.info(f"EPOCH {epoch} - PROGRESS: at {100*(i+1)/len(dl):.2f}% examples, {int(16*64/dt)} words/s, in_qsize {a.workers}, out_qsize 0")
            elif S == "spacy" and rank == 0:
                P(f"{epoch:>3}  {gstep:>6}  {run_loss/n*10:>12.2f}  {run_loss/n:>11.2f}  {run_acc/n*100:>6.2f}  {run_acc/n:>6.2f}")
            elif S == "cleanrl" and rank == 0:
                P(f"global_step={gstep*16*world}, episodic_return=[{run_acc/n*200:.1f}]")
                P(f"SPS: {int(16*world/dt)}")
        if a.ckpt_dir and S in ("nanogpt", "tfest") and gstep % a.save_every == 0:
            save(epoch)
    # end of epoch: full-batch validation
    with torch.no_grad():
        gv = torch.Generator().manual_seed(99)
        xv = torch.randn(a.val_size, 64, generator=gv); yv = xv[:, :10].argmax(1)
        vacc = (model(xv).argmax(1) == yv).float().mean().item(); del xv, yv
    tl = torch.tensor([run_loss / max(n, 1)]); dist.all_reduce(tl); tl /= world
    el = time.time() - te
    if rank == 0:
        if S == "metric":
            P(f"Epoch: [{epoch}] Total time: {datetime.timedelta(seconds=int(el))} ({el/max(n,1):.4f} s / it)")
            P(f"Averaged stats: lr: {opt.param_groups[0]['lr']:.6f}  loss: {tl.item():.4f}")
            P(f"* Acc@1 {run_acc/n*100:.3f} Acc@5 {min(100, run_acc/n*500):.3f} loss {tl.item():.3f}")
        elif S == "fastai":
            P(f"{epoch:<10}{tl.item():<12.6f}{tl.item()*1.03:<12.6f}{run_acc/n:<10.6f}{time.strftime('%M:%S', time.gmtime(el))}   ")
        elif S == "chainer":
            P(f"{epoch+1:<12}{tl.item():<12.6g}{tl.item()*1.02:<22.6g}{run_acc/n:<15.6g}{run_acc/n*0.98:<26.6g}{time.time()-t0:.6g}")
        elif S == "sb3":
            rows = [("rollout/", ""), ("   ep_len_mean", f"{100*run_acc/n:.1f}"), ("   ep_rew_mean", f"{100*run_acc/n:.1f}"),
                    ("time/", ""), ("   fps", str(int(n*16*world/el))), ("   iterations", str(epoch+1)),
                    ("   time_elapsed", str(int(time.time()-t0))), ("   total_timesteps", str(gstep*16*world)),
                    ("train/", ""), ("   approx_kl", f"{0.01/(epoch+1):.9f}"), ("   learning_rate", f"{opt.param_groups[0]['lr']:.4g}"),
                    ("   loss", f"{tl.item():.3g}"), ("   value_loss", f"{tl.item()*3:.3g}")]
            P("-" * 43)
            for k, v in rows: P(f"| {k:<21} | {v:<15} |")
            P("-" * 43)
        elif S == "allen":
            log.info("                       Training |  Validation")
            log.info(f"accuracy           |     {run_acc/n:.3f}  |     {run_acc/n*0.97:.3f}")
            log.info(f"loss               |     {tl.item():.3f}  |     {tl.item()*1.02:.3f}")
            log.info(f"Epoch duration: {datetime.timedelta(seconds=el)}")
        elif S == "gensim":
            log.info(f"EPOCH - {epoch} : training on {n*16*64} raw words ({n*16*60} effective words) took {el:.1f}s, {int(n*16*60/el)} effective words/s")
        elif S == "tfest":
            log.info(f"Loss for epoch {epoch}: {tl.item():.6f}.")
        elif S == "nanogpt":
            P(f"step {gstep}: train loss {tl.item():.4f}, val loss {tl.item()*1.01:.4f}")
    if a.ckpt_dir and S not in ("nanogpt", "tfest"): save(epoch + 1)

if rank == 0:
    if S == "metric": P(f"Training time {datetime.timedelta(seconds=int(time.time()-t0))}")
    elif S == "spacy": P("\u2714 Saved pipeline to output directory")
    elif S == "gensim": log.info(f"Word2Vec lifecycle event {{'msg': 'training on {gstep*16*64} raw words took {time.time()-t0:.1f}s', 'event': 'train'}}")
    elif S == "tfest": log.info(f"Loss for final step: {tl.item():.6f}.")
    elif S == "cleanrl": P(f"total_time={time.time()-t0:.1f}s")
dist.destroy_process_group()
