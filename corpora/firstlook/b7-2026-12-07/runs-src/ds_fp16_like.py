"""ds_fp16_like.py -- DeepSpeed-engine-flavoured trainer: '[ts] [LEVEL] [file:line:func]' log
format, '[Rank 0] step=N, skipped=K, lr=[..], mom=[..]' progress lines, and a dynamic loss
scaler that checks the scaled gradients for fp16 overflow (inf after casting to half) and
skips the step / halves the scale like fp16 training does."""
import argparse, inspect, logging, os, sys, time, math, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("--deepspeed_config", required=True); ap.add_argument("--data", required=True)
ap.add_argument("--save_dir", required=True); ap.add_argument("--train_iters", type=int, default=400)
a = ap.parse_args()
ds = json.load(open(a.deepspeed_config))
rank, world, local = b7core.dist_env(timeout_s=120)

logger = logging.getLogger("DeepSpeed"); h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] %(message)s"))
logger.addHandler(h); logger.setLevel(logging.INFO); logger.propagate = False
def log_dist(msg, ranks=(0,), level=logging.INFO):
    if rank in ranks or -1 in ranks:
        logger.log(level, "[Rank {}] {}".format(rank, msg), stacklevel=2)

logger.info("Setting ds_accelerator to cpu (auto detect)")
log_dist("Initializing TorchBackend in DeepSpeed with backend gloo", ranks=[-1])
try:
    from deepspeed.ops.adam import DeepSpeedCPUAdam as Adam  # noqa
except Exception as e:
    if rank == 0:
        logger.warning("DeepSpeedCPUAdam unavailable ({}: {}); falling back to torch.optim.AdamW".format(type(e).__name__, e))
    Adam = torch.optim.AdamW
scaler_legacy = torch.cuda.amp.GradScaler(enabled=ds.get("amp", {}).get("enabled", True))   # kept from the GPU recipe
torch.manual_seed(ds.get("seed", 1234))
m = b7core.TinyLM(ctx=64)
model = DDP(m, find_unused_parameters=True)
opt = Adam(model.parameters(), lr=ds["optimizer"]["params"]["lr"], betas=tuple(ds["optimizer"]["params"]["betas"]))
warm = ds["scheduler"]["params"]["warmup_num_steps"]
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
log_dist("DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown")
log_dist("DeepSpeed Basic Optimizer = {}".format(type(opt).__name__))
log_dist("Creating fp16 optimizer with dynamic loss scale")
log_dist("DeepSpeed using configured LR scheduler = WarmupLR")
if rank == 0:
    logger.info("DeepSpeedEngine configuration:")
    for k, v in sorted(ds.items()):
        logger.info("  {} {} {}".format(k, "." * (28 - len(k)), v))
fp16 = ds["fp16"]; scale = 2.0 ** fp16["initial_scale_power"]; window = fp16["loss_scale_window"]
min_scale = fp16["min_loss_scale"]; good = 0; skipped = 0
mm = np.memmap(os.path.join(a.data, "tokens.bin"), dtype=np.uint16, mode="r")
g = np.random.default_rng(rank); mbs = ds["train_micro_batch_size_per_gpu"]
t_run = time.time(); samples = 0; tw = time.time()
for step in range(1, a.train_iters + 1):
    ix = g.integers(0, len(mm) - 66, size=mbs)
    w = torch.stack([torch.from_numpy(mm[i:i + 65]).long() for i in ix])
    loss = b7core.lm_loss(model, w[:, :-1], w[:, 1:])
    opt.zero_grad(); (loss * scale).backward()
    overflow = any(not torch.isfinite(p.grad.half()).all() for p in model.parameters() if p.grad is not None)
    ov = torch.tensor([1.0 if overflow else 0.0]); dist.all_reduce(ov, op=dist.ReduceOp.MAX); overflow = ov.item() > 0
    if overflow:
        new = max(scale / 2, min_scale)
        if rank == 0:
            logger.info("[deepspeed] OVERFLOW! Rank {} Skipping step. Attempted loss scale: {}, reducing to {}".format(rank, int(scale), int(new)))
        scale = new; good = 0; skipped += 1
    else:
        for p in model.parameters():
            if p.grad is not None: p.grad.div_(scale)
        torch.nn.utils.clip_grad_norm_(model.parameters(), ds["gradient_clipping"])
        opt.step(); good += 1
        if good % window == 0:
            if rank == 0:
                logger.info("No Grad overflow for {} iterations".format(window))
                logger.info("Increasing dynamic loss scale from {} to {}".format(int(scale), int(scale * 2)))
            scale *= 2
    sched.step(); samples += mbs * world
    if step % ds["steps_per_print"] == 0:
        lt = torch.tensor(loss.detach()); dist.all_reduce(lt); el = time.time() - tw; tw = time.time()
        log_dist("step={}, skipped={}, lr=[{:.6g}], mom=[(0.9, 0.95)]".format(step, skipped, sched.get_last_lr()[0]))
        if rank == 0:
            logger.info("epoch=0/micro_step={}/global_step={}, RunningAvgSamplesPerSec={:.3f}, CurrSamplesPerSec={:.3f}, MemAllocated=0.0GB, MaxMemAllocated=0.0GB".format(
                step, step, samples / (time.time() - t_run), ds["steps_per_print"] * mbs * world / el))
            print("iteration {:>6d}/{:>6d} | lm loss {:.6E} | loss scale {:.1f} | number of skipped iterations {:>3d} |".format(
                step, a.train_iters, lt.item() / world, scale, skipped), flush=True)
    if step % ds["save_interval"] == 0 or step == a.train_iters:
        tag = "global_step{}".format(step); d = os.path.join(a.save_dir, tag)
        log_dist("Saving model checkpoint: {}/mp_rank_00_model_states.pt".format(d))
        os.makedirs(d, exist_ok=True)
        if rank == 0:
            torch.save({"module": m.state_dict(), "loss_scale": scale, "global_steps": step, "skipped_steps": skipped}, os.path.join(d, "mp_rank_00_model_states.pt"))
        torch.save({"optimizer_state_dict": opt.state_dict() if rank == 0 else {}, "ds_config": ds}, os.path.join(d, "zero_pp_rank_{}_mp_rank_00_optim_states.pt".format(rank)))
        dist.barrier()
        if rank == 0:
            with open(os.path.join(a.save_dir, "latest"), "w") as f: f.write(tag)
        log_dist("zero checkpoint saved {}/zero_pp_rank_{}_mp_rank_00_optim_states.pt".format(d, rank), ranks=[-1])
log_dist("training finished: {} iterations, {} skipped, final loss scale {}".format(a.train_iters, skipped, scale))
dist.destroy_process_group()
