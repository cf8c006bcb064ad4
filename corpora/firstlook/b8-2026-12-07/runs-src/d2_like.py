"""Detectron2-style logging (`[MM/DD HH:MM:SS d2.utils.events]:  eta: ...  iter: N  total_loss: ...`)
for a DDP MLP classifier, with a wall-time budget: when --max-walltime is reached the trainer
saves model_<iter>.pth + last_checkpoint and exits 0 so the job can be requeued with --resume."""
import argparse, logging, os, sys, time, datetime
import torch, torch.nn.functional as F
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--output-dir", required=True); ap.add_argument("--resume", action="store_true")
ap.add_argument("--max-iter", type=int, default=1500); ap.add_argument("--ims-per-batch", type=int, default=96)
ap.add_argument("--base-lr", type=float, default=0.01); ap.add_argument("--checkpoint-period", type=int, default=500)
ap.add_argument("--eval-period", type=int, default=500); ap.add_argument("--max-walltime", type=float, default=0)
a = ap.parse_args()
rank, world, local = C.setup()
class F_(logging.Formatter):
    def format(s, r):
        r.short = r.name.replace("detectron2", "d2"); return super().format(r)
h = logging.StreamHandler(sys.stdout); h.setFormatter(F_("[%(asctime)s %(short)s]: %(message)s", datefmt="%m/%d %H:%M:%S"))
root = logging.getLogger(); root.addHandler(h); root.setLevel(logging.INFO if rank == 0 else logging.WARNING)
L = logging.getLogger
L("detectron2").info("Rank of current process: %d. World size: %d" % (rank, world)) if True else None
L("detectron2").info("Command line arguments: %s" % " ".join(sys.argv[1:]))
L("detectron2").info("Running with full config:\nSOLVER:\n  BASE_LR: %g\n  CHECKPOINT_PERIOD: %d\n  IMS_PER_BATCH: %d\n  MAX_ITER: %d\n  MOMENTUM: 0.9\n  STEPS: (1000, 1300)\nTEST:\n  EVAL_PERIOD: %d\nOUTPUT_DIR: %s" % (a.base_lr, a.checkpoint_period, a.ims_per_batch, a.max_iter, a.eval_period, a.output_dir))
bs = a.ims_per_batch // world
tr = C.ShardData(a.data, rank, world, seed=5); va = C.ShardData(a.data, rank, world, split="val")
model = C.MLP(hidden=512); ddp = C.DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=a.base_lr, momentum=0.9)
L("detectron2.data.build").info("Using training sampler TrainingSampler")
L("detectron2.data.common").info("Serializing %d elements to byte tensors and concatenating them all ..." % (len(tr) * world))
start = 0
os.makedirs(a.output_dir, exist_ok=True)
lc = os.path.join(a.output_dir, "last_checkpoint")
if a.resume and os.path.exists(lc):
    p = os.path.join(a.output_dir, open(lc).read().strip())
    L("fvcore.common.checkpoint").info("[Checkpointer] Loading from %s ..." % p)
    sd = torch.load(p, map_location="cpu"); model.load_state_dict(sd["model"]); opt.load_state_dict(sd["optimizer"]); start = sd["iteration"] + 1
    L("detectron2.engine.hooks").info("Loading scheduler from state_dict ...")
else:
    L("fvcore.common.checkpoint").info("No checkpoint found. Initializing model from scratch")
def save(name, itr):
    if rank == 0:
        p = os.path.join(a.output_dir, name)
        L("fvcore.common.checkpoint").info("Saving checkpoint to %s" % p)
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "iteration": itr}, p)
        with open(lc, "w") as f: f.write(name)
    C.dist.barrier()
L("detectron2.engine.train_loop").info("Starting training from iteration %d" % start)
it = tr.forever(bs); t_begin = time.time(); times = []; dtimes = []; acc = []
for itr in range(start, a.max_iter):
    td = time.time(); x, y = next(it); dtimes.append(time.time() - td); t0 = time.time()
    lr = a.base_lr * min(1.0, (itr + 1) / 100) * (0.1 ** sum(itr >= s for s in (1000, 1300)))
    for g in opt.param_groups: g["lr"] = lr
    out = ddp(x); loss = F.cross_entropy(out, y)
    opt.zero_grad(); loss.backward(); opt.step(); times.append(time.time() - t0 + dtimes[-1]); acc.append(C.accuracy(out, y))
    if (itr + 1) % 20 == 0 or itr == a.max_iter - 1:
        l = C.allreduce_mean(loss.item()); med = sorted(times[-20:])[len(times[-20:]) // 2]
        L("detectron2.utils.events").info(" eta: %s  iter: %d  total_loss: %.4g  loss_cls: %.4g  cls_accuracy: %.4g  time: %.4f  last_time: %.4f  data_time: %.4f  last_data_time: %.4f  lr: %.5g  max_mem: 0M"
            % (datetime.timedelta(seconds=int(med * (a.max_iter - itr - 1))), itr, l, l, sum(acc[-20:]) / len(acc[-20:]), med, times[-1], sorted(dtimes[-20:])[10 if len(dtimes) >= 20 else 0], dtimes[-1], lr))
    if (itr + 1) % a.checkpoint_period == 0 and itr != a.max_iter - 1:
        save("model_%07d.pth" % itr, itr)
    if (itr + 1) % a.eval_period == 0 or itr == a.max_iter - 1:
        vl, vacc = C.evaluate(ddp, va)
        L("detectron2.evaluation.testing").info("copypaste: Task: classification")
        L("detectron2.evaluation.testing").info("copypaste: top1,loss")
        L("detectron2.evaluation.testing").info("copypaste: %.4f,%.4f" % (vacc * 100, vl))
    if a.max_walltime:
        stop = torch.tensor([1.0 if time.time() - t_begin > a.max_walltime else 0.0]); C.dist.all_reduce(stop)
        if stop.item() > 0:
            L("detectron2.engine.hooks").info("Wall-time budget of %ds reached at iteration %d; saving and exiting for requeue." % (a.max_walltime, itr))
            save("model_%07d.pth" % itr, itr)
            L("detectron2.engine.hooks").info("Overall training speed: %d iterations in %s (%.4f s / it)" % (itr + 1 - start, datetime.timedelta(seconds=int(time.time() - t_begin)), (time.time() - t_begin) / (itr + 1 - start)))
            C.dist.destroy_process_group(); sys.exit(0)
save("model_final.pth", a.max_iter - 1)
L("detectron2.engine.hooks").info("Overall training speed: %d iterations in %s (%.4f s / it)" % (a.max_iter - start, datetime.timedelta(seconds=int(time.time() - t_begin)), (time.time() - t_begin) / (a.max_iter - start)))
L("detectron2.engine.hooks").info("Total training time: %s (0:00:00 on hooks)" % datetime.timedelta(seconds=int(time.time() - t_begin)))
C.dist.destroy_process_group()
