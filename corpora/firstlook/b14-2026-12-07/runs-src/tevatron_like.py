"""Tevatron-like dense-retriever trainer (HF-example-style logging, save_on_each_node local checkpoints, resume)."""
import argparse, glob, logging, os, re, sys, time
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("--output_dir", required=True); p.add_argument("--model_name_or_path", default="bert-base-uncased")
p.add_argument("--max_steps", type=int, default=80); p.add_argument("--save_steps", type=int, default=20)
p.add_argument("--logging_steps", type=int, default=5); p.add_argument("--per_device_train_batch_size", type=int, default=8)
p.add_argument("--train_n_passages", type=int, default=8); p.add_argument("--pace", type=float, default=0.3)
a = p.parse_args()
rank, world, local = C.init_dist()
logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                    level=logging.INFO if local == 0 else logging.WARN, stream=sys.stdout)
logger = logging.getLogger("tevatron.driver.train")
logger.warning(f"Process rank: {rank}, device: cpu, n_gpu: 0, distributed training: True, 16-bits training: False")
logger.info(f"Training/evaluation parameters TevatronTrainingArguments(output_dir={a.output_dir!r}, max_steps={a.max_steps}, save_steps={a.save_steps}, logging_steps={a.logging_steps}, per_device_train_batch_size={a.per_device_train_batch_size}, learning_rate=5e-06, save_on_each_node=True, negatives_x_device=False, train_n_passages={a.train_n_passages}, seed=42)")
logger.info(f"MODEL parameters ModelArguments(model_name_or_path={a.model_name_or_path!r}, untie_encoder=False, add_pooler=False, projection_in_dim=768, projection_out_dim=768, normalize=False)")
def get_last_checkpoint(d):
    c = [x for x in glob.glob(os.path.join(d, "checkpoint-*")) if re.search(r"checkpoint-(\d+)$", x) and os.path.isdir(x)]
    return max(c, key=lambda x: int(x.rsplit("-", 1)[1])) if c else None
last = get_last_checkpoint(a.output_dir) if os.path.isdir(a.output_dir) else None
if last is not None:
    logger.info(f"Checkpoint detected, resuming training at {last}. To avoid this behavior, change the `--output_dir` or add `--overwrite_output_dir` to train from scratch.")
torch.manual_seed(42)
enc = nn.Sequential(nn.Embedding(512, 64), nn.Flatten(1), nn.Linear(64 * 16, 128))
model = DDP(enc)
opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
step = 0
if last is not None:
    st = torch.load(os.path.join(last, "trainer_state.pt"))
    model.module.load_state_dict(st["model"]); opt.load_state_dict(st["opt"]); step = st["global_step"]
logger.info("***** Running training *****")
logger.info(f"  Num examples = 502939")
logger.info(f"  Instantaneous batch size per device = {a.per_device_train_batch_size}")
logger.info(f"  Total train batch size (w. parallel, distributed & accumulation) = {a.per_device_train_batch_size * world}")
logger.info(f"  Total optimization steps = {a.max_steps}")
if last is not None:
    logger.info("  Continuing training from checkpoint, will skip to saved global_step")
    logger.info("  Continuing training from epoch 0")
    logger.info(f"  Continuing training from global step {step}")
rng = np.random.default_rng(1000 * rank + step)
while step < a.max_steps:
    q = torch.from_numpy(rng.integers(0, 512, (a.per_device_train_batch_size, 16)))
    pz = torch.from_numpy(rng.integers(0, 512, (a.per_device_train_batch_size * a.train_n_passages, 16)))
    qr, pr = model(q), model(pz)
    scores = qr @ pr.T
    target = torch.arange(a.per_device_train_batch_size) * a.train_n_passages
    loss = F.cross_entropy(scores, target)
    opt.zero_grad(); loss.backward(); gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); step += 1
    time.sleep(a.pace)
    if step % a.logging_steps == 0 and rank == 0:
        print({"loss": round(loss.item(), 4), "grad_norm": round(gn.item(), 4), "learning_rate": 5e-06 * (1 - step / a.max_steps), "epoch": round(step * a.per_device_train_batch_size * world / 502939, 4)}, flush=True)
    if step % a.save_steps == 0:
        d = os.path.join(a.output_dir, f"checkpoint-{step}")
        if local == 0:
            logger.info(f"Saving model checkpoint to {d}")
            os.makedirs(d, exist_ok=True)
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "global_step": step}, os.path.join(d, "trainer_state.pt"))
        dist.barrier()
logger.info("\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
if rank == 0:
    print({"train_runtime": 0.0, "train_steps_per_second": 0.0, "train_loss": round(loss.item(), 4), "epoch": round(step * a.per_device_train_batch_size * world / 502939, 4)}, flush=True)
dist.destroy_process_group()
