"""icefall/k2-like ASR trainer (python logging with '(rank/world)' tag), feature shards cached in RAM."""
import argparse, logging, os, time
import numpy as np, torch, torch.nn as nn
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--manifest-dir", required=True); p.add_argument("--num-epochs", type=int, default=3)
p.add_argument("--batches-per-epoch", type=int, default=60); p.add_argument("--log-interval", type=int, default=5)
p.add_argument("--base-lr", type=float, default=0.045); p.add_argument("--pace", type=float, default=0.15)
a = p.parse_args()
rank, world, local = C.init_dist()
logging.basicConfig(format=f"%(asctime)s %(levelname)s [%(filename)s:%(lineno)d] ({rank}/{world}) %(message)s", level=logging.INFO)
logging.info("Training started")
params = {"best_train_loss": float("inf"), "best_valid_loss": float("inf"), "batch_idx_train": 0, "log_interval": a.log_interval,
          "feature_dim": 80, "subsampling_factor": 4, "encoder_dim": 256, "world_size": world, "num_epochs": a.num_epochs,
          "base_lr": a.base_lr, "manifest_dir": a.manifest_dir, "on_the_fly_feats": False, "cache_features": True}
logging.info(params)
logging.info("Device: cpu")
logging.info("About to create model")
torch.manual_seed(42)
enc = nn.Sequential(nn.Linear(80, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU())
model = nn.Sequential(enc, nn.Linear(256, 500))
logging.info(f"Number of model parameters: {sum(p.numel() for p in model.parameters())}")
logging.info("Using DDP")
model = DDP(model)
opt = torch.optim.Adam(model.parameters(), lr=a.base_lr / 10)
shards = C.shard_paths(a.manifest_dir, "feats-*.npy")
logging.info("About to get train cuts")
logging.info(f"Loaded {len(shards)} feature shards from {a.manifest_dir}")
cache = {}
rng = np.random.default_rng(100 + rank)
crit = nn.CrossEntropyLoss(reduction="sum")
batch_idx_train = 0
for epoch in range(1, a.num_epochs + 1):
    tot_loss, tot_frames = 0.0, 0.0
    for b in range(a.batches_per_epoch):
        sid = (epoch * 7 + b // 6) % len(shards)
        if sid not in cache:
            cache[sid] = torch.from_numpy(np.load(shards[sid]))
        feats = cache[sid]
        i = int(rng.integers(0, feats.shape[0] - 56))
        x = feats[i:i + 56]  # (56, T, 80)
        y = torch.from_numpy(rng.integers(0, 500, size=x.shape[:2]))
        out = model(x)
        loss = crit(out.flatten(0, 1), y.flatten())
        frames = float(x.shape[0] * x.shape[1])
        opt.zero_grad(); (loss / frames).backward(); opt.step()
        tot_loss = tot_loss * (1 - 1 / 200) + loss.item(); tot_frames = tot_frames * (1 - 1 / 200) + frames
        batch_idx_train += 1
        time.sleep(a.pace)
        if b % a.log_interval == 0:
            lr = opt.param_groups[0]["lr"]
            logging.info(f"Epoch {epoch}, batch {b}, loss[loss={loss.item() / frames:.4}, over {frames:.2f} frames. ], "
                         f"tot_loss[loss={tot_loss / tot_frames:.4}, over {tot_frames:.2f} frames. ], batch size: {x.shape[0]}, lr: {lr:.2e}, ")
    logging.info(f"Computing validation loss")
    logging.info(f"Epoch {epoch}, validation: loss={tot_loss / tot_frames:.4}, over {tot_frames:.2f} frames.")
    if rank == 0:
        torch.save({"model": model.module.state_dict(), "epoch": epoch}, os.path.join(os.path.dirname(a.manifest_dir), f"epoch-{epoch}.pt"))
    dist.barrier()
logging.info("Done!")
dist.destroy_process_group()
