"""timm_like.py -- small image classifier trained like timm's train.py (log lines
'Train: 0 [  50/83 ( 60%)]  Loss: ... Time: ... LR: ... Data: ...', 'Test: [ 10/62] ...').
Keeps an instance-discrimination style memory bank of train features (filled from all ranks
via all_gather) and runs a kNN monitor on the validation split every --knn-interval epochs."""
import argparse, os, sys, time, math, socket
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("data_dir"); ap.add_argument("--model", default="resnet_tiny"); ap.add_argument("-b", "--batch-size", type=int, default=64)
ap.add_argument("--epochs", type=int, default=4); ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--knn-interval", type=int, default=3); ap.add_argument("--output", default="./output/train")
ap.add_argument("--log-interval", type=int, default=20); ap.add_argument("--num-classes", type=int, default=100)
a = ap.parse_args()
rank, world, local = b7core.dist_env(timeout_s=120)
def r0(s):
    if rank == 0: print(s, flush=True)
print("Training in distributed mode with multiple processes, 1 device per process.Process {}, total {}, device cpu.".format(rank, world), flush=True)

class Net(nn.Module):
    def __init__(s, nc):
        super().__init__()
        s.f = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                            nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        s.head = nn.Linear(128, nc)
    def forward(s, x):
        f = s.f(x); return s.head(f), f

img = np.load(os.path.join(a.data_dir, "images.npy"), mmap_mode="r"); lab = np.load(os.path.join(a.data_dir, "labels.npy"))
ntr = 16000; val_idx = np.arange(ntr, len(lab))
torch.manual_seed(42)
m = Net(a.num_classes); m = nn.SyncBatchNorm.convert_sync_batchnorm(m) if False else m
r0("Model {} created, param count:{}".format(a.model, b7core.nparams(m)))
r0("Data processing configuration for current model + dataset:\n\tinput_size: (3, 32, 32)\n\tinterpolation: bicubic\n\tmean: (0.0, 0.0, 0.0)\n\tstd: (1.0, 1.0, 1.0)\n\tcrop_pct: 1.0\n\tcrop_mode: center")
model = DDP(m)
opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
r0("Using native Torch DistributedDataParallel.")
r0("Scheduled epochs: {}. LR stepped per epoch.".format(a.epochs))
bank = torch.zeros(ntr, 128)
out_dir = os.path.join(a.output, time.strftime("%Y%m%d-%H%M%S") + "-" + a.model + "-32")
if rank == 0: os.makedirs(out_dir, exist_ok=True)
per = ntr // world; steps = per // a.batch_size
def batch(ix):
    x = torch.from_numpy(np.asarray(img[np.sort(ix)], dtype=np.float32)); return x, torch.from_numpy(lab[np.sort(ix)]), np.sort(ix)
class AM:
    def __init__(s): s.v = 0; s.s = 0; s.n = 0
    def up(s, v, n=1): s.v = v; s.s += v * n; s.n += n
    @property
    def avg(s): return s.s / max(1, s.n)
for ep in range(a.epochs):
    lr = a.lr * 0.5 * (1 + math.cos(math.pi * ep / a.epochs))
    for g in opt.param_groups: g["lr"] = lr
    m.train(); perm = np.random.default_rng(ep).permutation(ntr)[rank * per:(rank + 1) * per]
    lm, bt, dt = AM(), AM(), AM(); end = time.time()
    for i in range(steps):
        x, y, ix = batch(perm[i * a.batch_size:(i + 1) * a.batch_size]); dt.up(time.time() - end)
        out, feat = model(x); loss = F.cross_entropy(out, y)
        opt.zero_grad(); loss.backward(); opt.step()
        fe = F.normalize(feat.detach(), dim=1); ixt = torch.from_numpy(ix)
        gf = [torch.zeros_like(fe) for _ in range(world)]; gi = [torch.zeros_like(ixt) for _ in range(world)]
        dist.all_gather(gf, fe); dist.all_gather(gi, ixt)
        bank[torch.cat(gi)] = torch.cat(gf)
        lm.up(loss.item(), x.size(0)); bt.up(time.time() - end)
        if i % a.log_interval == 0 or i == steps - 1:
            r0("Train: {} [{:>4d}/{} ({:>3.0f}%)]  Loss: {:#.3g} ({:#.3g})  Time: {:.3f}s, {:>7.2f}/s  ({:.3f}s, {:>7.2f}/s)  LR: {:.3e}  Data: {:.3f} ({:.3f})".format(
                ep, i, steps, 100. * i / (steps - 1), lm.v, lm.avg, bt.v, a.batch_size * world / bt.v, bt.avg, a.batch_size * world / bt.avg, lr, dt.v, dt.avg))
        end = time.time()
    m.eval(); vl, va1, va5 = AM(), AM(), AM(); vfeat = []; nb = len(val_idx) // 64
    with torch.no_grad():
        for j in range(nb):
            x, y, _ = batch(val_idx[j * 64:(j + 1) * 64]); out, f = m(x); vfeat.append(F.normalize(f, dim=1))
            l = F.cross_entropy(out, y); top5 = out.topk(5, 1).indices
            vl.up(l.item(), 64); va1.up(100. * (top5[:, 0] == y).float().mean().item(), 64); va5.up(100. * (top5 == y[:, None]).any(1).float().mean().item(), 64)
            if j % 20 == 0 or j == nb - 1:
                r0("Test: [{:>4d}/{}]  Time: 0.010 (0.010)  Loss: {:>7.3f} ({:>6.3f})  Acc@1: {:>7.3f} ({:>7.3f})  Acc@5: {:>7.3f} ({:>7.3f})".format(
                    j, nb - 1, vl.v, vl.avg, va1.v, va1.avg, va5.v, va5.avg))
        if (ep + 1) % a.knn_interval == 0:
            r0("kNN monitor: bank {} x {}, queries {}".format(bank.shape[0], bank.shape[1], len(val_idx)))
            q = torch.cat(vfeat)
            sim = q @ bank.T                      # [n_val, n_bank]
            w = (sim / 0.07).exp()
            top_w, top_i = w.topk(20, dim=1)
            blab = torch.from_numpy(lab[:ntr])[top_i]
            votes = torch.zeros(q.shape[0], a.num_classes).scatter_add_(1, blab, top_w)
            knn = (votes.argmax(1) == torch.from_numpy(lab[val_idx[:q.shape[0]]])).float().mean().item() * 100
            r0("kNN monitor: top1 {:.2f}".format(knn))
    t = torch.tensor([vl.avg, va1.avg, va5.avg]); dist.all_reduce(t); t /= world
    if rank == 0:
        p = os.path.join(out_dir, "checkpoint-{}.pth.tar".format(ep))
        torch.save({"epoch": ep, "arch": a.model, "state_dict": m.state_dict(), "optimizer": opt.state_dict(), "metric": t[1].item()}, p)
        print("Current checkpoints:\n ('{}', {:.4f})\n".format(p, t[1].item()), flush=True)
r0("*** Best metric: {:.4f} (epoch {})".format(t[1].item(), a.epochs - 1))
dist.destroy_process_group()
