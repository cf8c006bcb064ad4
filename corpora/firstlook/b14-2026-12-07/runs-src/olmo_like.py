"""OLMo-like trainer: tab-separated log records (asctime, host:local_rank, logger:lineno, level, msg); metrics block per step."""
import argparse, logging, os, socket, sys, time
import numpy as np, torch, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("config"); p.add_argument("--data", required=True)
p.add_argument("--max_duration", type=int, default=150); p.add_argument("--pace", type=float, default=0.2)
a = p.parse_args()
rank, world, local = C.init_dist()
host = socket.gethostname()
class Flt(logging.Filter):
    def filter(self, r):
        r.host = host; r.local_rank = local
        return rank == 0 or r.levelno >= logging.WARNING
h = logging.StreamHandler(sys.stdout); h.addFilter(Flt())
h.setFormatter(logging.Formatter("%(asctime)s\t%(host)s:%(local_rank)s\t%(name)s:%(lineno)s\t%(levelname)s\t%(message)s"))
logging.basicConfig(handlers=[h], level=logging.INFO)
log = logging.getLogger("olmo.train")
ulog = logging.getLogger("olmo.util")
logging.getLogger("scripts.train").info(f"Configuration:\nTrainConfig(run_name='OLMo-tiny-b14', seed=6198, epoch=None, dry_run=False, model=ModelConfig(d_model=128, n_heads=4, n_layers=2, mlp_ratio=4, max_sequence_length=64, vocab_size=512), optimizer=OptimizerConfig(name='adamw', learning_rate=0.0004, weight_decay=0.1), max_duration='{a.max_duration}', global_train_batch_size={4*world}, device_train_microbatch_size=4, save_folder='workspace/OLMo-tiny-b14', save_interval=1000)")
logging.getLogger("scripts.train").info("Saving config to workspace/OLMo-tiny-b14/config.yaml")
torch.manual_seed(6198)
model = C.TinyGPT(vocab=512, d=128, n_layer=2, n_head=4, block=64)
logging.getLogger("scripts.train").info(f"Total number of parameters: {sum(p.numel() for p in model.parameters()):,d}")
logging.getLogger("scripts.train").info(f"Number of non-embedding parameters: {sum(p.numel() for n_, p in model.named_parameters() if 'tok' not in n_ and 'pos' not in n_):,d}")
model = DDP(model)
logging.getLogger("scripts.train").info("Peak GPU Memory (MB) after DDP: 0")
opt = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=0.1)
files = C.shard_paths(a.data)
log.info("Pre-train system metrics")
log.info("Starting training...")
rng = np.random.default_rng(rank)
toks = 0; t0 = time.time()
for step in range(1, a.max_duration + 1):
    arr = np.load(files[rng.integers(len(files))]); x = torch.from_numpy(arr[rng.integers(0, len(arr), 4)])
    loss = F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
    opt.zero_grad(); loss.backward(); gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step()
    time.sleep(a.pace)
    lt = loss.detach(); dist.all_reduce(lt); lt /= world; toks += 4 * world * 64
    if step % 5 == 0:
        dt = time.time() - t0; t0 = time.time()
        log.info(f"[step={step}/{a.max_duration}]\n    train/CrossEntropyLoss={lt.item():.4f}\n    train/Perplexity={float(torch.exp(lt)):.2f}\n"
                 f"    optim/total_grad_norm={gn.item():.4f}\n    optim/learning_rate_group0=0.0004\n    throughput/total_tokens={toks}\n"
                 f"    throughput/device/tokens_per_second={4*64*5/dt:.1f}\n    throughput/device/batches_per_second={5/dt:.4f}\n    System/Peak GPU Memory (MB)=0")
log.info("Training loop complete")
dist.destroy_process_group()
