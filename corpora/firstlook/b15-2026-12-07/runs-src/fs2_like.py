# fairseq2-like LM pretraining recipe (b15 trainer A). Knows nothing about injected faults.
import os, sys, time, logging, math
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
import b15common as c

rank, world, local_rank = c.setup()
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
    format=f"[Rank {rank}] %(asctime)s %(levelname)s %(name)s - %(message)s")
log = logging.getLogger("fairseq2.recipes.lm.train")
tlog = logging.getLogger("fairseq2.recipes.trainer")
clog = logging.getLogger("fairseq2.checkpoint")

DATA = os.environ["DATA_DIR"]; CKPT = os.environ.get("CKPT_DIR", "")
STEPS = c.env_int("STEPS", 200); BS = c.env_int("BATCH", 16); NW = c.env_int("NUM_WORKERS", 1)
LOG_EVERY = c.env_int("LOG_EVERY", 10); SAVE_EVERY = c.env_int("SAVE_EVERY", 50)
VAL_EVERY = c.env_int("VAL_EVERY", 100); SLEEP = c.env_float("STEP_SLEEP", 0.0)

log.info("Running training on %d device(s).", world)
log.info("Host: %s | Local Rank: %d | Data: %s", os.uname().nodename, local_rank, DATA)
ds = c.ShardTokens(DATA, "train")
log.info("Dataset 'train' loaded. Number of sequences: %d", len(ds))
sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=2)
dl = DataLoader(ds, batch_size=BS, sampler=sampler, num_workers=NW, persistent_workers=NW > 0)
model = c.TinyLM()
n_params = sum(p.numel() for p in model.parameters())
log.info("Model 'tiny_lm' initialized. Parameters: %d", n_params)
ddp = DDP(model)
opt = torch.optim.AdamW(ddp.parameters(), lr=3e-4, weight_decay=0.1)
step = 0
ck = os.path.join(CKPT, f"step_last.rank{rank}.pt") if CKPT else ""
if ck and os.path.exists(ck):
    clog.info("Restoring training from the last checkpoint at %s.", ck)
    step = c.load_ckpt(ck, model, opt)
    clog.info("Training restored. Resuming from step %d.", step)
else:
    log.info("No checkpoint found. Starting training from scratch.")
log.info("Training started.")
t0 = time.time(); elems = 0; tstart = time.time(); epoch = 0
def val():
    vds = c.ShardTokens(DATA, "valid")
    vdl = DataLoader(vds, batch_size=32, sampler=DistributedSampler(vds, world, rank, shuffle=False))
    ddp.eval(); tot = torch.zeros(2)
    with torch.no_grad():
        for x, y in vdl:
            out = ddp(x); tot[0] += F.cross_entropy(out.reshape(-1, out.size(-1)), y.reshape(-1), reduction="sum"); tot[1] += y.numel()
    dist.all_reduce(tot); ddp.train()
    l = (tot[0] / tot[1]).item()
    tlog.info("Validation Metrics (step %d) - NLL Loss: %.3f | Perplexity: %.2f | Elements: %d", step, l, math.exp(l), int(tot[1]))
while step < STEPS:
    sampler.set_epoch(epoch); epoch += 1
    for x, y in dl:
        out = ddp(x)
        loss = F.cross_entropy(out.reshape(-1, out.size(-1)), y.reshape(-1))
        opt.zero_grad(set_to_none=True); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), 1.0)
        opt.step(); step += 1; elems += y.numel()
        if SLEEP: time.sleep(SLEEP)
        if step % LOG_EVERY == 0:
            lt = loss.detach().clone(); dist.all_reduce(lt); lt /= world
            dt = time.time() - t0
            tlog.info("Train Metrics (step %d) - NLL Loss: %.3f | Gradient Norm: %.3f | Elements per Second: %.1f | Learning Rate: %.2e | Wall Time: %ds",
                      step, lt.item(), gn.item(), elems / dt, opt.param_groups[0]["lr"], int(time.time() - tstart))
            t0 = time.time(); elems = 0
        if ck and step % SAVE_EVERY == 0:
            clog.info("Saving checkpoint to %s (step %d).", ck, step)
            c.save_ckpt(ck, model, opt, step)
            dist.barrier()
            clog.info("Checkpoint saved.")
        if step % VAL_EVERY == 0:
            val()
        if step >= STEPS: break
log.info("Training finished at step %d. Elapsed Time: %ds", step, int(time.time() - tstart))
dist.barrier()
dist.destroy_process_group()
