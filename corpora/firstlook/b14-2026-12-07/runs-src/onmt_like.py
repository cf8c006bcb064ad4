"""OpenNMT-py-like trainer: '[asctime LEVEL] msg' logger, 'Step N/ M; acc: ...; ppl: ...' report lines from rank 0."""
import argparse, logging, math, os, sys, time
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b14common as C

p = argparse.ArgumentParser()
p.add_argument("-config", default="wmt14_ende.yaml"); p.add_argument("-data", required=True)
p.add_argument("-train_steps", type=int, default=200); p.add_argument("-report_every", type=int, default=10)
p.add_argument("-pace", type=float, default=0.15)
a = p.parse_args()
logging.basicConfig(format="[%(asctime)s %(levelname)s] %(message)s", level=logging.INFO, stream=sys.stdout)
logger = logging.getLogger()
logger.info("Missing transforms field for corpus_1 data, set to default: [].")
logger.info("Missing transforms field for valid data, set to default: [].")
logger.info("Parsed 2 corpora from -data.")
logger.info("Get special vocabs from Transforms: {'src': [], 'tgt': []}.")
rank, world, local = C.init_dist()
if rank != 0: logger.setLevel(logging.WARNING)
logger.info("The first 10 tokens of the vocabs are:['<unk>', '<blank>', '<s>', '</s>', ',', 'the', '.', 'of', 'and', 'to']")
logger.info("The decoder start token is: <s>")
logger.info("Building model...")
torch.manual_seed(3435)
model = C.TinyGPT(vocab=512, d=128, n_layer=2, n_head=4, block=64)
logger.info(f"NMTModel(\n  (encoder): TransformerEncoder(num_layers=2, d_model=128)\n  (decoder): TransformerDecoder(num_layers=2, d_model=128)\n  (generator): Linear(in_features=128, out_features=512, bias=False)\n)")
n = sum(p.numel() for p in model.parameters())
logger.info(f"encoder: {n // 2}"); logger.info(f"decoder: {n - n // 2}"); logger.info(f"* number of parameters: {n}")
logger.info(" * src vocab size = 512"); logger.info(" * tgt vocab size = 512")
logger.info("Starting training on CPU, could be very slow")
logger.info(f"Start training loop and validate every 100 steps...")
model = DDP(model)
opt = torch.optim.Adam(model.parameters(), lr=2.0, betas=(0.9, 0.998))
sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 128 ** -0.5 * min((s + 1) ** -0.5, (s + 1) * 400 ** -1.5))
files = C.shard_paths(a.data); rng = np.random.default_rng(rank)
t0 = time.time(); tot = [0.0, 0.0, 0]; start = time.time()
for step in range(1, a.train_steps + 1):
    arr = np.load(files[rng.integers(len(files))]); x = torch.from_numpy(arr[rng.integers(0, len(arr), 16)])
    out = model(x[:, :-1]); tgt = x[:, 1:]
    loss = F.cross_entropy(out.flatten(0, 1), tgt.flatten(), reduction="sum")
    opt.zero_grad(); (loss / tgt.numel()).backward(); opt.step(); sch.step(); time.sleep(a.pace)
    st = torch.tensor([loss.item(), (out.argmax(-1) == tgt).sum().item(), tgt.numel()], dtype=torch.float64); dist.all_reduce(st)
    tot[0] += st[0].item(); tot[1] += st[1].item(); tot[2] += int(st[2].item())
    if step % a.report_every == 0:
        el = time.time() - t0; t0 = time.time(); xent = tot[0] / tot[2]
        logger.info("Step %d/%5d; acc: %6.2f; ppl: %5.2f; xent: %4.2f; lr: %7.5f; sents: %7.0f; bsz: %4.0f/%4.0f/%2.0f; %3.0f/%3.0f tok/s; %6.0f sec"
                    % (step, a.train_steps, 100 * tot[1] / tot[2], math.exp(min(xent, 100)), xent, sch.get_last_lr()[0], 16 * world * a.report_every,
                       64, 64, 16, tot[2] / el, tot[2] / el, time.time() - start))
        tot = [0.0, 0.0, 0]
    if step % 100 == 0:
        logger.info(f"Saving checkpoint models/wmt14_ende_step_{step}.pt")
        if rank == 0: torch.save(model.module.state_dict(), os.path.join(os.path.dirname(a.data), f"wmt14_ende_step_{step}.pt"))
dist.destroy_process_group()
