"""PaddleNLP-Trainer-style logging for a DDP MLP classifier (logger lines
`[YYYY-MM-DD HH:MM:SS,mmm] [    INFO] - ...`). Rank 0 logs training metrics; every rank
logs its own setup lines."""
import argparse, logging, os, sys, time, math, faulthandler
import torch, torch.nn.functional as F
import b8core as C

faulthandler.enable()
ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--output_dir", required=True)
ap.add_argument("--max_steps", type=int, default=600); ap.add_argument("--per_device_train_batch_size", type=int, default=32)
ap.add_argument("--learning_rate", type=float, default=3e-4); ap.add_argument("--warmup_steps", type=int, default=30)
ap.add_argument("--logging_steps", type=int, default=10); ap.add_argument("--save_steps", type=int, default=200)
ap.add_argument("--eval_steps", type=int, default=200); ap.add_argument("--seed", type=int, default=42)
ap.add_argument("--weight_decay", type=float, default=0.01); ap.add_argument("--max_grad_norm", type=float, default=1.0)
a = ap.parse_args()
class Fmt(logging.Formatter):
    def format(s, r):
        r.lvl = "%8s" % r.levelname; return super().format(r)
h = logging.StreamHandler(sys.stdout); h.setFormatter(Fmt("[%(asctime)s] [%(lvl)s] - %(message)s"))
log = logging.getLogger("paddlenlp"); log.addHandler(h); log.setLevel(logging.INFO)
rank, world, local = C.setup()
log.info("The default value for the training argument `--report_to` is None")
log.info("local_rank: %d, world_size: %d, global_rank: %d, device: cpu, distributed training: True" % (local, world, rank))
if rank == 0:
    log.info("=" * 60); log.info("     Training Configuration Arguments    "); log.info("paddle commit id              : n/a (torch %s)" % torch.__version__)
    for k, v in sorted(vars(a).items()):
        log.info("%-30s: %s" % (k, v))
    log.info("")
tr = C.ShardData(a.data, rank, world, seed=a.seed); va = C.ShardData(a.data, rank, world, split="val")
model = C.MLP(hidden=512); ddp = C.DDP(model)
opt = torch.optim.AdamW(ddp.parameters(), lr=a.learning_rate, weight_decay=a.weight_decay)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / a.warmup_steps) * max(0.0, (a.max_steps - s) / a.max_steps))
if rank == 0:
    log.info("***** Running training *****"); log.info("  Num examples = %s" % format(len(tr) * world, ","))
    log.info("  Num Epochs = %d" % math.ceil(a.max_steps / (len(tr) // a.per_device_train_batch_size)))
    log.info("  Instantaneous batch size per device = %d" % a.per_device_train_batch_size)
    log.info("  Total train batch size (w. parallel, distributed & accumulation) = %d" % (a.per_device_train_batch_size * world))
    log.info("  Gradient Accumulation steps = 1"); log.info("  Total optimization steps = %d" % a.max_steps)
    log.info("  Total num train samples = %d" % (a.max_steps * a.per_device_train_batch_size * world))
    log.info("  Number of trainable parameters = %d (per device)" % C.nparams(model))
it = tr.forever(a.per_device_train_batch_size); t0 = time.time(); acc_loss = 0.0; spe = len(tr) // a.per_device_train_batch_size
for step in range(1, a.max_steps + 1):
    x, y = next(it); loss = F.cross_entropy(ddp(x), y)
    opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(ddp.parameters(), a.max_grad_norm); opt.step(); sched.step()
    acc_loss += loss.item()
    if step % a.logging_steps == 0:
        l = C.allreduce_mean(acc_loss / a.logging_steps); dt = time.time() - t0; t0 = time.time(); acc_loss = 0.0
        log.info("loss: %.8f, learning_rate: %.4g, global_step: %d, current_memory_allocated: 0.0, current_memory_reserved: 0.0, "
                 "max_memory_allocated: 0.0, max_memory_reserved: 0.0, interval_runtime: %.4f, interval_samples_per_second: %.4f, "
                 "interval_steps_per_second: %.4f, progress_or_epoch: %.4f"
                 % (l, sched.get_last_lr()[0], step, dt, a.logging_steps * a.per_device_train_batch_size * world / dt, a.logging_steps / dt, step / spe)) if rank == 0 else None
    if step % a.eval_steps == 0:
        if rank == 0: log.info("***** Running Evaluation *****"); log.info("  Num examples = %d" % (len(va) * world)); log.info("  Total prediction steps = %d" % (len(va) // 256 + 1)); log.info("  Pre device batch size = 256"); log.info("  Total Batch size = %d" % (256 * world))
        vl, vacc = C.evaluate(ddp, va)
        if rank == 0: log.info("eval_loss: %.8f, eval_accuracy: %.8f, eval_runtime: 0.2, eval_samples_per_second: 0.0, eval_steps_per_second: 0.0, progress_or_epoch: %.4f" % (vl, vacc, step / spe))
    if step % a.save_steps == 0:
        d = os.path.join(a.output_dir, "checkpoint-%d" % step)
        if rank == 0:
            log.info("Saving model checkpoint to %s" % d); os.makedirs(d, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(d, "model_state.pdparams")); torch.save(opt.state_dict(), os.path.join(d, "optimizer.pdopt"))
            log.info("Model weights saved in %s/model_state.pdparams" % d)
        C.dist.barrier()
if rank == 0:
    log.info("\nTraining completed. \n"); log.info("train_runtime: %.1f" % (time.time()))
C.dist.destroy_process_group()
