"""LitGPT-pretrain-like trainer (fabric.print-style: rank 0 prints)."""
import argparse, math, os, time
import numpy as np, torch, torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--data", required=True); p.add_argument("--out_dir", default="out/pretrain/tiny-llama")
p.add_argument("--max_iters", type=int, default=120); p.add_argument("--micro_batch_size", type=int, default=4)
p.add_argument("--grad_accum", type=int, default=2); p.add_argument("--log_interval", type=int, default=4)
p.add_argument("--eval_interval", type=int, default=40); p.add_argument("--pace", type=float, default=0.2)
a = p.parse_args()
rank, world, local = C.init_dist()
def fprint(*x):
    if rank == 0: print(*x, flush=True)
torch.manual_seed(42)
fprint("Seed set to 42")
cfg = dict(name="tiny-llama-b14", block_size=64, vocab_size=512, n_layer=2, n_head=4, n_embd=128)
fprint(f"Loading model with {cfg}")
t0 = time.perf_counter()
model = C.TinyGPT(vocab=512, d=128, n_layer=2, n_head=4, block=64)
fprint(f"Time to instantiate model: {time.perf_counter() - t0:.2f} seconds.")
fprint(f"Total parameters: {sum(p.numel() for p in model.parameters()):,}")
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1, betas=(0.9, 0.95))
shards = C.shard_paths(a.data)
fprint(f"Data: {len(shards)} shards in {a.data!r}, world size {world}")
rng = np.random.default_rng(1234 + rank)
def batch():
    arr = np.load(shards[rng.integers(len(shards))])
    rows = arr[rng.integers(0, len(arr), a.micro_batch_size)]
    x = torch.from_numpy(rows)
    return x[:, :-1], x[:, 1:]
train_t0 = time.perf_counter()
step = 0
for it in range(1, a.max_iters + 1):
    it_t0 = time.perf_counter()
    x, y = batch()
    is_acc = it % a.grad_accum != 0
    if is_acc:
        with model.no_sync():
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / a.grad_accum
            loss.backward()
    else:
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / a.grad_accum
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); opt.zero_grad(set_to_none=True); step += 1
    time.sleep(a.pace)
    if it % a.log_interval == 0:
        t1 = time.perf_counter()
        rem = (a.max_iters - it) * (t1 - it_t0)
        fprint(f"Epoch 1 | iter {it} step {step} | loss train: {loss.item() * a.grad_accum:.3f}, val: n/a | "
               f"iter time: {(t1 - it_t0) * 1000:.2f} ms{' (step)' if not is_acc else ''} "
               f"remaining time: {time.strftime('%H:%M:%S', time.gmtime(rem))}")
    if not is_acc and step % (a.eval_interval // a.grad_accum) == 0:
        fprint("Validating ...")
        v0 = time.perf_counter()
        with torch.no_grad():
            vl = torch.stack([F.cross_entropy(model(x).flatten(0, 1), y.flatten()) for x, y in (batch() for _ in range(4))]).mean()
        torch.distributed.all_reduce(vl); vl /= world
        fprint(f"iter {it}: val loss {vl.item():.4f}, val time: {(time.perf_counter() - v0) * 1000:.2f} ms")
        path = os.path.join(a.out_dir, f"step-{step:08d}", "lit_model.pth")
        fprint(f"Saving checkpoint to {path!r}")
        if rank == 0:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            torch.save({"model": model.module.state_dict(), "iter_num": it, "step_count": step}, path)
        torch.distributed.barrier()
fprint(f"Training time: {time.perf_counter() - train_t0:.2f}s")
fprint("Memory used: 0.00 GB")
torch.distributed.destroy_process_group()
