"""Megatron-DeepSpeed-like GPT pretraining loop; iteration table without timestamps (printed by the last rank)."""
import argparse, os, sys, time
import numpy as np, torch, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--data-path", required=True); p.add_argument("--train-iters", type=int, default=200)
p.add_argument("--micro-batch-size", type=int, default=4); p.add_argument("--seq-length", type=int, default=64)
p.add_argument("--log-interval", type=int, default=5); p.add_argument("--lr", type=float, default=1.5e-4)
p.add_argument("--pace", type=float, default=0.25)
a = p.parse_args()
rank, world, local = C.init_dist()
def print_rank_0(m):
    if rank == 0: print(m, flush=True)
def print_rank_last(m):
    if rank == world - 1: print(m, flush=True)
print_rank_0("using world size: {}, data-parallel-size: {}, tensor-model-parallel size: 1, pipeline-model-parallel size: 1 ".format(world, world))
print_rank_0("------------------------ arguments ------------------------")
for k, v in sorted(vars(a).items()):
    print_rank_0("  {} {} {}".format(k, "." * (48 - len(k)), v))
print_rank_0("-------------------- end of arguments ---------------------")
print_rank_0("> initializing torch distributed ...")
print_rank_0("> setting random seeds to 1234 ...")
torch.manual_seed(1234)
print_rank_0("building GPT model ...")
model = C.TinyGPT(vocab=512, d=128, n_layer=2, n_head=4, block=a.seq_length)
print(" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): {}".format(sum(p.numel() for p in model.parameters())) if local == 0 else "", end="\n" if local == 0 else "", flush=True)
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
print_rank_0("> learning rate decay style: linear warmup 20 iters")
files = C.shard_paths(a.data_path)
print_rank_0(" > building train, validation, and test datasets ...")
print_rank_0("    train:      {} shards".format(len(files)))
print_rank_0("> finished creating GPT datasets ...")
print_rank_0("training ...")
rng = np.random.default_rng(rank)
gbs = a.micro_batch_size * world
consumed = 0
t_last = time.time()
acc_loss = 0.0
for it in range(1, a.train_iters + 1):
    arr = np.load(files[rng.integers(len(files))])
    x = torch.from_numpy(arr[rng.integers(0, len(arr), a.micro_batch_size)])
    loss = F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
    opt.zero_grad(); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); sched.step()
    time.sleep(a.pace)
    lt = loss.detach().clone(); dist.all_reduce(lt); acc_loss += lt.item() / world
    consumed += gbs
    if it % a.log_interval == 0:
        el = (time.time() - t_last) * 1000 / a.log_interval; t_last = time.time()
        s = " iteration {:8d}/{:8d} |".format(it, a.train_iters)
        s += " consumed samples: {:12d} |".format(consumed)
        s += " consumed tokens: {:12d} |".format(consumed * a.seq_length)
        s += " elapsed time per iteration (ms): {:.1f} |".format(el)
        s += " learning rate: {:.3E} |".format(sched.get_last_lr()[0])
        s += " global batch size: {:5d} |".format(gbs)
        s += " lm loss: {:.6E} |".format(acc_loss / a.log_interval)
        s += " loss scale: 1.0 |"
        s += " grad norm: {:.3f} |".format(gn.item())
        s += " number of skipped iterations: {:3d} |".format(0)
        s += " number of nan iterations: {:3d} |".format(0)
        s += " samples per second: {:.3f} |".format(gbs / (el / 1000))
        print_rank_last(s)
        acc_loss = 0.0
print_rank_0("[after training is done]")
dist.destroy_process_group()
