"""Sequence classifier trained on synthetic token data with python logging
(rank in every record). Checkpoints ckpt_dir/step_XXXXXX.pt, resumes from the
newest one on start."""
import argparse, datetime, glob, logging, os, socket, time
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ap = argparse.ArgumentParser()
ap.add_argument("--ckpt_dir", required=True)
ap.add_argument("--total_steps", type=int, default=600)
ap.add_argument("--save_every", type=int, default=50)
ap.add_argument("--log_every", type=int, default=10)
ap.add_argument("--bs", type=int, default=32)
args = ap.parse_args()

rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
class RankFilter(logging.Filter):
    def filter(self, rec):
        rec.rank = rank; rec.host = socket.gethostname(); return True
h = logging.StreamHandler()
h.addFilter(RankFilter())
h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s [%(host)s:rank%(rank)d] %(name)s: %(message)s"))
logging.basicConfig(level=logging.INFO, handlers=[h])
log = logging.getLogger("seqcls.train")

log.info("initializing process group (backend=gloo, world_size=%d)", world)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=180))
log.info("process group ready; local_rank=%s", os.environ.get("LOCAL_RANK"))

V, T, C = 1000, 48, 4
class SeqCls(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(V, 128, mode="mean")
        self.tok = nn.Embedding(V, 64)
        self.rnn = nn.GRU(64, 128, batch_first=True)
        self.head = nn.Sequential(nn.Linear(256, 128), nn.GELU(), nn.Linear(128, C))
    def forward(self, x):
        _, hN = self.rnn(self.tok(x))
        return self.head(torch.cat([self.emb(x), hN[-1]], 1))

def batch(step):
    g = torch.Generator().manual_seed(step * world + rank)
    y = torch.randint(0, C, (args.bs,), generator=g)
    x = torch.randint(0, V, (args.bs, T), generator=g)
    x[:, :: 4] = (y[:, None] * 250 + torch.randint(0, 50, (args.bs, (T + 3) // 4), generator=g))
    return x, y

model = DDP(SeqCls())
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
step = 0
os.makedirs(args.ckpt_dir, exist_ok=True)
cks = sorted(glob.glob(os.path.join(args.ckpt_dir, "step_*.pt")))
if cks:
    log.info("found %d checkpoint(s) in %s, resuming from %s", len(cks), args.ckpt_dir, os.path.basename(cks[-1]))
    st = torch.load(cks[-1], map_location="cpu")
    model.module.load_state_dict(st["model"]); opt.load_state_dict(st["opt"]); step = st["step"]
    log.info("resumed at step %d", step)
else:
    log.info("no checkpoint in %s, starting from scratch", args.ckpt_dir)
lossf = nn.CrossEntropyLoss(); t0 = time.time(); run_loss = 0.0; correct = 0; seen = 0
while step < args.total_steps:
    x, y = batch(step)
    out = model(x); loss = lossf(out, y)
    opt.zero_grad(); loss.backward(); opt.step(); step += 1
    run_loss += loss.item(); correct += (out.argmax(1) == y).sum().item(); seen += len(y)
    if step % args.log_every == 0:
        m = torch.tensor([run_loss / args.log_every, correct / seen]); dist.all_reduce(m); m /= world
        log.info("step %d/%d loss=%.4f acc=%.3f (%.1f samples/s)", step, args.total_steps, m[0], m[1],
                 seen * world / (time.time() - t0))
        run_loss = 0.0; correct = 0; seen = 0; t0 = time.time()
    if step % args.save_every == 0:
        if rank == 0:
            path = os.path.join(args.ckpt_dir, f"step_{step:06d}.pt")
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step}, path + ".tmp")
            os.replace(path + ".tmp", path)
            log.info("saved checkpoint %s", path)
        dist.barrier()
log.info("training finished at step %d", step)
dist.destroy_process_group()
