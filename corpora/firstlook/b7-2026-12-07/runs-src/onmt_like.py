"""onmt_like.py -- trainer that logs like OpenNMT-py ('[YYYY-mm-dd HH:MM:SS,mmm INFO] Step 50/ 1500;
acc: ..; ppl: ..; xent: ..; lr: ..; ...'). Examples come from a background shard-reader thread
that fills a shared buffer; SIGUSR1 makes a process log its reader statistics."""
import argparse, collections, logging, os, signal, socket, sys, threading, time, math
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("-config"); ap.add_argument("-data_dir"); ap.add_argument("-save_model")
ap.add_argument("-train_steps", type=int, default=1500); ap.add_argument("-valid_steps", type=int, default=250)
ap.add_argument("-save_checkpoint_steps", type=int, default=250); ap.add_argument("-report_every", type=int, default=50)
ap.add_argument("-batch_size", type=int, default=16); ap.add_argument("-learning_rate", type=float, default=1e-3)
ap.add_argument("-timeout", type=int, default=90)
o = ap.parse_args()

rank, world, local = b7core.dist_env(timeout_s=o.timeout)
logging.basicConfig(format="[%(asctime)s %(levelname)s] %(message)s", level=logging.INFO, stream=sys.stdout)
log = logging.getLogger("onmt")
log.info("Starting process pid: %d on %s (rank %d)", os.getpid(), socket.gethostname(), rank)

class ShardReader:
    """Background thread reading token windows from this rank's shards into a buffer."""
    def __init__(self, files, ctx, seed):
        self.arrs = [np.memmap(f, dtype=np.uint16, mode="r") for f in files]
        self.ctx = ctx; self.g = np.random.default_rng(seed)
        self.lock = threading.Lock(); self.cv = threading.Condition(self.lock)
        self.buf = collections.deque(); self.stats = collections.Counter()
        self.t = threading.Thread(target=self._run, name="shard-reader", daemon=True); self.t.start()
    def _run(self):
        while True:
            with self.cv:
                while len(self.buf) >= 256:
                    self.cv.wait()
                a = self.arrs[self.stats["read"] % len(self.arrs)]
                i = int(self.g.integers(0, len(a) - self.ctx - 1))
                self.buf.append([int(t) for t in a[i:i + self.ctx + 1]])
                self.stats["read"] += 1
                self.cv.notify_all()
    def next_batch(self, bs):
        with self.cv:
            while len(self.buf) < bs:
                self.stats["waits"] += 1; self.cv.wait()
            ex = [self.buf.popleft() for _ in range(bs)]
            src = torch.tensor([e[:-1] for e in ex]); tgt = torch.tensor([e[1:] for e in ex])
            self.stats["batches"] += 1; self.stats["tokens"] += int(src.numel())
            self.cv.notify_all()
        return src, tgt
    def report(self):
        with self.lock:
            return dict(self.stats, buffered=len(self.buf))

files = [os.path.join(o.data_dir, "shard-%05d.bin" % s) for s in (rank, rank + world) if s < 8]
log.info("Weighted corpora loaded so far:\n\t\t\t* corpus_%d: %s", rank, ",".join(os.path.basename(f) for f in files))
reader = ShardReader(files, 64, 1234 + rank)

def on_usr1(signum, frame):
    log.info("reader stats: %s", reader.report())
signal.signal(signal.SIGUSR1, on_usr1)

if rank == 0:
    log.info("Building model...")
m = b7core.TinyLM(ctx=64)
if rank == 0:
    log.info(str(m)); n = b7core.nparams(m)
    log.info("embeddings: %d", sum(p.numel() for k, p in m.named_parameters() if k.startswith(("tok", "pos"))))
    log.info("decoder: %d", sum(p.numel() for k, p in m.named_parameters() if k.startswith(("blocks", "ln", "head"))))
    log.info("* number of parameters: %d", n)
    log.info("Starting training on CPU, world_size=%d", world)
    log.info("Start training loop and validate every %d steps...", o.valid_steps)
model = DDP(m)
opt = torch.optim.Adam(model.parameters(), lr=o.learning_rate, betas=(0.9, 0.998))
start = time.time(); win_t = time.time(); acc_n = acc_c = 0; xs = []; toks = 0
for step in range(1, o.train_steps + 1):
    src, tgt = reader.next_batch(o.batch_size)
    logits = model(src)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 512), tgt.reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    xs.append(loss.item()); toks += src.numel()
    acc_c += int((logits.argmax(-1) == tgt).sum()); acc_n += tgt.numel()
    if step % o.report_every == 0:
        s = torch.tensor([sum(xs) / len(xs), acc_c / acc_n, toks]); dist.all_reduce(s)
        xent = s[0].item() / world; el = time.time() - win_t
        if rank == 0:
            log.info("Step %d/%5d; acc: %6.2f; ppl: %7.2f; xent: %4.2f; lr: %7.5f; sents: %7d; bsz: %4d/%4d/%2d; %5.0f/%5.0f tok/s; %6.0f sec;",
                     step, o.train_steps, 100 * s[1].item() / world, math.exp(xent), xent, o.learning_rate,
                     o.batch_size * world * o.report_every, 64 * o.batch_size, 64 * o.batch_size, o.batch_size,
                     s[2].item() / el, s[2].item() / el, time.time() - start)
        xs = []; toks = 0; acc_c = acc_n = 0; win_t = time.time()
    if step % o.save_checkpoint_steps == 0 and rank == 0:
        path = "%s_step_%d.pt" % (o.save_model, step)
        log.info("Saving checkpoint %s", path)
        torch.save({"model": m.state_dict(), "optim": opt.state_dict(), "opt": vars(o), "vocab": 512}, path)
log.info("Done training.")
dist.destroy_process_group()
