"""Plain-logging DDP trainer (logging.Formatter '%(asctime)s %(levelname)s [%(process)d] %(name)s: %(message)s')."""
import argparse, logging, os, sys, time, socket
import torch, torch.nn.functional as F
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--out", required=True)
ap.add_argument("--steps", type=int, default=900); ap.add_argument("--bs", type=int, default=32)
ap.add_argument("--lr", type=float, default=1e-3); ap.add_argument("--log-every", type=int, default=25)
ap.add_argument("--ckpt-every", type=int, default=300)
a = ap.parse_args()
logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(levelname)s [%(process)d] %(name)s: %(message)s")
log = logging.getLogger("train")
log.info("starting on %s, RANK=%s LOCAL_RANK=%s WORLD_SIZE=%s MASTER_ADDR=%s MASTER_PORT=%s", socket.gethostname(),
         os.environ.get("RANK"), os.environ.get("LOCAL_RANK"), os.environ.get("WORLD_SIZE"), os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"))
rank, world, local = C.setup()
log.info("process group ready: backend=%s rank=%d/%d", C.dist.get_backend(), rank, world)
tr = C.ShardData(a.data, rank, world, seed=3); va = C.ShardData(a.data, rank, world, split="val")
log.info("data: %d train / %d val samples on this rank", len(tr), len(va))
model = C.MLP(hidden=512); ddp = C.DDP(model)
opt = torch.optim.Adam(ddp.parameters(), lr=a.lr)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.steps)
if rank == 0: log.info("model: %d parameters; optimizer Adam lr=%g; %d steps", C.nparams(model), a.lr, a.steps)
os.makedirs(a.out, exist_ok=True)
it = tr.forever(a.bs); t0 = time.time(); run = 0.0
for step in range(1, a.steps + 1):
    x, y = next(it); out = ddp(x); loss = F.cross_entropy(out, y)
    opt.zero_grad(); loss.backward(); gn = C.grad_norm(ddp); opt.step(); sched.step(); run += loss.item()
    if step % a.log_every == 0:
        l = C.allreduce_mean(run / a.log_every); run = 0.0; dt = time.time() - t0; t0 = time.time()
        if rank == 0:
            log.info("step %d/%d loss=%.4f lr=%.3e grad_norm=%.3f samples/s=%.0f", step, a.steps, l, sched.get_last_lr()[0], gn, a.log_every * a.bs * world / dt)
    if step % a.ckpt_every == 0:
        vl, vacc = C.evaluate(ddp, va)
        if rank == 0:
            log.info("eval step %d: val_loss=%.4f val_acc=%.4f", step, vl, vacc)
            p = os.path.join(a.out, "state_step%06d.pt" % step)
            log.info("writing checkpoint %s", p)
            torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, p)
            log.info("checkpoint written (%.1f MB)", os.path.getsize(p) / 1e6)
        C.dist.barrier()
if rank == 0: log.info("done: %d steps", a.steps)
C.dist.destroy_process_group()
