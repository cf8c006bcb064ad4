"""mmcv-1.x / MMDetection-2.x-style logging (`YYYY-MM-DD HH:MM:SS,mmm - mmdet - INFO - Epoch [e][i/n] lr: ...`)
for a DDP MLP classifier. The dataset is described by <data_root>/index.json (shard list)."""
import argparse, logging, os, sys, time, datetime, platform
import torch, torch.nn.functional as F
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("config"); ap.add_argument("--launcher", default="pytorch"); ap.add_argument("--work-dir", required=True)
ap.add_argument("--data-root", required=True); ap.add_argument("--epochs", type=int, default=6)
ap.add_argument("--samples-per-gpu", type=int, default=32); ap.add_argument("--interval", type=int, default=20)
a = ap.parse_args()
rank, world, local = C.setup()
os.makedirs(a.work_dir, exist_ok=True)
log = logging.getLogger("mmdet"); log.setLevel(logging.INFO if rank == 0 else logging.ERROR)
fmt = logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s")
h = logging.StreamHandler(sys.stderr); h.setFormatter(fmt); log.addHandler(h)
if rank == 0:
    fh = logging.FileHandler(os.path.join(a.work_dir, time.strftime("%Y%m%d_%H%M%S") + ".log")); fh.setFormatter(fmt); log.addHandler(fh)
dash = "-" * 60
log.info("Environment info:\n" + dash + "\nsys.platform: %s\nPython: %s\nCUDA available: False\nGCC: n/a\nPyTorch: %s\nOpenCV: n/a\nMMCV: 1.7.2 (shim)\nMMDetection: 2.28.2 (shim)\n" % (sys.platform, sys.version.replace("\n", ""), torch.__version__) + dash + "\n")
log.info("Distributed training: True")
cfg_text = "dataset_type = 'ShardClsDataset'\ndata_root = '%s'\ndata = dict(samples_per_gpu=%d, workers_per_gpu=0, train=dict(type='ShardClsDataset', ann_file='%s/index.json'))\noptimizer = dict(type='SGD', lr=0.02, momentum=0.9, weight_decay=0.0001)\nlr_config = dict(policy='step', warmup='linear', warmup_iters=100, warmup_ratio=0.001, step=[4, 5])\nrunner = dict(type='EpochBasedRunner', max_epochs=%d)\ncheckpoint_config = dict(interval=2)\nlog_config = dict(interval=%d, hooks=[dict(type='TextLoggerHook')])\nwork_dir = '%s'\ngpu_ids = range(0, %d)" % (a.data_root, a.samples_per_gpu, a.data_root, a.epochs, a.interval, a.work_dir, world)
log.info("Config:\n" + cfg_text)
log.info("Set random seed to 42, deterministic: False")
model = C.MLP(hidden=512)
log.info("initialize MLP with init_cfg {'type': 'Kaiming', 'layer': 'Linear'}")
tr = C.ShardData(a.data_root, rank, world, seed=42); va = C.ShardData(a.data_root, rank, world, split="val")
ddp = C.DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
log.info("Start running, host: %s@%s, work_dir: %s" % (os.environ.get("USER", "root"), platform.node(), a.work_dir))
log.info("Hooks will be executed in the following order:\nbefore_run:\n(VERY_HIGH   ) StepLrUpdaterHook                  \n(NORMAL      ) CheckpointHook                     \n(VERY_LOW    ) TextLoggerHook                     \n -------------------- ")
log.info("workflow: [('train', 1)], max: %d epochs" % a.epochs)
log.info("Checkpoints will be saved to %s by HardDiskBackend." % a.work_dir)
n = tr.steps_per_epoch(a.samples_per_gpu); it = 0; t_start = time.time()
for ep in range(1, a.epochs + 1):
    base = 0.02 * (0.1 ** sum(ep > s for s in (4, 5)))
    t0 = time.time(); agg = torch.zeros(3); dts = 0.0; td = time.time()
    for i, (x, y) in enumerate(tr.epoch_batches(a.samples_per_gpu), 1):
        dts += time.time() - td; it += 1
        lr = base * (0.001 + (1 - 0.001) * min(1.0, it / 100))
        for g in opt.param_groups: g["lr"] = lr
        out = ddp(x); loss = F.cross_entropy(out, y)
        opt.zero_grad(); loss.backward(); gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), 35.0); opt.step()
        agg += torch.tensor([loss.item(), C.accuracy(out, y) * 100, gn.item()])
        if i % a.interval == 0:
            m = agg / a.interval; C.dist.all_reduce(m); m /= world; dt = (time.time() - t0) / a.interval
            eta = datetime.timedelta(seconds=int(dt * (n * a.epochs - it)))
            log.info("Epoch [%d][%d/%d]\tlr: %.3e, eta: %s, time: %.3f, data_time: %.3f, memory: 0, loss_cls: %.4f, acc: %.4f, loss: %.4f, grad_norm: %.4f"
                     % (ep, i, n, lr, eta, dt, dts / a.interval, m[0], m[1], m[0], m[2]))
            agg.zero_(); t0 = time.time(); dts = 0.0
        td = time.time()
    if ep % 2 == 0:
        if rank == 0:
            log.info("Saving checkpoint at %d epochs" % ep)
            torch.save({"meta": {"epoch": ep, "iter": it, "mmcv_version": "1.7.2"}, "state_dict": model.state_dict(), "optimizer": opt.state_dict()}, os.path.join(a.work_dir, "epoch_%d.pth" % ep))
        C.dist.barrier()
    vl, vacc = C.evaluate(ddp, va)
    log.info("Epoch(val) [%d][%d]\taccuracy_top-1: %.4f, loss: %.4f" % (ep, len(va) // 256, vacc * 100, vl))
C.dist.destroy_process_group()
