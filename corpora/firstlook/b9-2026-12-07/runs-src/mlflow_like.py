#!/usr/bin/env python3
"""Classifier trainer that logs metrics the way an MLflow-tracked script prints them to
the console: mlflow-style logger lines plus "metric step=.. key=.. value=.." records
from rank 0; per-rank step-time summary every 200 steps."""
import argparse, logging, os, time, uuid
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data"); ap.add_argument("--artifact-dir"); ap.add_argument("--max-steps", type=int, default=3000)
    ap.add_argument("--log-every", type=int, default=50); ap.add_argument("--ckpt-every", type=int, default=1000)
    ap.add_argument("--experiment", default="mlp-cls")
    a = ap.parse_args()
    rank, world, local = C.setup(timeout_s=300)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%Y/%m/%d %H:%M:%S")
    log = logging.getLogger("mlflow.tracking.fluent")
    run_id = uuid.UUID(int=0x9b9 << 64 | int(os.environ.get("TORCHELASTIC_RUN_ID", "0").encode().hex()[-8:] or "0", 16)).hex
    if rank == 0:
        log.info("Experiment with name '%s' does not exist. Creating a new experiment.", a.experiment)
        log.info("Started run %s (experiment_id=1)", run_id)
        for k, v in {"hidden": 512, "depth": 3, "lr": 1e-3, "batch_size": 64, "world_size": world, "max_steps": a.max_steps}.items():
            print("param key=%s value=%s" % (k, v))
    model = DDP(C.MLP(hidden=512)); opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    ds = C.ShardSet(a.data); sam = DistributedSampler(ds, seed=3)
    dl = DataLoader(ds, batch_size=64, sampler=sam, drop_last=True)
    step, ep, tw = 0, 0, time.time(); st = []
    while step < a.max_steps:
        sam.set_epoch(ep)
        for x, y in dl:
            t0 = time.time()
            loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
            st.append(time.time() - t0); step += 1
            if step % a.log_every == 0:
                l = C.allreduce_mean(loss.item())
                if rank == 0:
                    ts = int(time.time() * 1000)
                    print("metric step=%d key=train_loss value=%.6f timestamp=%d" % (step, l, ts))
                    print("metric step=%d key=samples_per_sec value=%.1f timestamp=%d" % (step, a.log_every * 64 * world / (time.time() - tw), ts))
                tw = time.time()
            if step % 200 == 0:
                s = sorted(st); print("[rank %d] step %d step_time p50=%.1fms p90=%.1fms max=%.1fms" % (rank, step, 1e3 * s[len(s) // 2], 1e3 * s[int(len(s) * .9)], 1e3 * s[-1])); st = []
            if step % a.ckpt_every == 0 and rank == 0:
                os.makedirs(a.artifact_dir, exist_ok=True); p = os.path.join(a.artifact_dir, "model-step%d.pt" % step)
                torch.save({"step": step, "model": model.module.state_dict()}, p)
                log.info("Logged artifact %s to run %s", p, run_id)
            if step >= a.max_steps: break
        ep += 1
    if rank == 0:
        log.info("Run %s finished with status FINISHED", run_id)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
