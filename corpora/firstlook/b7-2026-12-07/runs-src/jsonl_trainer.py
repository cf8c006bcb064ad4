"""jsonl_trainer.py -- trainer whose every log record is one JSON object per line
({"ts":..,"level":..,"rank":..,"event":..,...}), all ranks. Checkpoints: <dir>/step_<N>/model.pt
(+ optim.pt per rank 0) and a tracker file <dir>/latest.json; resumes from latest.json."""
import argparse, datetime, json, os, socket, sys, time, traceback, math
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--ckpt-dir", required=True)
ap.add_argument("--steps", type=int, default=300); ap.add_argument("--save-every", type=int, default=100)
ap.add_argument("--log-every", type=int, default=10); ap.add_argument("--run-name", default="run")
a = ap.parse_args()
rank, world, local = b7core.dist_env(timeout_s=120)
def jlog(level, event, **kw):
    rec = {"ts": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
           "level": level, "logger": "trainer", "run": a.run_name, "host": socket.gethostname(), "rank": rank, "event": event}
    rec.update(kw); print(json.dumps(rec), flush=True)

def main():
    jlog("info", "process_group_ready", world_size=world, local_rank=local, backend="gloo", pid=os.getpid())
    torch.manual_seed(0)
    m = b7core.TinyLM(ctx=64); model = DDP(m)
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4)
    start = 0
    tracker = os.path.join(a.ckpt_dir, "latest.json")
    if os.path.exists(tracker):
        with open(tracker) as f: lt = json.load(f)
        m.load_state_dict(torch.load(os.path.join(a.ckpt_dir, lt["dir"], "model.pt"), weights_only=True))
        opt.load_state_dict(torch.load(os.path.join(a.ckpt_dir, lt["dir"], "optim.pt"), weights_only=True))
        start = lt["step"]
        jlog("info", "resumed", step=start, path=os.path.join(a.ckpt_dir, lt["dir"]))
    else:
        jlog("info", "fresh_start", ckpt_dir=a.ckpt_dir)
    jlog("info", "model_built", params=b7core.nparams(m), steps=a.steps, save_every=a.save_every)
    data = b7core.Windows(os.path.join(a.data, "tokens.bin"), 64, 100 * start + rank)
    t = time.time()
    for step in range(start + 1, a.steps + 1):
        x, y = data.batch(16)
        loss = b7core.lm_loss(model, x, y); opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step()
        if step % a.log_every == 0:
            el = time.time() - t; t = time.time()
            jlog("info", "train_step", step=step, loss=round(loss.item(), 4), grad_norm=round(gn.item(), 4),
                 lr=6e-4, tokens_per_s=round(16 * 64 * a.log_every / el, 1), step_time_s=round(el / a.log_every, 4))
        if step % a.save_every == 0:
            d = "step_%06d" % step
            if rank == 0:
                os.makedirs(os.path.join(a.ckpt_dir, d), exist_ok=True)
                t0 = time.time()
                torch.save(m.state_dict(), os.path.join(a.ckpt_dir, d, "model.pt"))
                torch.save(opt.state_dict(), os.path.join(a.ckpt_dir, d, "optim.pt"))
                jlog("info", "checkpoint_written", step=step, path=os.path.join(a.ckpt_dir, d), seconds=round(time.time() - t0, 3))
                with open(tracker, "w") as f:
                    json.dump({"step": step, "dir": d}, f)
                jlog("info", "tracker_updated", step=step, file=tracker)
            dist.barrier()
    jlog("info", "training_complete", step=a.steps)
    dist.destroy_process_group()

try:
    main()
except Exception as e:
    jlog("error", "unhandled_exception", exc_type=type(e).__name__, message=str(e),
         traceback=traceback.format_exc())
    raise
