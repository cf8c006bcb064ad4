#!/usr/bin/env python3
"""Classifier trainer with Hydra's job-logging format
("[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"); every rank writes its own
<run_dir>/rank{N}.log (rank 0 also to the console)."""
import argparse, logging, os, socket, sys, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    cfg = {"data.root": None, "run_dir": None, "trainer.max_steps": 1500, "trainer.val_every": 250, "optim.lr": 1e-3, "data.batch_size": 48, "model.hidden": 512}
    for o in a.overrides:
        k, v = o.split("=", 1); cfg[k] = type(cfg[k])(v) if cfg.get(k) is not None else v
    rank, world, local = C.env_ranks()
    os.makedirs(cfg["run_dir"], exist_ok=True)
    fmt = logging.Formatter("[%(asctime)s][%(name)s][%(levelname)s] - %(message)s")
    root = logging.getLogger(); root.setLevel(logging.INFO)
    fh = logging.FileHandler(os.path.join(cfg["run_dir"], "rank%d.log" % rank)); fh.setFormatter(fmt); root.addHandler(fh)
    if rank == 0:
        sh = logging.StreamHandler(sys.stdout); sh.setFormatter(fmt); root.addHandler(sh)
    log = logging.getLogger("__main__")
    log.info("host=%s rank=%d local_rank=%d world_size=%d master=%s:%s", socket.gethostname(), rank, local, world, os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"))
    log.info("config:\n%s", "\n".join("  %s: %s" % kv for kv in cfg.items()))
    log.info("initializing process group (backend=gloo)")
    C.setup()
    log.info("process group ready")
    model = DDP(C.MLP(hidden=cfg["model.hidden"])); opt = torch.optim.Adam(model.parameters(), lr=cfg["optim.lr"])
    ds = C.ShardSet(cfg["data.root"]); vds = C.ShardSet(cfg["data.root"], "val")
    sam = DistributedSampler(ds, seed=5); dl = DataLoader(ds, batch_size=cfg["data.batch_size"], sampler=sam, drop_last=True)
    vdl = DataLoader(vds, batch_size=256, sampler=DistributedSampler(vds, shuffle=False))
    step, ep = 0, 0; t0 = time.time()
    while step < cfg["trainer.max_steps"]:
        sam.set_epoch(ep); ep += 1
        for x, y in dl:
            loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step(); step += 1
            if step % 50 == 0:
                log.info("step %d/%d epoch %d loss %.4f (%.1f steps/s)", step, cfg["trainer.max_steps"], ep, loss.item(), 50 / (time.time() - t0)); t0 = time.time()
            if step % cfg["trainer.val_every"] == 0:
                vl, va = C.evaluate(model, vdl); log.info("val step %d: loss=%.4f acc=%.4f", step, vl, va)
                if rank == 0:
                    torch.save({"step": step, "model": model.module.state_dict(), "optim": opt.state_dict()}, os.path.join(cfg["run_dir"], "last.ckpt"))
                    log.info("checkpoint saved: %s", os.path.join(cfg["run_dir"], "last.ckpt"))
            if step >= cfg["trainer.max_steps"]: break
    log.info("done")
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
