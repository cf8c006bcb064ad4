"""mmengine_like.py -- iteration-based runner that logs like mmengine's Runner
('MM/DD HH:MM:SS - mmengine - INFO - Iter(train) [ 40/400]  base_lr: ... loss: ...'),
rank-0 logging only, CheckpointHook-style iter_<N>.pth with max_keep_ckpts."""
import argparse, datetime, os, platform, sys, time, logging
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("config"); ap.add_argument("--work-dir", required=True)
ap.add_argument("--launcher", default="pytorch"); ap.add_argument("--data-root", required=True)
ap.add_argument("--max-iters", type=int, default=400); ap.add_argument("--val-interval", type=int, default=80)
ap.add_argument("--ckpt-interval", type=int, default=80); ap.add_argument("--max-keep-ckpts", type=int, default=2)
a = ap.parse_args()

rank, world, local = b7core.dist_env(timeout_s=180)
log = logging.getLogger("mmengine")
h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s", "%m/%d %H:%M:%S"))
log.addHandler(h); log.setLevel(logging.INFO if rank == 0 else logging.WARNING); log.propagate = False

cfg = dict(model=dict(type="TinyGPT", vocab_size=512, d_model=192, n_layer=3, n_head=6, block_size=64),
           train_dataloader=dict(batch_size=16, dataset=dict(type="TokenBinDataset", data_root=a.data_root, ann_file="tokens.bin")),
           val_dataloader=dict(batch_size=16, dataset=dict(type="TokenBinDataset", data_root=a.data_root, ann_file="shard-00007.bin")),
           optim_wrapper=dict(type="OptimWrapper", optimizer=dict(type="AdamW", lr=1e-3, weight_decay=0.05), clip_grad=dict(max_norm=1.0)),
           param_scheduler=[dict(type="LinearLR", start_factor=0.1, by_epoch=False, begin=0, end=50),
                            dict(type="CosineAnnealingLR", by_epoch=False, begin=50, end=a.max_iters)],
           train_cfg=dict(type="IterBasedTrainLoop", max_iters=a.max_iters, val_interval=a.val_interval),
           default_hooks=dict(logger=dict(type="LoggerHook", interval=10),
                              checkpoint=dict(type="CheckpointHook", by_epoch=False, interval=a.ckpt_interval, max_keep_ckpts=a.max_keep_ckpts)),
           env_cfg=dict(dist_cfg=dict(backend="gloo")), work_dir=a.work_dir, randomness=dict(seed=42))
sep = "-" * 60
log.info("\n" + sep + "\nSystem environment:\n    sys.platform: {}\n    Python: {}\n    CUDA available: False\n    MUSA available: False\n    numpy_random_seed: 42\n    PyTorch: {}\n    NumPy: {}\n\nRuntime environment:\n    dist_cfg: {{'backend': 'gloo'}}\n    seed: 42\n    Distributed launcher: {}\n    Distributed training: True\n    GPU number: {}\n{}\n".format(
    sys.platform, sys.version.replace("\n", ""), torch.__version__, np.__version__, a.launcher, world, sep))
log.info("Config:\n" + "\n".join("{} = {!r}".format(k, v) for k, v in cfg.items()) + "\n")
torch.manual_seed(42)
m = b7core.TinyLM(d=192, layers=3, heads=6, ctx=64)
model = DDP(m)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
def lr_at(it):
    if it < 50: return 1e-3 * (0.1 + 0.9 * it / 50)
    import math; return 1e-3 * 0.5 * (1 + math.cos(math.pi * (it - 50) / (a.max_iters - 50)))
train = b7core.Windows(os.path.join(a.data_root, "tokens.bin"), 64, 42 + rank)
val = b7core.Windows(os.path.join(a.data_root, "shard-00007.bin"), 64, 7)
log.info("Distributed training is not used, all SyncBatchNorm (SyncBN) layers in the model will be automatically reverted to BatchNormXd layers if they are used." if world == 1 else "Hooks will be executed in the following order:\nbefore_train:\n(VERY_HIGH   ) RuntimeInfoHook\n(BELOW_NORMAL) LoggerHook\n --------------------\nafter_train_iter:\n(VERY_HIGH   ) RuntimeInfoHook\n(NORMAL      ) IterTimerHook\n(BELOW_NORMAL) LoggerHook\n(LOW         ) ParamSchedulerHook\n(VERY_LOW    ) CheckpointHook\n --------------------")
os.makedirs(a.work_dir, exist_ok=True)
log.info("Checkpoints will be saved to {}.".format(a.work_dir))
saved = []
t0 = time.time(); tw = []; dw = []; losses = []
for it in range(1, a.max_iters + 1):
    ts = time.time()
    x, y = train.batch(16); td = time.time() - ts
    for g in opt.param_groups: g["lr"] = lr_at(it - 1)
    loss = b7core.lm_loss(model, x, y)
    opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step()
    tw.append(time.time() - ts); dw.append(td); losses.append(loss.item())
    if it % 10 == 0:
        t = torch.tensor([sum(losses) / len(losses)]); dist.all_reduce(t); t /= world
        eta = datetime.timedelta(seconds=int(sum(tw) / len(tw) * (a.max_iters - it)))
        log.info("Iter(train) [{:>{w}}/{}]  base_lr: 1.0000e-03 lr: {:.4e}  eta: {}  time: {:.4f}  data_time: {:.4f}  memory: 0  grad_norm: {:.4f}  loss: {:.4f}".format(
            it, a.max_iters, lr_at(it - 1), eta, sum(tw[-10:]) / 10, sum(dw[-10:]) / 10,
            float(torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])) if hasattr(torch.nn.utils, "get_total_norm") else 0.0,
            t.item(), w=len(str(a.max_iters))))
        losses = []
    if it % a.val_interval == 0:
        m.eval(); vl = 0.0
        with torch.no_grad():
            for _ in range(8):
                vx, vy = val.batch(16); vl += b7core.lm_loss(m, vx, vy).item()
        m.train(); t = torch.tensor([vl / 8]); dist.all_reduce(t); t /= world
        log.info("Iter(val) [8/8]    loss: {:.4f}  ppl: {:.2f}  data_time: 0.0011  time: 0.0310".format(t.item(), float(np.exp(t.item()))))
    if it % a.ckpt_interval == 0:
        log.info("Saving checkpoint at {} iterations".format(it))
        if rank == 0:
            path = os.path.join(a.work_dir, "iter_{}.pth".format(it))
            torch.save({"meta": {"iter": it, "seed": 42, "cfg": repr(cfg), "mmengine_version": "0.10.7"},
                        "state_dict": m.state_dict(), "optimizer": opt.state_dict(),
                        "message_hub": {"log_scalars": {"train/loss": losses}}}, path)
            with open(os.path.join(a.work_dir, "last_checkpoint"), "w") as f: f.write(path)
            saved.append(path)
            while len(saved) > a.max_keep_ckpts:
                os.remove(saved.pop(0))
        dist.barrier()
log.info("Done. total time {:.1f}s".format(time.time() - t0))
dist.destroy_process_group()
