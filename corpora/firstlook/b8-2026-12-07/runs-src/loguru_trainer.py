"""DDP trainer logging through loguru: a stderr sink plus a per-rank file sink and a
metrics.jsonl stream in --log-dir."""
import argparse, json, os, sys, time
import torch, torch.nn.functional as F
from loguru import logger
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--log-dir", required=True); ap.add_argument("--ckpt-dir", required=True)
ap.add_argument("--steps", type=int, default=1200); ap.add_argument("--bs", type=int, default=32); ap.add_argument("--lr", type=float, default=5e-4)
a = ap.parse_args()
rank, world, local = C.setup()
logger.remove()
logger.add(sys.stderr, level="INFO")
os.makedirs(a.log_dir, exist_ok=True)
logger.add(os.path.join(a.log_dir, "train_rank%d.log" % rank), level="DEBUG")
logger.info("rank {}/{} up (local {}), log dir {}", rank, world, local, a.log_dir)
tr = C.ShardData(a.data, rank, world, seed=11); va = C.ShardData(a.data, rank, world, split="val")
model = C.MLP(hidden=448); ddp = C.DDP(model); opt = torch.optim.AdamW(ddp.parameters(), lr=a.lr)
mf = open(os.path.join(a.log_dir, "metrics.jsonl"), "a") if rank == 0 else None
logger.info("model params={} train={} val={}", C.nparams(model), len(tr), len(va))
it = tr.forever(a.bs); t0 = time.time()
for step in range(1, a.steps + 1):
    x, y = next(it); out = ddp(x); loss = F.cross_entropy(out, y)
    opt.zero_grad(); loss.backward(); gn = C.grad_norm(ddp); opt.step()
    logger.debug("step={} loss={:.5f} acc={:.4f} grad_norm={:.4f} batch_mean={:.4f}", step, loss.item(), C.accuracy(out, y), gn, x.mean().item())
    if step % 20 == 0:
        l = C.allreduce_mean(loss.item()); dt = time.time() - t0; t0 = time.time()
        if rank == 0:
            logger.info("step {:>5}/{} | loss {:.4f} | gnorm {:.3f} | {:.1f} it/s", step, a.steps, l, gn, 20 / dt)
            mf.write(json.dumps({"step": step, "loss": round(l, 6), "grad_norm": round(gn, 5), "lr": a.lr, "time": time.time()}) + "\n"); mf.flush()
    if step % 300 == 0:
        vl, vacc = C.evaluate(ddp, va)
        if rank == 0:
            logger.success("eval @ {}: val_loss={:.4f} val_acc={:.4f}", step, vl, vacc)
            os.makedirs(a.ckpt_dir, exist_ok=True); torch.save({"step": step, "model": model.state_dict()}, os.path.join(a.ckpt_dir, "step_%d.pt" % step))
            logger.info("saved {}", os.path.join(a.ckpt_dir, "step_%d.pt" % step))
logger.info("finished {} steps", a.steps)
C.dist.destroy_process_group()
