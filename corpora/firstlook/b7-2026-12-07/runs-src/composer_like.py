"""composer_like.py -- trainer logging like MosaicML Composer's ConsoleLogger
('[batch=50/600]:' followed by tab-indented metric lines), rank 0 only. Every
--eval-interval batches each rank scores its own held-out shard, then the ranks meet
in a monitored barrier before training resumes."""
import argparse, datetime, os, sys, time, math, socket
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--save-folder", required=True)
ap.add_argument("--max-duration", default="600ba"); ap.add_argument("--eval-interval", type=int, default=150)
ap.add_argument("--eval-batches", type=int, default=100); ap.add_argument("--log-interval", type=int, default=25)
ap.add_argument("--barrier-timeout", type=int, default=30); ap.add_argument("--mbs", type=int, default=16)
a = ap.parse_args()
rank, world, local = b7core.dist_env(timeout_s=300)
max_ba = int(a.max_duration.rstrip("ba"))
def r0(*s):
    if rank == 0: print(*s, flush=True)
r0("*" * 30 + "\nConfig:\ncomposer_commit_hash: None\ncomposer_version: 0.28.0\nnode_name: {}\nnum_gpus_per_node: 1\nnum_nodes: {}\nrank_zero_seed: 17\n".format(
    os.environ.get("NODENAME", "unknown because NODENAME environment variable not set"), world) + "*" * 30)
torch.manual_seed(17)
m = b7core.TinyLM(ctx=64); model = DDP(m)
opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=1e-5)
train = b7core.Windows(os.path.join(a.data, "tokens.bin"), 64, 17 + rank)
held = b7core.Windows(os.path.join(a.data, "shard-%05d.bin" % (7 - rank)), 64, 5)
r0("Stepping schedulers every batch. To step schedulers every epoch, set `step_schedulers_every_batch=False`.")
t0 = time.time(); tl = time.time(); losses = []; seen = 0
for ba in range(1, max_ba + 1):
    x, y = train.batch(a.mbs)
    lr = 5e-4 * min(1.0, ba / 50) * 0.5 * (1 + math.cos(math.pi * ba / max_ba))
    for g in opt.param_groups: g["lr"] = lr
    loss = b7core.lm_loss(model, x, y); opt.zero_grad(); loss.backward(); opt.step()
    losses.append(loss.item()); seen += a.mbs * world
    if ba % a.log_interval == 0:
        t = torch.tensor([sum(losses) / len(losses)]); dist.all_reduce(t); l = t.item() / world
        el = time.time() - tl
        r0("[batch={}/{}]:\n\t Time/batch: {}\n\t Time/sample: {}\n\t Time/batch_in_epoch: {}\n\t Time/sample_in_epoch: {}\n\t Time/token: {}\n\t Time/token_in_epoch: {}\n\t Trainer/device_train_microbatch_size: {}\n\t loss/train/total: {:.4f}\n\t metrics/train/LanguageCrossEntropy: {:.4f}\n\t metrics/train/LanguagePerplexity: {:.4f}\n\t throughput/batches_per_sec: {:.4f}\n\t throughput/samples_per_sec: {:.4f}\n\t time/train: {:.4f}\n\t time/val: 0.0000\n\t time/total: {:.4f}\n\t lr-DecoupledAdamW/group0: {:.4e}".format(
            ba, max_ba, ba - 1, seen - a.mbs * world, ba - 1, seen - a.mbs * world, (seen - a.mbs * world) * 64,
            (seen - a.mbs * world) * 64, a.mbs, l, l, math.exp(l), len(losses) / el, len(losses) * a.mbs * world / el,
            (time.time() - t0) / 3600, (time.time() - t0) / 3600, lr))
        losses = []; tl = time.time()
    if ba % a.eval_interval == 0:
        te = time.time(); m.eval(); s = 0.0
        with torch.no_grad():
            for _ in range(a.eval_batches):
                ex, ey = held.batch(32); s += b7core.lm_loss(m, ex, ey).item()
        m.train()
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=a.barrier_timeout), wait_all_ranks=True)
        t = torch.tensor([s / a.eval_batches]); dist.all_reduce(t); l = t.item() / world
        r0("[Eval batch={}/{}] Eval on eval data".format(a.eval_batches, a.eval_batches))
        r0("[eval batch={}/{}]:\n\t metrics/eval/LanguageCrossEntropy: {:.4f}\n\t metrics/eval/LanguagePerplexity: {:.4f}\n\t time/val: {:.4f}".format(
            ba, max_ba, l, math.exp(l), (time.time() - te) / 3600))
        if rank == 0:
            os.makedirs(a.save_folder, exist_ok=True)
            p = os.path.join(a.save_folder, "ep0-ba{}-rank0.pt".format(ba))
            torch.save({"state": {"model": m.state_dict(), "optimizers": {"DecoupledAdamW": opt.state_dict()}, "timestamp": {"batch": ba}}, "rng": []}, p)
            print("Saved checkpoint at {}".format(p), flush=True)
dist.destroy_process_group()
