"""torchtune_like.py -- epoch-based finetune recipe logging like torchtune
('INFO:torchtune.utils._logging:...' + a tqdm bar '1|40|Loss: 2.31:  40%|####  | 40/100 [...]'
on rank 0). Each rank loads its own pre-tokenized shard at the start of every epoch.
Saves <out>/epoch_<e>/model.pt and <out>/recipe_state.pt; resumes from recipe_state.pt."""
import argparse, logging, os, sys, time, math
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm
import b7core

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True); ap.add_argument("kv", nargs="*")
a = ap.parse_args()
cfg = dict(batch_size=16, epochs=3, steps_per_epoch=100, lr=3e-4, seed=17, dataset_dir="", output_dir="", resume_from_checkpoint="auto", log_every_n_steps=1)
for kv in a.kv:
    k, v = kv.split("="); cfg[k] = type(cfg[k])(v) if not isinstance(cfg[k], str) else v
# process group on a per-attempt key prefix of the launcher's store, so that an elastic
# restart does not pick up the previous attempt's gloo addresses
import datetime
rank, world, local = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
torch.set_num_threads(1)
_attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
_store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world, False,
                       timeout=datetime.timedelta(seconds=120))
dist.init_process_group("gloo", store=dist.PrefixStore("tune/attempt_" + _attempt, _store), rank=rank,
                        world_size=world, timeout=datetime.timedelta(seconds=120))
logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING)
log = logging.getLogger("torchtune.utils._logging")
log.info("Running FullFinetuneRecipeDistributed with resolved config:\n\n" + "\n".join("{}: {}".format(k, v) for k, v in cfg.items()) + "\n")
log.info("Set intra op parallelism no. of threads to 1")
torch.manual_seed(cfg["seed"])
m = b7core.TinyLM(ctx=64); model = DDP(m)
log.info("Training is not being performed on a GPU; memory stats are not available.")
log.info("Model is initialized with precision torch.float32.")
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], fused=False)
log.info("Optimizer is initialized.")
log.info("Loss is initialized.")
start_epoch = 0
rs = os.path.join(cfg["output_dir"], "recipe_state.pt")
if cfg["resume_from_checkpoint"] == "auto" and os.path.exists(rs):
    st = torch.load(rs, weights_only=False)
    m.load_state_dict(torch.load(os.path.join(cfg["output_dir"], "epoch_%d" % st["epoch"], "model.pt"), weights_only=True))
    opt.load_state_dict(st["optimizer"]); start_epoch = st["epoch"] + 1
    log.info("Resuming from checkpoint: {} (epochs_run={})".format(rs, start_epoch))
log.info("Dataset and Sampler are initialized.")
log.info("No learning rate scheduler configured. Using constant learning rate.")
log.warning(" Profiling disabled.") if rank == 0 else None
gstep = start_epoch * cfg["steps_per_epoch"]; bs = cfg["batch_size"]
for ep in range(start_epoch, cfg["epochs"]):
    shard = os.path.join(cfg["dataset_dir"], "shard-%05d.bin" % rank)
    toks = np.fromfile(shard, dtype=np.uint16)
    g = np.random.default_rng(1000 * ep + rank)
    pbar = tqdm(total=cfg["steps_per_epoch"], disable=rank != 0, file=sys.stdout)
    for i in range(cfg["steps_per_epoch"]):
        ix = g.integers(0, len(toks) - 66, size=bs)
        w = torch.from_numpy(np.stack([toks[j:j + 65].astype(np.int64) for j in ix]))
        loss = b7core.lm_loss(model, w[:, :-1], w[:, 1:]); opt.zero_grad(); loss.backward(); opt.step()
        gstep += 1
        pbar.update(1); pbar.set_description("{}|{}|Loss: {}".format(ep + 1, gstep, loss.item()))
    pbar.close()
    if rank == 0:
        t0 = time.time(); d = os.path.join(cfg["output_dir"], "epoch_%d" % ep); os.makedirs(d, exist_ok=True)
        log.info("Saving checkpoint. This may take some time. Retrieving full model state dict...")
        torch.save(m.state_dict(), os.path.join(d, "model.pt"))
        log.info("Model checkpoint of size {:.2f} GiB saved to {}".format(os.path.getsize(os.path.join(d, "model.pt")) / 2**30, os.path.join(d, "model.pt")))
        torch.save({"epoch": ep, "optimizer": opt.state_dict(), "seed": cfg["seed"], "total_epochs": cfg["epochs"]}, rs)
        log.info("Recipe checkpoint of size {:.2f} GiB saved to {}".format(os.path.getsize(rs) / 2**30, rs))
        log.info("Saving checkpoint took {:.2f} secs".format(time.time() - t0))
    dist.barrier()
dist.destroy_process_group()
