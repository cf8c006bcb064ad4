"""torchvision classification reference-script-like trainer (utils.MetricLogger / SmoothedValue output)."""
import argparse, datetime, os, time
from collections import defaultdict, deque
import numpy as np, torch, torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

class SmoothedValue:
    def __init__(self, window_size=20, fmt="{median:.4f} ({global_avg:.4f})"):
        self.deque = deque(maxlen=window_size); self.total = 0.0; self.count = 0; self.fmt = fmt
    def update(self, v, n=1): self.deque.append(v); self.count += n; self.total += v * n
    @property
    def median(self): return torch.tensor(list(self.deque)).median().item()
    @property
    def global_avg(self): return self.total / self.count
    @property
    def value(self): return self.deque[-1]
    def __str__(self): return self.fmt.format(median=self.median, global_avg=self.global_avg, value=self.value)

class MetricLogger:
    def __init__(self, delimiter="  "): self.meters = defaultdict(SmoothedValue); self.delimiter = delimiter
    def update(self, **kw):
        for k, v in kw.items(): self.meters[k].update(v)
    def add_meter(self, name, m): self.meters[name] = m
    def __str__(self): return self.delimiter.join(f"{k}: {v}" for k, v in self.meters.items())
    def log_every(self, it, print_freq, header):
        start = time.time(); end = time.time(); it_t = SmoothedValue(fmt="{avg:.4f}".replace("avg", "global_avg")); dt = SmoothedValue(fmt="{global_avg:.4f}")
        fmt = ":" + str(len(str(len(it)))) + "d"
        msg = self.delimiter.join([header, "[{0" + fmt + "}/{1}]", "eta: {eta}", "{meters}", "time: {time}", "data: {data}", "max mem: {memory:.0f}"])
        for i, obj in enumerate(it):
            dt.update(time.time() - end); yield obj; it_t.update(time.time() - end)
            if i % print_freq == 0 or i == len(it) - 1:
                eta = str(datetime.timedelta(seconds=int(it_t.global_avg * (len(it) - i))))
                print(msg.format(i, len(it), eta=eta, meters=str(self), time=str(it_t), data=str(dt), memory=0), flush=True)
            end = time.time()
        print(f"{header} Total time: {datetime.timedelta(seconds=int(time.time() - start))}", flush=True)

p = argparse.ArgumentParser()
p.add_argument("--data-path", required=True); p.add_argument("--model", default="resnet18"); p.add_argument("--epochs", type=int, default=4)
p.add_argument("-b", "--batch-size", type=int, default=32); p.add_argument("--lr", type=float, default=0.1); p.add_argument("--print-freq", type=int, default=10)
p.add_argument("--output-dir", default="."); p.add_argument("--pace", type=float, default=0.1)
args = p.parse_args()
rank = int(os.environ["RANK"])
print(f"| distributed init (rank {rank}): env://", flush=True)
rank, world, local = C.init_dist()
import builtins
_p = builtins.print
def print(*a, **k):
    if rank == 0 or k.pop("force", False): _p(*a, **k)
dist.barrier()
print(argparse.Namespace(**vars(args), rank=rank, world_size=world, gpu=local, distributed=True, dist_backend="gloo", dist_url="env://"))
print("Loading data")
z = [np.load(f) for f in C.shard_paths(args.data_path, "*.npz")]
X = torch.from_numpy(np.concatenate([q["data"] for q in z])); Y = torch.from_numpy(np.concatenate([q["seg"][:, 0, 0] for q in z]))
print("Creating data loaders")
ds = torch.utils.data.TensorDataset(X, Y)
sampler = torch.utils.data.distributed.DistributedSampler(ds)
dl = torch.utils.data.DataLoader(ds, batch_size=args.batch_size, sampler=sampler)
print("Creating model")
model = DDP(C.SmallCNN(3))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
print("Start training")
t0 = time.time()
for epoch in range(args.epochs):
    sampler.set_epoch(epoch); model.train()
    ml = MetricLogger(delimiter="  ")
    ml.add_meter("lr", SmoothedValue(window_size=1, fmt="{value}")); ml.add_meter("img/s", SmoothedValue(window_size=10, fmt="{value}"))
    for x, y in ml.log_every(dl, args.print_freq, f"Epoch: [{epoch}]"):
        st = time.time()
        out = model(x); loss = nn.functional.cross_entropy(out, y)
        opt.zero_grad(); loss.backward(); opt.step(); time.sleep(args.pace)
        acc1 = (out.argmax(1) == y).float().mean().item() * 100
        ml.update(loss=loss.item(), lr=opt.param_groups[0]["lr"]); ml.meters["acc1"].update(acc1, n=len(y)); ml.meters["acc5"].update(100.0, n=len(y))
        ml.meters["img/s"].update(len(y) / (time.time() - st))
    if rank == 0: torch.save({"model": model.module.state_dict(), "epoch": epoch}, os.path.join(args.output_dir, "checkpoint.pth"))
print(f"Training time {datetime.timedelta(seconds=int(time.time() - t0))}")
dist.destroy_process_group()
