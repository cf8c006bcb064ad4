#!/usr/bin/env python3
"""CTR-style binary classifier (dense MLP over 64 features) with the log style of the
torchrec DLRM example: plain logging.basicConfig (INFO:root:...), per-batch auc/loss on
rank 0, DataLoader with worker processes."""
import argparse, logging, os, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def auroc(scores, labels):
    o = torch.argsort(scores); r = torch.empty_like(scores); r[o] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    npos = labels.sum(); nneg = len(labels) - npos
    if npos == 0 or nneg == 0: return float("nan")
    return ((r[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)).item()

class CTRSet(C.ShardSet):
    def __getitem__(s, i):
        return torch.from_numpy(s.x[i]), float(s.y[i] < 3)

def main():
    logging.basicConfig(level=logging.INFO)
    ap = argparse.ArgumentParser()
    ap.add_argument("--in_memory_binary_criteo_path"); ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch_size", type=int, default=64); ap.add_argument("--num_workers", type=int, default=2)
    ap.add_argument("--learning_rate", type=float, default=1e-3); ap.add_argument("--save_dir")
    ap.add_argument("--print_freq", type=int, default=20)
    a = ap.parse_args()
    rank, world, local = C.setup()
    logging.info("rank %d/%d (local %d) backend=%s", rank, world, local, dist.get_backend())
    model = C.MLP(hidden=512, ncls=1)
    if rank == 0:
        logging.info("dense arch: %s", model.body)
        logging.info("num params: %d", C.nparams(model))
    model = DDP(model)
    opt = torch.optim.Adagrad(model.parameters(), lr=a.learning_rate)
    ds = CTRSet(a.in_memory_binary_criteo_path); vds = CTRSet(a.in_memory_binary_criteo_path, "val")
    sampler = DistributedSampler(ds, seed=7)
    dl = DataLoader(ds, batch_size=a.batch_size, sampler=sampler, num_workers=a.num_workers, drop_last=True, persistent_workers=True)
    vdl = DataLoader(vds, batch_size=512, sampler=DistributedSampler(vds, shuffle=False), num_workers=0)
    for ep in range(a.epochs):
        sampler.set_epoch(ep); t0 = time.time(); scores, labels = [], []
        for b, (x, y) in enumerate(dl):
            logit = model(x).squeeze(-1)
            loss = F.binary_cross_entropy_with_logits(logit, y.float())
            opt.zero_grad(); loss.backward(); opt.step()
            scores.append(logit.detach()); labels.append(y)
            if b % a.print_freq == 0 and rank == 0:
                s = torch.cat(scores[-a.print_freq:]); l = torch.cat(labels[-a.print_freq:])
                logging.info("epoch %d batch %d auc %.4f loss %.4f it/s %.1f", ep, b, auroc(s, l), loss.item(), (b + 1) / (time.time() - t0))
        with torch.no_grad():
            model.eval(); vs, vl = [], []
            for x, y in vdl: vs.append(model(x).squeeze(-1)); vl.append(y)
            model.train()
        auc = torch.tensor([auroc(torch.cat(vs), torch.cat(vl))]); dist.all_reduce(auc)
        if rank == 0:
            logging.info("epoch %d validation auc %.4f (%.1fs)", ep, auc.item() / world, time.time() - t0)
            os.makedirs(a.save_dir, exist_ok=True)
            torch.save({"epoch": ep, "model": model.module.state_dict(), "optim": opt.state_dict()}, os.path.join(a.save_dir, "dlrm_dense_ep%d.pt" % ep))
            logging.info("saved %s", os.path.join(a.save_dir, "dlrm_dense_ep%d.pt" % ep))
        dist.barrier()
    logging.info("training finished")
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
