#!/usr/bin/env python3
"""Classifier trainer printing like a PyTorch-Ignite example: ignite.* logger lines, the
"Epoch[e] Iteration[i/n] Loss: x" progress prints, Training/Validation Results summaries
and ModelCheckpoint-style checkpoint_<iter>.pt files (n_saved=2)."""
import argparse, logging, os, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def hms(s): return time.strftime("%H:%M:%S", time.gmtime(s)) + ".%03d" % int((s % 1) * 1000)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data"); ap.add_argument("--output-path"); ap.add_argument("--num-epochs", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=32); ap.add_argument("--log-interval", type=int, default=40)
    a = ap.parse_args()
    rank, world, local = C.env_ranks()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    C.setup()
    if rank == 0:
        lp = logging.getLogger("ignite.distributed.launcher.Parallel")
        lp.info("Initialized processing group with backend: 'gloo'"); lp.info("- Run '<function training at 0x7f3a2c1b5e40>' in %d processes", world)
    le = logging.getLogger("ignite.engine.engine.Engine")
    model = DDP(C.MLP(hidden=512)); opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    ds = C.ShardSet(a.data); vds = C.ShardSet(a.data, "val"); sam = DistributedSampler(ds, seed=17)
    dl = DataLoader(ds, batch_size=a.batch_size, sampler=sam, drop_last=True)
    vdl = DataLoader(vds, batch_size=256, sampler=DistributedSampler(vds, shuffle=False))
    n = len(dl); it = 0; saved = []
    if rank == 0: le.info("Engine run starting with max_epochs=%d.", a.num_epochs)
    t_run = time.time()
    for ep in range(1, a.num_epochs + 1):
        sam.set_epoch(ep); te = time.time()
        for i, (x, y) in enumerate(dl, 1):
            loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step(); it += 1
            if i % a.log_interval == 0 and rank == 0:
                print("Epoch[%d] Iteration[%d/%d] Loss: %.2f" % (ep, i, n, loss.item()), flush=True)
        if rank == 0: le.info("Epoch[%d] Complete. Time taken: %s", ep, hms(time.time() - te))
        vl, va = C.evaluate(model, vdl)
        if rank == 0:
            print("Validation Results - Epoch: %d  Avg accuracy: %.2f Avg loss: %.2f" % (ep, va, vl), flush=True)
            os.makedirs(a.output_path, exist_ok=True); p = os.path.join(a.output_path, "checkpoint_%d.pt" % it)
            torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "trainer": {"epoch": ep, "iteration": it}}, p)
            saved.append(p)
            if len(saved) > 2: os.remove(saved.pop(0))
        dist.barrier()
    if rank == 0: le.info("Engine run complete. Time taken: %s", hms(time.time() - t_run))
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
