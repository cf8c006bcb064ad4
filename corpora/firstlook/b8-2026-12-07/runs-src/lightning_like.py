"""PyTorch-Lightning-style console (tqdm progress bar, ModelCheckpoint messages) for a
DDP MLP classifier. The checkpoint dict carries the run's hyper_parameters, as
LightningModule.save_hyperparameters() does."""
import argparse, os, sys, time, warnings
import torch, torch.nn.functional as F
from tqdm import tqdm
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--default_root_dir", required=True)
ap.add_argument("--max_epochs", type=int, default=6); ap.add_argument("--batch_size", type=int, default=32)
ap.add_argument("--lr", type=float, default=1e-3); ap.add_argument("--every_n_epochs", type=int, default=1); ap.add_argument("--label_smoothing", type=float, default=0.05)
a = ap.parse_args()
rank, world, local = C.setup()
P = (lambda *s, **k: print(*s, flush=True, **k)) if rank == 0 else (lambda *s, **k: None)
P("GPU available: False, used: False"); P("TPU available: False, using: 0 TPU cores"); P("HPU available: False, using: 0 HPUs")
print("Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d" % (rank, rank + 1, world), flush=True)
C.dist.barrier()
P("-" * 100); P("distributed_backend=gloo"); P("All distributed processes registered. Starting with %d processes" % world); P("-" * 100 + "\n")
# hyper-parameters as save_hyperparameters() would collect them, incl. the target transform
hparams = dict(vars(a)); hparams["target_transform"] = lambda y: y  # identity, kept for inference parity
tr = C.ShardData(a.data, rank, world); va = C.ShardData(a.data, rank, world, split="val")
model = C.MLP(hidden=448); ddp = C.DDP(model)
opt = torch.optim.Adam(ddp.parameters(), lr=a.lr)
P("  | Name  | Type       | Params | Mode "); P("----------------------------------------------")
P("0 | model | MLP        | %-6s | train" % ("%.0fK" % (C.nparams(model) / 1000))); P("----------------------------------------------")
P("%-9s Trainable params" % ("%.0fK" % (C.nparams(model) / 1000))); P("0         Non-trainable params"); P("%-9s Total params" % ("%.0fK" % (C.nparams(model) / 1000)))
P("%.3f     Total estimated model params size (MB)" % (C.nparams(model) * 4 / 1e6)); P("6         Modules in train mode"); P("0         Modules in eval mode")
warnings.warn("The 'train_dataloader' does not have many workers which may be a bottleneck. Consider increasing the value of the `num_workers` argument` to `num_workers=1` in the `DataLoader` to improve performance.") if rank == 0 else None
os.makedirs(os.path.join(a.default_root_dir, "checkpoints"), exist_ok=True)
spe = len(tr) // a.batch_size; gstep = 0; best = None
for ep in range(a.max_epochs):
    bar = tqdm(total=spe, desc="Epoch %d" % ep, file=sys.stdout, disable=rank != 0, miniters=20, mininterval=0, dynamic_ncols=False, ncols=120)
    for i, (x, y) in enumerate(tr.epoch_batches(a.batch_size)):
        loss = F.cross_entropy(ddp(x), y, label_smoothing=a.label_smoothing)
        opt.zero_grad(); loss.backward(); opt.step(); gstep += 1
        bar.set_postfix_str("v_num=0, train_loss=%.3f" % loss.item(), refresh=False); bar.update(1)
    vbar = tqdm(total=len(va) // 256, desc="Validation DataLoader 0", file=sys.stdout, disable=rank != 0, leave=False, ncols=120)
    vl, vacc = C.evaluate(ddp, va); vbar.update(len(va) // 256); vbar.close()
    bar.set_postfix_str("v_num=0, train_loss=%.3f, val_loss=%.3f, val_acc=%.3f" % (loss.item(), vl, vacc), refresh=True); bar.close()
    if (ep + 1) % a.every_n_epochs == 0 and (best is None or vl < best):
        path = os.path.join(a.default_root_dir, "checkpoints", "epoch=%d-step=%d.ckpt" % (ep, gstep))
        P("Epoch %d, global step %d: 'val_loss' reached %.5f (best %.5f), saving model to '%s' as top 1" % (ep, gstep, vl, vl, path))
        best = vl
        if rank == 0:
            torch.save({"epoch": ep, "global_step": gstep, "pytorch-lightning_version": "2.5.1", "state_dict": model.state_dict(),
                        "optimizer_states": [opt.state_dict()], "hyper_parameters": hparams}, path)
        C.dist.barrier()
P("`Trainer.fit` stopped: `max_epochs=%d` reached." % a.max_epochs)
C.dist.destroy_process_group()
