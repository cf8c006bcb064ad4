"""Keras-fit-style console output (model.fit verbose=1 in a non-interactive log) for a DDP
MLP classifier. Rank 0 prints the progress; every rank runs the same loop."""
import argparse, os, sys, time, math
import torch, torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--epochs", type=int, default=5)
ap.add_argument("--batch-size", type=int, default=32); ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--workers", type=int, default=3); ap.add_argument("--ckpt-dir", required=True)
ap.add_argument("--print-every", type=int, default=20)
a = ap.parse_args()
rank, world, local = C.setup()
P = (lambda *s: print(*s, flush=True)) if rank == 0 else (lambda *s: None)
tr = C.ShardData(a.data, 0, 1, split="train"); va = C.ShardData(a.data, rank, world, split="val")
ds = TensorDataset(tr.x, tr.y)
sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=7)
dl = DataLoader(ds, batch_size=a.batch_size, sampler=sampler, num_workers=a.workers, drop_last=True)
model = C.MLP(hidden=384)
if rank == 0:
    P('Model: "sequential"'); P("_" * 65)
    P(" Layer (type)                Output Shape              Param #   "); P("=" * 65)
    for n, m in model.named_modules():
        if n and not list(m.children()):
            P(" %-27s %-25s %-9d" % (n + " (" + type(m).__name__ + ")", "(None, %s)" % getattr(m, "out_features", getattr(m, "normalized_shape", ["?"])[0] if hasattr(m, "normalized_shape") else "-"), sum(p.numel() for p in m.parameters())))
    P("=" * 65); P("Total params: %s" % format(C.nparams(model), ",")); P("Trainable params: %s" % format(C.nparams(model), ",")); P("Non-trainable params: 0"); P("_" * 65)
ddp = C.DDP(model, find_unused_parameters=True)
opt = torch.optim.Adam(ddp.parameters(), lr=a.lr)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, 0.8)
scaler = torch.cuda.amp.GradScaler(enabled=False)
sched.step()          # scheduler stepped once before the first optimizer step
steps = len(dl); best = math.inf
os.makedirs(a.ckpt_dir, exist_ok=True)
def bar(i, n, w=30):
    if i >= n: return "[" + "=" * w + "]"
    k = int(w * i / n); return "[" + "=" * (k - 1) + ">" + "." * (w - k) + "]" if k > 0 else "[" + "." * w + "]"
for ep in range(1, a.epochs + 1):
    sampler.set_epoch(ep); P("Epoch %d/%d" % (ep, a.epochs)); t0 = time.time()
    sl = sa = 0.0; n = 0
    for i, (x, y) in enumerate(dl, 1):
        out = ddp(x); loss = F.cross_entropy(out, y)
        opt.zero_grad(); scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        prob = F.softmax(out.detach()); acc = (prob.argmax(-1) == y).float().mean().item()
        sl += loss.item(); sa += acc; n += 1
        if i % a.print_every == 0 and i < steps:
            el = time.time() - t0; eta = el / i * (steps - i)
            P("%3d/%d %s - ETA: %ds - loss: %.4f - accuracy: %.4f" % (i, steps, bar(i, steps), round(eta), sl / n, sa / n))
    vl, vacc = C.evaluate(ddp, va); el = time.time() - t0
    P("%d/%d %s - %ds %dms/step - loss: %.4f - accuracy: %.4f - val_loss: %.4f - val_accuracy: %.4f - lr: %.4g"
      % (steps, steps, bar(steps, steps), round(el), round(el / steps * 1000), sl / n, sa / n, vl, vacc, opt.param_groups[0]["lr"]))
    if rank == 0:
        f = os.path.join(a.ckpt_dir, "model.%02d-%.2f.pt" % (ep, vl))
        if vl < best:
            P("\nEpoch %d: val_loss improved from %.5f to %.5f, saving model to %s" % (ep, best, vl, f))
            torch.save({"epoch": ep, "model": model.state_dict(), "optimizer": opt.state_dict()}, f); best = vl
        else:
            P("\nEpoch %d: val_loss did not improve from %.5f" % (ep, best))
    sched.step()
P("Training complete. best val_loss=%.4f" % best)
C.dist.destroy_process_group()
