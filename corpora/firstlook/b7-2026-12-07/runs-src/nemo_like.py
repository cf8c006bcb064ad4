"""nemo_like.py -- epoch-based trainer printing NeMo-style '[NeMo I ...]' log lines and a
Lightning/tqdm progress bar on global rank 0 ('Epoch 0: 45%|####| 90/200 [..., reduced_train_loss=..]').
Each rank owns a fixed slice of the training samples; steps per epoch = slice / micro_batch_size."""
import argparse, datetime, os, sys, time, math, socket
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("--config-name", default="megatron_gpt_tiny"); ap.add_argument("overrides", nargs="*")
a = ap.parse_args()
cfg = {"trainer.max_epochs": "2", "model.micro_batch_size": "8", "model.data.data_prefix": "",
       "model.data.samples_per_rank": "1600", "exp_manager.exp_dir": "/tmp/nemo_exp", "model.optim.lr": "5e-4"}
for o in a.overrides:
    k, v = o.split("=", 1); cfg[k.lstrip("+")] = v
mbs = int(cfg["model.micro_batch_size"]); spr = int(cfg["model.data.samples_per_rank"])
rank, world, local = b7core.dist_env(timeout_s=120)
def nemo(level, where, msg):
    if rank == 0:
        print("[NeMo {} {} {}] {}".format(level, datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"), where, msg), flush=True)
nemo("I", "train_gpt_tiny:38", "\n\n************** Experiment configuration ***********")
nemo("I", "train_gpt_tiny:39", "\n" + "\n".join("{}: {}".format(k, v) for k, v in sorted(cfg.items())))
if rank == 0:
    print("GPU available: False, used: False\nTPU available: False, using: 0 TPU cores\nHPU available: False, using: 0 HPUs", flush=True)
nemo("I", "exp_manager:396", "Experiments will be logged at {}/megatron_gpt_tiny/2026-12-07_14-38".format(cfg["exp_manager.exp_dir"]))
nemo("W", "exp_manager:1008", "The checkpoint callback was told to monitor a validation value and trainer's max_steps was set to -1. Please ensure that max_steps will run for at least 1 epochs to ensure that checkpointing will not error out.")
print("Initializing distributed: GLOBAL_RANK: {}, MEMBER: {}/{} (host {})".format(rank, rank + 1, world, socket.gethostname()), flush=True)
torch.manual_seed(1234)
m = b7core.TinyLM(ctx=64); model = DDP(m)
opt = torch.optim.AdamW(model.parameters(), lr=float(cfg["model.optim.lr"]))
nemo("I", "megatron_gpt_model:1207", "Pipeline model parallel rank: 0, Tensor model parallel rank: 0, Number of model parameters on device: {:.2e}. Number of precise model parameters on device: {}.".format(b7core.nparams(m), b7core.nparams(m)))
data = np.memmap(os.path.join(cfg["model.data.data_prefix"], "tokens.bin"), dtype=np.uint16, mode="r")
idx = np.arange(rank * spr, (rank + 1) * spr) * 65
val = b7core.Windows(os.path.join(cfg["model.data.data_prefix"], "shard-00007.bin"), 64, 3)
steps = spr // mbs
nemo("I", "megatron_gpt_model:1436", "Setting up train dataloader with len(len(self._train_ds)): {} and consumed samples: 0".format(spr * world))
nemo("I", "data_samplers:76", "Instantiating MegatronPretrainingSampler with total_samples: {} and consumed_samples: 0".format(spr * world))
if rank == 0:
    print("\n  | Name  | Type     | Params\n-----------------------------------\n0 | model | GPTModel | {:.0f} K \n-----------------------------------\n{:.0f} K     Trainable params\n0         Non-trainable params\n{:.0f} K     Total params\n{:.3f}     Total estimated model params size (MB)".format(
        b7core.nparams(m) / 1e3, b7core.nparams(m) / 1e3, b7core.nparams(m) / 1e3, b7core.nparams(m) * 4 / 1e6), flush=True)
gstep = 0
for ep in range(int(cfg["trainer.max_epochs"])):
    order = np.random.default_rng(ep).permutation(idx)
    bar = tqdm(total=steps, desc="Epoch {}".format(ep), file=sys.stdout, disable=rank != 0, mininterval=0.5,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]")
    for s in range(steps):
        t0 = time.time()
        w = torch.from_numpy(np.stack([np.asarray(data[i:i + 65], dtype=np.int64) for i in order[s * mbs:(s + 1) * mbs]]))
        loss = b7core.lm_loss(model, w[:, :-1], w[:, 1:]); opt.zero_grad(); loss.backward(); opt.step()
        r = loss.detach().clone(); dist.all_reduce(r); gstep += 1
        bar.set_postfix_str("reduced_train_loss={:.3f}, global_step={:.1f}, consumed_samples={:.1f}, train_step_timing in s={:.3f}".format(
            r.item() / world, gstep - 1, gstep * mbs * world, time.time() - t0), refresh=False)
        bar.update(1)
    bar.close()
    m.eval(); vl = 0.0
    with torch.no_grad():
        for _ in range(10):
            vx, vy = val.batch(mbs); vl += b7core.lm_loss(m, vx, vy).item()
    m.train(); t = torch.tensor([vl / 10]); dist.all_reduce(t); v = t.item() / world
    if rank == 0:
        print("Epoch {}, global step {}: 'val_loss' reached {:.5f} (best {:.5f}), saving model to '{}/megatron_gpt_tiny/checkpoints/megatron_gpt--val_loss={:.2f}-step={}-consumed_samples={:.1f}.ckpt' as top 3".format(
            ep, gstep, v, v, cfg["exp_manager.exp_dir"], v, gstep, gstep * mbs * world), flush=True)
        os.makedirs(cfg["exp_manager.exp_dir"], exist_ok=True)
        torch.save({"state_dict": m.state_dict(), "epoch": ep, "global_step": gstep}, os.path.join(cfg["exp_manager.exp_dir"], "last.ckpt"))
    dist.barrier()
if rank == 0: print("`Trainer.fit` stopped: `max_epochs={}` reached.".format(cfg["trainer.max_epochs"]), flush=True)
dist.destroy_process_group()
