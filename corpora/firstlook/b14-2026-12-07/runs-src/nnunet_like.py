"""nnU-Net-v2-like trainer: print_to_log_file (timestamped) on local rank 0 of global rank 0, per-epoch summary."""
import argparse, datetime, os, time
import numpy as np, torch, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--preprocessed", required=True); p.add_argument("--out", required=True)
p.add_argument("--epochs", type=int, default=10); p.add_argument("--iters", type=int, default=12)
p.add_argument("--val_iters", type=int, default=3); p.add_argument("--pace", type=float, default=0.12)
a = p.parse_args()
rank, world, local = C.init_dist()
os.makedirs(a.out, exist_ok=True)
ts = datetime.datetime.now()
logf = os.path.join(a.out, "training_log_%d_%d_%d_%02.0d_%02.0d_%02.0d.txt" % (ts.year, ts.month, ts.day, ts.hour, ts.minute, ts.second))
def print_to_log_file(*args):
    if rank != 0: return
    msg = "%s: %s" % (datetime.datetime.now(), " ".join(str(x) for x in args))
    with open(logf, "a") as f: f.write(msg + "\n")
    print(msg, flush=True)
print_to_log_file("\n#######################################################################\nPlease cite the following paper when using nnU-Net:\nIsensee, F., Jaeger, P. F., Kohl, S. A., Petersen, J., & Maier-Hein, K. H. (2021). nnU-Net: a self-configuring method for deep learning-based biomedical image segmentation. Nature methods, 18(2), 203-211.\n#######################################################################\n")
print_to_log_file(f"DDP: world size {world}, batch size per GPU 4, oversample 0.33")
cases = C.shard_paths(a.preprocessed, "case_*.npz")
print_to_log_file(f"Using splits from existing split file: {os.path.join(a.preprocessed, 'splits_final.json')}")
print_to_log_file(f"The split file contains 5 splits.")
print_to_log_file(f"Desired fold for training: 0")
print_to_log_file(f"This split has {len(cases) - 2} training and 2 validation cases.")
torch.manual_seed(12345)
net = DDP(C.TinyUNet(1, 3, 8))
opt = torch.optim.SGD(net.parameters(), lr=1e-2, momentum=0.99, nesterov=True, weight_decay=3e-5)
rng = np.random.default_rng(rank)
def get_batch(train=True):
    pool = cases[:-2] if train else cases[-2:]
    z = np.load(pool[rng.integers(len(pool))])
    idx = rng.integers(0, z["data"].shape[0], 4)
    return torch.from_numpy(z["data"][idx]), torch.from_numpy(z["seg"][idx])
def loss_fn(out, y):
    ce = F.cross_entropy(out, y)
    p = out.softmax(1)[:, 1:]; oh = F.one_hot(y, 3).permute(0, 3, 1, 2)[:, 1:].float()
    dc = (2 * (p * oh).sum((0, 2, 3)) + 1e-5) / (p.sum((0, 2, 3)) + oh.sum((0, 2, 3)) + 1e-5)
    return ce - dc.mean(), dc
ema = None; best = None
for ep in range(a.epochs):
    t0 = time.time()
    print_to_log_file("")
    print_to_log_file(f"Epoch {ep}")
    lr = 1e-2 * (1 - ep / a.epochs) ** 0.9
    for g in opt.param_groups: g["lr"] = lr
    print_to_log_file(f"Current learning rate: {np.round(lr, decimals=5)}")
    tl = []
    net.train()
    for _ in range(a.iters):
        x, y = get_batch(True)
        l, _ = loss_fn(net(x), y)
        opt.zero_grad(); l.backward(); torch.nn.utils.clip_grad_norm_(net.parameters(), 12); opt.step()
        tl.append(l.item()); time.sleep(a.pace)
    net.eval(); vl = []; dcs = []
    with torch.no_grad():
        for _ in range(a.val_iters):
            x, y = get_batch(False)
            l, dc = loss_fn(net(x), y); vl.append(l.item()); dcs.append(dc)
    t = torch.tensor([np.mean(tl), np.mean(vl)]); dist.all_reduce(t); t /= world
    dice = torch.stack(dcs).mean(0); dist.all_reduce(dice); dice /= world
    print_to_log_file("train_loss", np.round(t[0].item(), decimals=4))
    print_to_log_file("val_loss", np.round(t[1].item(), decimals=4))
    print_to_log_file("Pseudo dice", [np.round(i, decimals=4) for i in dice.tolist()])
    print_to_log_file(f"Epoch time: {np.round(time.time() - t0, decimals=2)} s")
    m = float(np.nanmean(dice.numpy()))
    ema = m if ema is None else ema * 0.9 + 0.1 * m
    if best is None or ema > best:
        best = ema
        print_to_log_file(f"Yayy! New best EMA pseudo Dice: {np.round(best, decimals=4)}")
        if rank == 0: torch.save(net.module.state_dict(), os.path.join(a.out, "checkpoint_best.pth"))
if rank == 0: torch.save(net.module.state_dict(), os.path.join(a.out, "checkpoint_final.pth"))
print_to_log_file("Training done.")
dist.destroy_process_group()
