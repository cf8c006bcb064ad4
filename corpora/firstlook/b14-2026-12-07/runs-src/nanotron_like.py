"""nanotron-like trainer: '[LEVEL|DP=x|PP=0|TP=0|host]' log prefix, per-rank sharded checkpoint."""
import argparse, json, logging, os, socket, sys, time
import numpy as np, torch, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--config-file", default="examples/config_tiny_llama.yaml"); p.add_argument("--data", required=True)
p.add_argument("--checkpoints-path", required=True); p.add_argument("--train-steps", type=int, default=100)
p.add_argument("--checkpoint-interval", type=int, default=25); p.add_argument("--pace", type=float, default=0.2)
a = p.parse_args()
rank, world, local = C.init_dist()
host = socket.gethostname()
class F_(logging.Formatter):
    def format(self, r):
        return f"{time.strftime('%m/%d/%Y %H:%M:%S', time.localtime(r.created))} [{r.levelname}|DP={rank}|PP=0|TP=0|{host}]: {r.getMessage()}"
log = logging.getLogger("nanotron"); h = logging.StreamHandler(sys.stdout); h.setFormatter(F_()); log.addHandler(h); log.setLevel(logging.INFO)
def log_rank(msg, level=logging.INFO, rank0=True):
    if not rank0 or rank == 0: log.log(level, msg)
log_rank(f"Config:\nConfig(general=GeneralArgs(project='debug', run='tiny_llama_%date_%jobid', seed=42, step=None, consumed_train_samples=None, benchmark_csv_path=None, ignore_sanity_checks=True), parallelism=ParallelismArgs(dp={world}, pp=1, tp=1), checkpoints=CheckpointsArgs(checkpoints_path={a.checkpoints_path!r}, checkpoint_interval={a.checkpoint_interval}, save_initial_state=False, resume_checkpoint_path=None), tokens=TokensArgs(sequence_length=64, train_steps={a.train_steps}, micro_batch_size=4, batch_accumulation_per_replica=1))")
log_rank("Building model..")
torch.manual_seed(42)
model = C.TinyGPT(vocab=512, d=128, n_layer=2, n_head=4, block=64)
n = sum(p.numel() for p in model.parameters())
log_rank(f"Total number of parameters: {n/1e6:.2f}M ({n*4/2**20:.2f}MiB)")
log_rank(f"Local number of parameters: {n/1e6:.2f}M ({n*4/2**20:.2f}MiB)", rank0=False)
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
files = C.shard_paths(a.data)
log_rank(f"[Training Plan] Stage Stable Training Stage has {a.train_steps} remaining training steps and has consumed 0 samples")
log_rank(f"[Start training] datetime: {time.strftime('%Y-%m-%d %H:%M:%S.%f')} | mbs: 4 | grad_accum: 1 | global_batch_size: {4*world} | sequence_length: 64 | train_steps: {a.train_steps} | start_iteration_step: 0 | consumed_train_samples: 0")
rng = np.random.default_rng(rank)
def save(step):
    d = os.path.join(a.checkpoints_path, str(step))
    log_rank(f"Saving checkpoint at {d}", logging.WARNING)
    os.makedirs(os.path.join(d, "model"), exist_ok=True)
    torch.save(model.module.state_dict(), os.path.join(d, "model", f"model_pp-rank-0-of-1_tp-rank-0-of-1_dp-rank-{rank}-of-{world}.pt"))
    torch.save(opt.state_dict(), os.path.join(d, "model", f"optimizer_pp-rank-0-of-1_tp-rank-0-of-1_dp-rank-{rank}-of-{world}.pt"))
    dist.barrier()
    if rank == 0:
        with open(os.path.join(d, "checkpoint_metadata.json"), "w") as f:
            json.dump({"dp": world, "metas": {"consumed_train_samples": step * 4 * world, "last_train_step": step}, "tp": 1, "version": "1.4"}, f)
        with open(os.path.join(a.checkpoints_path, "latest.txt"), "w") as f: f.write(str(step))
    dist.barrier()
t = time.time()
for step in range(1, a.train_steps + 1):
    arr = np.load(files[rng.integers(len(files))]); x = torch.from_numpy(arr[rng.integers(0, len(arr), 4)])
    loss = F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
    opt.zero_grad(); loss.backward(); gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step()
    time.sleep(a.pace)
    lt = loss.detach(); dist.all_reduce(lt); lt /= world
    if step % 5 == 0:
        el = (time.time() - t) * 1000 / 5; t = time.time(); tok = 4 * world * 64
        log_rank(f"iteration: {step} / {a.train_steps} | consumed_tokens: {step*tok/1000:.3g}K | elapsed_time_per_iteration_ms: {el:.0f} | tokens_per_sec: {tok/el:.3g}K | tokens_per_sec_per_gpu: {tok/el/world:.3g}K | global_batch_size: {4*world} | lm_loss: {lt.item():.4g} | lr: 0.0003 | model_tflops_per_gpu: 0.00017 | hardware_tflops_per_gpu: 0.00017 | grad_norm: {gn.item():.3g}")
    if step % a.checkpoint_interval == 0:
        save(step)
log_rank("Training finished")
dist.destroy_process_group()
