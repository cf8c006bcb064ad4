# plain_train.py -- small GPT trained on a uint16 token file (np.memmap), plain print() logging.
import argparse, datetime, json, math, os, socket, sys, time, warnings
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True)
ap.add_argument("--out_dir", required=True)
ap.add_argument("--max_iters", type=int, default=500)
ap.add_argument("--eval_interval", type=int, default=100)
ap.add_argument("--log_interval", type=int, default=10)
ap.add_argument("--batch_size", type=int, default=12)
ap.add_argument("--block_size", type=int, default=64)
ap.add_argument("--n_embd", type=int, default=128)
ap.add_argument("--n_layer", type=int, default=3)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--metrics_addr", default="")   # host:port of a metrics sidecar, optional
ap.add_argument("--amp", action="store_true")
cfg = ap.parse_args()

dist.init_process_group(backend="gloo", timeout=datetime.timedelta(minutes=5))
rank = dist.get_rank(); world = dist.get_world_size(); master = rank == 0
torch.manual_seed(1337 + rank)
print(f"rank {rank}/{world} on {socket.gethostname()} pid {os.getpid()}", flush=True)

metrics_sock = None
def connect_metrics():
    global metrics_sock
    host, port = cfg.metrics_addr.rsplit(":", 1)
    for attempt in range(1, 11):
        try:
            metrics_sock = socket.create_connection((host, int(port)), timeout=2)
            print(f"[metrics] connected to {cfg.metrics_addr} after {attempt} attempt(s)", flush=True)
            return
        except OSError as e:
            print(f"[metrics] WARN connect to {cfg.metrics_addr} failed: {e}; retrying in 2s ({attempt}/10)", flush=True)
            time.sleep(2)
    print("[metrics] WARN giving up on metrics sidecar, continuing without it", flush=True)
if cfg.metrics_addr and master:
    connect_metrics()

data = np.memmap(cfg.data, dtype=np.uint16, mode="r")
print(f"rank {rank}: mapped {cfg.data} ({len(data):,} tokens)", flush=True)
def get_batch():
    ix = torch.randint(len(data) - cfg.block_size - 1, (cfg.batch_size,))
    x = torch.stack([torch.from_numpy(data[i:i + cfg.block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1:i + 1 + cfg.block_size].astype(np.int64)) for i in ix])
    return x, y

class GPT(nn.Module):
    def __init__(s, V=512, d=128, L=3, T=64):
        super().__init__()
        s.wte, s.wpe = nn.Embedding(V, d), nn.Embedding(T, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        s.h = nn.TransformerEncoder(layer, L, enable_nested_tensor=False)
        s.ln, s.lm = nn.LayerNorm(d), nn.Linear(d, V, bias=False)
    def forward(s, x, y=None):
        T = x.size(1)
        h = s.wte(x) + s.wpe(torch.arange(T))
        h = s.h(h, mask=nn.Transformer.generate_square_subsequent_mask(T), is_causal=True)
        logits = s.lm(s.ln(h))
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))

model = GPT(d=cfg.n_embd, L=cfg.n_layer, T=cfg.block_size)
if master:
    print(f"number of parameters: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M", flush=True)
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=(0.9, 0.95))
if cfg.amp:
    # old-style AMP API kept from the GPU version of this script
    scaler = torch.cuda.amp.GradScaler(enabled=False)
    ctx = torch.cuda.amp.autocast(enabled=False)
else:
    scaler, ctx = None, None
os.makedirs(cfg.out_dir, exist_ok=True)
health = {"nan_count": 0, "error": 0, "inf_grad_steps": 0, "skipped_batches": 0}
t0 = time.time()
for it in range(cfg.max_iters + 1):
    lr = cfg.lr * min(1.0, (it + 1) / 50) * (0.5 * (1 + math.cos(math.pi * it / cfg.max_iters)) * 0.9 + 0.1)
    for g in opt.param_groups:
        g["lr"] = lr
    if it % cfg.eval_interval == 0 and it > 0:
        model.eval()
        with torch.no_grad():
            l = torch.stack([model(*get_batch())[1] for _ in range(5)]).mean()
        dist.all_reduce(l); l /= world
        model.train()
        if master:
            print(f"step {it}: val loss {l.item():.4f}", flush=True)
            ck = {"model": model.module.state_dict(), "optimizer": opt.state_dict(), "iter_num": it, "config": vars(cfg)}
            print(f"saving checkpoint to {cfg.out_dir}", flush=True)
            torch.save(ck, os.path.join(cfg.out_dir, "ckpt.pt"))
            print(f"health: {health}", flush=True)
            if metrics_sock:
                try:
                    metrics_sock.sendall((json.dumps({"step": it, "val_loss": l.item(), **health}) + "\n").encode())
                except OSError as e:
                    print(f"[metrics] WARN send failed: {e}", flush=True)
        dist.barrier()
    if it == cfg.max_iters:
        break
    x, y = get_batch()
    _, loss = model(x, y)
    if not torch.isfinite(loss):
        health["nan_count"] += 1
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if it % cfg.log_interval == 0 and master:
        dt = time.time() - t0; t0 = time.time()
        print(f"iter {it}: loss {loss.item():.4f}, time {dt * 1000 / max(1, cfg.log_interval if it else 1):.2f}ms, lr {lr:.2e}", flush=True)
if master:
    print(f"done. final health: {health}", flush=True)
dist.destroy_process_group()
