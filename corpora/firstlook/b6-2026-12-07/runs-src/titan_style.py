"""Byte-level LM pretraining loop with torchtitan-flavoured logging.

Text from a jsonl corpus ({"text": ...}) is byte-tokenized and packed into
fixed-length sequences; rank r takes lines r, r+W, ... . Checkpoints are
written with torch.save to <dump_folder>/checkpoint/step-<n>/.
"""
import argparse, datetime, json, logging, os, resource, time
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

p = argparse.ArgumentParser()
p.add_argument("--job.dump_folder", dest="dump", default="./outputs")
p.add_argument("--training.dataset_path", dest="data", required=True)
p.add_argument("--training.steps", dest="steps", type=int, default=300)
p.add_argument("--training.batch_size", dest="bs", type=int, default=8)
p.add_argument("--training.seq_len", dest="seq", type=int, default=128)
p.add_argument("--optimizer.lr", dest="lr", type=float, default=8e-4)
p.add_argument("--metrics.log_freq", dest="log_freq", type=int, default=10)
p.add_argument("--checkpoint.interval", dest="ckpt_every", type=int, default=100)
p.add_argument("--comm.init_timeout_seconds", dest="timeout", type=int, default=300)
p.add_argument("--model.dim", dest="dim", type=int, default=192)
p.add_argument("--model.n_layers", dest="layers", type=int, default=4)
args = p.parse_args()

logging.basicConfig(format="[titan] %(asctime)s - %(name)s - %(levelname)s - %(message)s", level=logging.INFO)
logger = logging.getLogger("root")

logger.info("Starting job: byte-lm pretraining")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
rank, world = dist.get_rank(), dist.get_world_size()
logger.info(f"Building 1-D device mesh with ['dp_shard'], [{world}]")
torch.manual_seed(0)

class Block(nn.Module):
    def __init__(self, d, h=4):
        super().__init__()
        self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.w1, self.w2 = nn.Linear(d, 4 * d, bias=False), nn.Linear(4 * d, d, bias=False)
        self.h = h
    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.n1(x)).view(B, T, 3, self.h, D // self.h).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, D))
        return x + self.w2(F.silu(self.w1(self.n2(x))))

class ByteLM(nn.Module):
    def __init__(self, d, L):
        super().__init__()
        self.tok = nn.Embedding(256, d)
        self.layers = nn.ModuleList(Block(d) for _ in range(L))
        self.norm, self.out = nn.RMSNorm(d), nn.Linear(d, 256, bias=False)
    def forward(self, x):
        h = self.tok(x)
        for b in self.layers:
            h = b(h)
        return self.out(self.norm(h))

def packed_batches():
    buf = []
    while True:
        with open(args.data) as fh:
            for i, line in enumerate(fh):
                if i % world != rank:
                    continue
                sample = json.loads(line)
                buf.extend(sample["text"].encode("utf-8") + b"\n")
                while len(buf) >= args.bs * (args.seq + 1):
                    chunk = torch.tensor(buf[: args.bs * (args.seq + 1)]).view(args.bs, args.seq + 1)
                    del buf[: args.bs * (args.seq + 1)]
                    yield chunk[:, :-1].long(), chunk[:, 1:].long()

model = ByteLM(args.dim, args.layers)
n = sum(p.numel() for p in model.parameters())
logger.info(f"Model byte_lm size: {n:,} total parameters")
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
ckdir = os.path.join(args.dump, "checkpoint")
step = 0
if os.path.isdir(ckdir) and os.listdir(ckdir):
    last = max(int(d.split("-")[1]) for d in os.listdir(ckdir) if d.startswith("step-"))
    st = torch.load(os.path.join(ckdir, f"step-{last}", "state.pt"), map_location="cpu")
    model.module.load_state_dict(st["model"]); opt.load_state_dict(st["optim"]); sched.load_state_dict(st["sched"])
    step = st["step"]
    logger.info(f"Finished loading the checkpoint in {0.0:.2f} seconds.")
else:
    logger.info("Checkpointing active. Checkpoints will be loaded from and saved to " + ckdir)
logger.info(f"Training starts at step {step + 1}, with local batch size {args.bs}, global batch size {args.bs * world}, "
            f"sequence length {args.seq}, total steps {args.steps} (warmup 20)")
data = packed_batches()
for _ in range(step):
    next(data)
t_last = time.perf_counter(); ntok = 0; losses = []
while step < args.steps:
    step += 1
    x, y = next(data)
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
    opt.zero_grad(); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); sched.step()
    ntok += x.numel(); losses.append(loss.detach())
    if step == 1 or step % args.log_freq == 0:
        l = torch.stack(losses).mean(); dist.all_reduce(l); l = l.item() / world
        dt = time.perf_counter() - t_last
        mem = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
        logger.info(f"step: {step:2d}  loss: {l:7.4f}  grad_norm: {gn.item():7.4f}  memory: {mem:5.2f}GiB(n/a)  "
                    f"tps: {round(ntok / dt):,}  tflops: {6 * n * ntok / dt / 1e12:,.2f}  mfu: 0.00%")
        t_last = time.perf_counter(); ntok = 0; losses = []
    if step % args.ckpt_every == 0:
        if rank == 0:
            d = os.path.join(ckdir, f"step-{step}"); os.makedirs(d, exist_ok=True)
            t0 = time.perf_counter()
            torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "sched": sched.state_dict(), "step": step},
                       os.path.join(d, "state.pt"))
            logger.info(f"Finished saving the checkpoint (or staging if async is enabled)in {time.perf_counter() - t0:.2f} seconds.")
        dist.barrier()
logger.info("Training completed")
dist.destroy_process_group()
