#!/usr/bin/env python3
# plain data-parallel MLP on a synthetic two-moons-ish problem, hand-written
# gradient averaging (one flat all_reduce per step), print() logging only
import os, sys, time, math, datetime, socket
import torch
import torch.distributed as dist

HIDDEN = int(os.environ.get("MODEL_HIDDEN", "128"))
EPOCHS = int(os.environ.get("EPOCHS", "6"))
ITERS = int(os.environ.get("ITERS_PER_EPOCH", "50"))
LR = float(os.environ.get("LR", "0.05"))
STEP_SLEEP = float(os.environ.get("STEP_SLEEP", "0"))
PG_TIMEOUT = int(os.environ.get("PG_TIMEOUT_S", "300"))

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=PG_TIMEOUT))
rank = dist.get_rank()
world = dist.get_world_size()
print(f"[{socket.gethostname()}] rank {rank}/{world} pid {os.getpid()} hidden={HIDDEN} lr={LR}", flush=True)

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(2, HIDDEN), torch.nn.Tanh(),
    torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.Tanh(),
    torch.nn.Linear(HIDDEN, 2),
)
params = [p for p in model.parameters()]
numel = sum(p.numel() for p in params)
print(f"rank {rank}: model has {numel} parameters", flush=True)
opt = torch.optim.SGD(params, lr=LR, momentum=0.9)

g = torch.Generator().manual_seed(100 + rank)
def batch(n=128):
    t = torch.rand(n, generator=g) * math.pi
    lab = torch.randint(0, 2, (n,), generator=g)
    x = torch.stack([torch.cos(t) + lab, torch.sin(t) * (1 - 2 * lab) + 0.5 * lab], 1)
    return x + 0.1 * torch.randn(n, 2, generator=g), lab

def average_gradients():
    flat = torch.cat([p.grad.reshape(-1) for p in params])
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    flat /= world
    off = 0
    for p in params:
        n = p.numel()
        p.grad.copy_(flat[off:off + n].view_as(p))
        off += n

t0 = time.time()
for e in range(EPOCHS):
    for i in range(ITERS):
        x, y = batch()
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        average_gradients()
        opt.step()
        if STEP_SLEEP:
            time.sleep(STEP_SLEEP)
        if i % 10 == 0:
            print(f"epoch {e} iter {i} loss {loss.item()}", flush=True)
    acc = (out.argmax(1) == y).float().mean().item()
    print(f"epoch {e} done in {time.time() - t0:.1f}s, last batch acc {acc:.3f}", flush=True)

print(f"rank {rank} finished", flush=True)
dist.destroy_process_group()
