#!/usr/bin/env python3
"""Classifier trainer with ESPnet's log format ("%(asctime)s (%(module)s:%(lineno)d)
%(levelname)s: %(message)s"), per-100-batch training reports, epoch summaries, and
--resume from <output_dir>/checkpoint.pth."""
import argparse, logging, os, socket, time
import yaml
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config"); ap.add_argument("--output_dir"); ap.add_argument("--train_data_path")
    ap.add_argument("--resume", default="false"); ap.add_argument("--log_interval", type=int, default=40)
    a = ap.parse_args()
    rank, world, local = C.env_ranks()
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING,
                        format=f"[{socket.gethostname()}] %(asctime)s (%(module)s:%(lineno)d) %(levelname)s: %(message)s")
    C.setup()
    cfg = yaml.safe_load(open(a.config))
    logging.info("pytorch.version=%s, cuda.available=%s, cudnn.version=None, cudnn.benchmark=False", torch.__version__, torch.cuda.is_available())
    logging.info("Config: %s", cfg)
    model = C.MLP(hidden=cfg["model_conf"]["hidden"], depth=cfg["model_conf"]["depth"])
    logging.info("Model structure:\n%s\n\nModel summary:\n    Class Name: MLP\n    Total Number of model parameters: %.2f K\n    Number of trainable parameters: %.2f K", model, C.nparams(model) / 1e3, C.nparams(model) / 1e3)
    opt = torch.optim.Adam(model.parameters(), **cfg["optim_conf"])
    logging.info("Optimizer:\n%s", opt)
    start = 1
    ck = os.path.join(a.output_dir, "checkpoint.pth")
    if a.resume == "true" and os.path.exists(ck):
        states = torch.load(ck, map_location="cpu")
        model.load_state_dict(states["model"]); opt.load_state_dict(states["optimizers"][0])
        start = states["epoch"] + 1
        logging.info("The training was resumed using %s", ck)
    model = DDP(model)
    ds = C.ShardSet(a.train_data_path); vds = C.ShardSet(a.train_data_path, "val")
    sam = DistributedSampler(ds, seed=0)
    dl = DataLoader(ds, batch_size=cfg["batch_size"], sampler=sam, drop_last=True)
    vdl = DataLoader(vds, batch_size=200, sampler=DistributedSampler(vds, shuffle=False))
    for ep in range(start, cfg["max_epoch"] + 1):
        logging.info("%d/%depoch started", ep, cfg["max_epoch"])
        sam.set_epoch(ep); t0 = time.time(); acc = {"iter_time": 0.0, "forward_time": 0.0, "loss": 0.0, "backward_time": 0.0, "optim_step_time": 0.0}
        tl = time.time(); tot_loss = 0.0; nb = 0
        for b, (x, y) in enumerate(dl, 1):
            t1 = time.time(); acc["iter_time"] += t1 - tl
            out = model(x); loss = F.cross_entropy(out, y); t2 = time.time(); acc["forward_time"] += t2 - t1
            opt.zero_grad(); loss.backward(); t3 = time.time(); acc["backward_time"] += t3 - t2
            opt.step(); t4 = time.time(); acc["optim_step_time"] += t4 - t3
            acc["loss"] += loss.item(); tot_loss += loss.item(); nb += 1; tl = time.time()
            if b % a.log_interval == 0:
                n = a.log_interval
                logging.info("%depoch:train:%d-%dbatch: iter_time=%.3e, forward_time=%.3f, loss=%.3f, backward_time=%.3f, optim_step_time=%.3f, optim0_lr0=%.3e, train_time=%.3f",
                             ep, b - n + 1, b, acc["iter_time"] / n, acc["forward_time"] / n, acc["loss"] / n, acc["backward_time"] / n, acc["optim_step_time"] / n, opt.param_groups[0]["lr"], (time.time() - t0) / b)
                acc = {k: 0.0 for k in acc}
        vl, va = C.evaluate(model, vdl)
        logging.info("%depoch results: [train] loss=%.3f, train_time=%.3f, time=%.2f seconds, total_count=%d, gpu_max_cached_mem_GB=0.0, [valid] loss=%.3f, acc=%.3f, time=%.2f seconds, total_count=%d",
                     ep, C.allreduce_mean(tot_loss / nb), (time.time() - t0) / nb, time.time() - t0, ep * nb, vl, va, 1.0, len(vds))
        if rank == 0:
            torch.save({"model": model.module.state_dict(), "optimizers": [opt.state_dict()], "epoch": ep}, ck)
            torch.save(model.module.state_dict(), os.path.join(a.output_dir, "%depoch.pth" % ep))
        dist.barrier()
        logging.info("The model files were stored in %s", os.path.join(a.output_dir, "%depoch.pth" % ep))
    logging.info("The training was finished at %d epochs ", cfg["max_epoch"])
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
