"""Small causal-LM fine-tuning script that logs like the HF Trainer.

Reads pre-tokenized jsonl shards ({"input_ids": [...]}) lazily from --data_dir,
rank r reads shards r, r+W, r+2W, ... DDP over gloo, checkpoints with
torch.save into output_dir/checkpoint-<step>/.
"""
import argparse, datetime, json, math, os, sys, time
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

p = argparse.ArgumentParser()
p.add_argument("--data_dir", required=True)
p.add_argument("--output_dir", required=True)
p.add_argument("--max_steps", type=int, default=200)
p.add_argument("--per_device_train_batch_size", type=int, default=8)
p.add_argument("--learning_rate", type=float, default=3e-4)
p.add_argument("--warmup_steps", type=int, default=20)
p.add_argument("--logging_steps", type=int, default=10)
p.add_argument("--save_steps", type=int, default=50)
p.add_argument("--resume_from_checkpoint", default=None)
p.add_argument("--seq_len", type=int, default=64)
p.add_argument("--ddp_timeout", type=int, default=1800)
p.add_argument("--d_model", type=int, default=256)
p.add_argument("--n_layers", type=int, default=3)
args = p.parse_args()

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.ddp_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
local_rank = int(os.environ.get("LOCAL_RANK", 0))
torch.manual_seed(1234)
is_main = rank == 0

def log_main(msg):
    if is_main:
        print(msg, flush=True)

class TinyLM(nn.Module):
    def __init__(self, vocab=512, d=128, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        enc = nn.TransformerEncoderLayer(d, 4, 4 * d, batch_first=True, dropout=0.0)
        self.body = nn.TransformerEncoder(enc, layers)
        self.head = nn.Linear(d, vocab)
    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.size(1))
        return self.head(self.body(self.emb(x), mask=mask, is_causal=True))

def shard_stream():
    shards = sorted(f for f in os.listdir(args.data_dir) if f.endswith(".jsonl"))
    mine = shards[rank::world]
    while True:
        for name in mine:
            with open(os.path.join(args.data_dir, name)) as fh:
                for line in fh:
                    ids = json.loads(line)["input_ids"][: args.seq_len + 1]
                    if len(ids) == args.seq_len + 1:
                        yield ids

def batches():
    it = shard_stream()
    while True:
        b = [next(it) for _ in range(args.per_device_train_batch_size)]
        t = torch.tensor(b)
        yield t[:, :-1], t[:, 1:]

model = DDP(TinyLM(d=args.d_model, layers=args.n_layers))
opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
def lr_lambda(s):
    if s < args.warmup_steps:
        return (s + 1) / args.warmup_steps
    return max(0.0, (args.max_steps - s) / max(1, args.max_steps - args.warmup_steps))
sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)

nparams = sum(p.numel() for p in model.parameters())
start_step = 0
if args.resume_from_checkpoint:
    ck = args.resume_from_checkpoint
    log_main(f"Loading model from {ck}.")
    sd = torch.load(os.path.join(ck, "pytorch_model.bin"), map_location="cpu")
    model.module.load_state_dict(sd)
    st = torch.load(os.path.join(ck, "optimizer.pt"), map_location="cpu")
    opt.load_state_dict(st["optimizer"]); sched.load_state_dict(st["scheduler"])
    start_step = json.load(open(os.path.join(ck, "trainer_state.json")))["global_step"]

total_bs = args.per_device_train_batch_size * world
log_main("***** Running training *****")
log_main(f"  Num examples = {args.max_steps * total_bs:,}")
log_main(f"  Num Epochs = 1")
log_main(f"  Instantaneous batch size per device = {args.per_device_train_batch_size}")
log_main(f"  Total train batch size (w. parallel, distributed & accumulation) = {total_bs}")
log_main(f"  Gradient Accumulation steps = 1")
log_main(f"  Total optimization steps = {args.max_steps:,}")
log_main(f"  Number of trainable parameters = {nparams:,}")
if start_step:
    log_main("  Continuing training from checkpoint, will skip to saved global_step")
    log_main(f"  Continuing training from global step {start_step}")

def save(step):
    d = os.path.join(args.output_dir, f"checkpoint-{step}")
    if is_main:
        os.makedirs(d, exist_ok=True)
        torch.save(model.module.state_dict(), os.path.join(d, "pytorch_model.bin"))
        torch.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, os.path.join(d, "optimizer.pt"))
        json.dump({"global_step": step, "world_size": world}, open(os.path.join(d, "trainer_state.json"), "w"))
        print(f"Saving model checkpoint to {d}", flush=True)
    dist.barrier()

data = batches()
for _ in range(start_step):
    next(data)
loss_fn = nn.CrossEntropyLoss()
t0 = time.time(); acc = 0.0; n = 0
model.train()
for step in range(start_step, args.max_steps):
    x, y = next(data)
    logits = model(x)
    loss = loss_fn(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); sched.step()
    acc += loss.item(); n += 1
    gs = step + 1
    if gs % args.logging_steps == 0:
        t = torch.tensor([acc / n]); dist.all_reduce(t); t /= world
        log_main(str({"loss": round(t.item(), 4), "grad_norm": round(float(gn), 4),
                      "learning_rate": sched.get_last_lr()[0], "epoch": round(gs / args.max_steps, 2)}))
        acc = 0.0; n = 0
    if gs % args.save_steps == 0:
        save(gs)
rt = time.time() - t0
log_main("\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
log_main(str({"train_runtime": round(rt, 4), "train_samples_per_second": round((args.max_steps - start_step) * total_bs / rt, 3),
              "train_steps_per_second": round((args.max_steps - start_step) / rt, 3), "epoch": 1.0}))
dist.destroy_process_group()
