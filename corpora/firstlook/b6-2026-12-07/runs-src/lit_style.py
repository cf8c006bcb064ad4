"""Image / tabular model trained with a hand-written loop that prints what a
Lightning Trainer prints (banner, model summary, tqdm progress bar on rank 0,
epoch-end checkpointing with torch.save into <default_root_dir>/checkpoints)."""
import argparse, datetime, os, sys, time
import numpy as np, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler
from tqdm import tqdm

p = argparse.ArgumentParser()
p.add_argument("--task", choices=["image", "tabular"], default="image")
p.add_argument("--data", required=True)
p.add_argument("--default_root_dir", default="lightning_logs")
p.add_argument("--max_epochs", type=int, default=3)
p.add_argument("--batch_size", type=int, default=32)
p.add_argument("--num_workers", type=int, default=2)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--limit_train_batches", type=int, default=0)
args = p.parse_args()

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=600))
rank, world = dist.get_rank(), dist.get_world_size()
r0 = rank == 0
if r0:
    print("GPU available: False, used: False")
    print("TPU available: False, using: 0 TPU cores")
    print("HPU available: False, using: 0 HPUs")
print(f"Initializing distributed: GLOBAL_RANK: {rank}, MEMBER: {rank + 1}/{world}", flush=True)
dist.barrier()
if r0:
    print("-" * 100)
    print("distributed_backend=gloo")
    print(f"All distributed processes registered. Starting with {world} processes")
    print("-" * 100 + "\n", flush=True)

class ImageSet(Dataset):
    def __init__(self, d):
        self.x = np.load(os.path.join(d, "images.npy"), mmap_mode="r"); self.y = np.load(os.path.join(d, "labels.npy"))
    def __len__(self): return len(self.y)
    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.x[i])), int(self.y[i])

class TabSet(Dataset):
    def __init__(self, d):
        self.x = np.load(os.path.join(d, "features.npy"), mmap_mode="r"); self.y = np.load(os.path.join(d, "targets.npy"), mmap_mode="r")
    def __len__(self): return len(self.y)
    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.x[i])), torch.tensor(float(self.y[i]))

if args.task == "image":
    ds = ImageSet(args.data)
    net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
    name, crit = "ResNetLite", nn.CrossEntropyLoss()
else:
    ds = TabSet(args.data)
    net = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1), nn.Flatten(0))
    name, crit = "TabularMLP", nn.MSELoss()
n = sum(p.numel() for p in net.parameters())
if r0:
    print("  | Name      | Type       | Params | Mode ")
    print("--------------------------------------------------")
    print(f"0 | model     | {name:<10} | {n / 1e3:.1f} K | train")
    print(f"1 | criterion | {type(crit).__name__:<10} | 0      | train")
    print("--------------------------------------------------")
    print(f"{n / 1e3:.1f} K     Trainable params\n0         Non-trainable params\n{n / 1e3:.1f} K     Total params")
    print(f"{n * 4 / 1e6:.3f}     Total estimated model params size (MB)", flush=True)
model = DDP(net)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=42)
dl = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=args.num_workers,
                persistent_workers=False, drop_last=True)
ckdir = os.path.join(args.default_root_dir, "checkpoints"); v_num = 0
start_epoch = 0
if os.path.isdir(ckdir):
    cks = sorted(f for f in os.listdir(ckdir) if f.endswith(".ckpt"))
    if cks:
        st = torch.load(os.path.join(ckdir, cks[-1]), map_location="cpu")
        model.module.load_state_dict(st["state_dict"]); opt.load_state_dict(st["optimizer_states"][0])
        start_epoch = st["epoch"] + 1
        if r0: print(f"Restoring states from the checkpoint path at {os.path.join(ckdir, cks[-1])}", flush=True)
nb = len(dl) if not args.limit_train_batches else min(len(dl), args.limit_train_batches)
gstep = start_epoch * nb
for epoch in range(start_epoch, args.max_epochs):
    sampler.set_epoch(epoch); model.train()
    bar = tqdm(total=nb, desc=f"Epoch {epoch}", file=sys.stdout, disable=not r0, mininterval=0.5,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]")
    for i, (x, y) in enumerate(dl):
        if i >= nb:
            break
        out = model(x); loss = crit(out, y)
        opt.zero_grad(); loss.backward(); opt.step(); gstep += 1
        bar.set_postfix_str(f"v_num={v_num}, train_loss={loss.item():.3f}", refresh=False); bar.update(1)
    bar.close()
    if r0:
        os.makedirs(ckdir, exist_ok=True)
        path = os.path.join(ckdir, f"epoch={epoch}-step={gstep}.ckpt")
        torch.save({"epoch": epoch, "global_step": gstep, "state_dict": model.module.state_dict(),
                    "optimizer_states": [opt.state_dict()]}, path)
    dist.barrier()
if r0:
    print(f"`Trainer.fit` stopped: `max_epochs={args.max_epochs}` reached.", flush=True)
dist.destroy_process_group()
