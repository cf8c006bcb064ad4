#!/usr/bin/env python3
"""Classifier trainer with Sockeye-3's console format
("[%(asctime)s:%(levelname)s:%(name)s:%(funcName)s] %(message)s"), batch speed lines,
checkpoint summaries and params.NNNNN files written by the primary worker."""
import argparse, logging, math, os, socket, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prepared-data"); ap.add_argument("--output"); ap.add_argument("--max-updates", type=int, default=1500)
    ap.add_argument("--checkpoint-interval", type=int, default=300); ap.add_argument("--batch-size", type=int, default=48)
    ap.add_argument("--dist", action="store_true")
    a = ap.parse_args()
    rank, world, local = C.env_ranks()
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING,
                        format="[%(asctime)s:%(levelname)s:%(name)s:%(funcName)s] %(message)s", datefmt="%Y-%m-%d:%H:%M:%S")
    lu = logging.getLogger("sockeye.utils"); lt = logging.getLogger("sockeye.training"); lm = logging.getLogger("sockeye.train")
    lu.info("Sockeye: version 3.1.34, commit 0000000, path /work/staging/b9/runs-src/sockeye_like.py")
    lu.info("PyTorch: version %s (%s)", torch.__version__, os.path.dirname(torch.__file__))
    lu.info("Command: %s", " ".join(["sockeye-train"] + __import__("sys").argv[1:]))
    C.setup()
    lm.info("Distributed training: world size %d, backend %s, host %s", world, dist.get_backend(), socket.gethostname())
    model = C.MLP(hidden=448)
    lm.info("# of parameters: %d | trainable: %d (100.00%%) | shared: 0 (0.00%%) | fixed: 0 (0.00%%)", C.nparams(model), C.nparams(model))
    model = DDP(model); opt = torch.optim.Adam(model.parameters(), lr=2e-4, betas=(0.9, 0.98))
    ds = C.ShardSet(a.prepared_data); vds = C.ShardSet(a.prepared_data, "val")
    sam = DistributedSampler(ds, seed=1); dl = DataLoader(ds, batch_size=a.batch_size, sampler=sam, drop_last=True)
    vdl = DataLoader(vds, batch_size=256, sampler=DistributedSampler(vds, shuffle=False))
    upd, ep, ck, best = 0, 0, 0, (None, float("inf"))
    tc = time.time(); tb = time.time(); cl, cn = 0.0, 0
    while upd < a.max_updates:
        sam.set_epoch(ep)
        for b, (x, y) in enumerate(dl):
            loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step(); upd += 1
            cl += loss.item(); cn += 1
            if upd % 50 == 0:
                sp = 50 * a.batch_size * world / (time.time() - tb); tb = time.time()
                lt.info("Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec %.2f tokens/sec %.2f updates/sec\tperplexity=%.6f", ep, b + 1, sp, sp * 64, sp / a.batch_size / world, math.exp(cl / cn))
            if upd % a.checkpoint_interval == 0:
                ck += 1; vl, va = C.evaluate(model, vdl); tl = C.allreduce_mean(cl / cn)
                lt.info("Checkpoint [%d]\tUpdates=%d Epoch=%d Samples=%d Time-cost=%.3f Updates/sec=%.3f", ck, upd, ep, upd * a.batch_size * world, time.time() - tc, a.checkpoint_interval / (time.time() - tc))
                lt.info("Checkpoint [%d]\tTrain-perplexity=%.6f", ck, math.exp(tl))
                lt.info("Checkpoint [%d]\tValidation-perplexity=%.6f\tValidation-accuracy=%.6f", ck, math.exp(vl), va)
                if rank == 0:
                    os.makedirs(a.output, exist_ok=True); p = os.path.join(a.output, "params.%05d" % ck)
                    torch.save(model.module.state_dict(), p); lt.info("Saved params/optimizer to '%s'", p)
                if vl < best[1]: best = (ck, vl); lt.info("New best validation result: perplexity=%.6f", math.exp(vl))
                tc = time.time(); cl, cn = 0.0, 0
            if upd >= a.max_updates:
                lt.info("Maximum # of updates (%d) reached.", a.max_updates); break
        ep += 1
    lt.info("Training finished. Best checkpoint: %d. Best validation perplexity: %.6f", best[0], math.exp(best[1]))
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
