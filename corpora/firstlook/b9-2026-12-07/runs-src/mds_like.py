#!/usr/bin/env python3
"""MLP training loop printing like Megatron-DeepSpeed: DeepSpeed log_dist lines
("[ts] [INFO] [logging.py:NN:log_dist] [Rank 0] ..."), Megatron iteration lines, checkpoint
save/load messages; resumes from <save>/latest on (re)start."""
import argparse, datetime, inspect, os, time
import torch, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler
import b9core as C

def log_dist(msg, ranks=(0,), level="INFO"):
    r = dist.get_rank() if dist.is_initialized() else 0
    if r in ranks:
        t = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        print("[%s] [%s] [logging.py:96:log_dist] [Rank %d] %s" % (t, level, r, msg), flush=True)

def print_rank_0(msg):
    if dist.get_rank() == 0: print(msg, flush=True)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-iters", type=int, default=1200); ap.add_argument("--micro-batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1.5e-4); ap.add_argument("--log-interval", type=int, default=20)
    ap.add_argument("--save-interval", type=int, default=100); ap.add_argument("--save"); ap.add_argument("--load")
    ap.add_argument("--data-path")
    a = ap.parse_args()
    rank, world, local = C.setup()
    print_rank_0("using world size: %d, data-parallel-size: %d, tensor-model-parallel size: 1, pipeline-model-parallel size: 1 " % (world, world))
    print_rank_0("> initialized torch distributed with backend gloo, restart count %s" % os.environ.get("TORCHELASTIC_RESTART_COUNT"))
    log_dist("DeepSpeed info: version=0.14.5+mds, git-hash=unknown, git-branch=unknown")
    model = C.MLP(hidden=512, depth=4)
    print_rank_0(" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % C.nparams(model))
    model = DDP(model); opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.95))
    log_dist("Using client Optimizer as basic optimizer"); log_dist("DeepSpeed Basic Optimizer = AdamW")
    it = 0; lf = os.path.join(a.load, "latest")
    if os.path.exists(lf):
        it = int(open(lf).read()); p = os.path.join(a.load, "global_step%d" % it, "mp_rank_00_model_states.pt")
        log_dist("Loading checkpoint: %s" % p, ranks=range(world))
        sd = torch.load(p, map_location="cpu"); model.module.load_state_dict(sd["module"]); opt.load_state_dict(sd["optimizer"])
        print_rank_0("  successfully loaded checkpoint from %s at iteration %d" % (a.load, it))
    else:
        print_rank_0("WARNING: could not find the metadata file %s " % lf)
        print_rank_0("    will not load any checkpoints and will start from random")
    ds = C.ShardSet(a.data_path); sam = DistributedSampler(ds, seed=1234)
    dl = DataLoader(ds, batch_size=a.micro_batch_size, sampler=sam, drop_last=True)
    gbs = a.micro_batch_size * world
    print_rank_0("training ...")
    ep = it * a.micro_batch_size // len(dl) if len(dl) else 0
    t0 = time.time(); la = 0.0
    while it < a.train_iters:
        sam.set_epoch(ep); ep += 1
        for x, y in dl:
            loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward()
            gn = C.grad_norm(model); opt.step(); it += 1; la += loss.item()
            if it % 10 == 0:
                log_dist("step=%d, skipped=0, lr=[%.8f], mom=[(0.9, 0.95)]" % (it, a.lr))
            if it % a.log_interval == 0:
                el = (time.time() - t0) * 1000 / a.log_interval; t0 = time.time()
                l = C.allreduce_mean(la / a.log_interval); la = 0.0
                print_rank_0(" iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: %.3E | global batch size: %5d | lm loss: %.6E | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |" % (it, a.train_iters, it * gbs, el, a.lr, gbs, l, gn))
            if it % a.save_interval == 0:
                print_rank_0("saving checkpoint at iteration %7d to %s" % (it, a.save))
                d = os.path.join(a.save, "global_step%d" % it)
                if rank == 0:
                    os.makedirs(d, exist_ok=True)
                    torch.save({"module": model.module.state_dict(), "optimizer": opt.state_dict(), "iteration": it}, os.path.join(d, "mp_rank_00_model_states.pt"))
                    log_dist("Saving model checkpoint: %s" % os.path.join(d, "mp_rank_00_model_states.pt"))
                    with open(lf + ".tmp", "w") as f: f.write(str(it))
                    os.replace(lf + ".tmp", lf)
                dist.barrier()
                print_rank_0("  successfully saved checkpoint at iteration %7d to %s" % (it, a.save))
            if it >= a.train_iters: break
    print_rank_0("[after training is done] datetime: %s " % datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"))
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
