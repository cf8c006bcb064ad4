"""fairseq_like.py -- language-model training loop that logs like fairseq 0.x
('| epoch 001:    40 / 200 loss=..., ppl=...' progress lines, '| epoch 001 | loss ...'
epoch summaries) and saves checkpoint<N>.pt / checkpoint_<e>_<u>.pt / checkpoint_last.pt."""
import argparse, math, os, shutil, socket, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b7core

p = argparse.ArgumentParser()
p.add_argument("data"); p.add_argument("--arch", default="transformer_lm_tiny")
p.add_argument("--save-dir", default="checkpoints"); p.add_argument("--restore-file", default="checkpoint_last.pt")
p.add_argument("--max-update", type=int, default=400); p.add_argument("--updates-per-epoch", type=int, default=200)
p.add_argument("--save-interval-updates", type=int, default=150); p.add_argument("--log-interval", type=int, default=25)
p.add_argument("--lr", type=float, default=5e-4); p.add_argument("--clip-norm", type=float, default=0.0)
p.add_argument("--max-sentences", type=int, default=16); p.add_argument("--tokens-per-sample", type=int, default=64)
p.add_argument("--seed", type=int, default=1); p.add_argument("--valid-batches", type=int, default=10)
args = p.parse_args()

rank, world, local = b7core.dist_env(timeout_s=120)
print("| distributed init (rank {}): env://".format(rank), flush=True)
print("| initialized host {} as rank {}".format(socket.gethostname(), rank), flush=True)
master = rank == 0
def mlog(s):
    if master: print(s, flush=True)

torch.manual_seed(args.seed)
mlog(str(args).replace("Namespace(", "Namespace(distributed_world_size={}, distributed_backend='gloo', ".format(world)))
mlog("| dictionary: 512 types")
train = b7core.Windows(os.path.join(args.data, "tokens.bin"), args.tokens_per_sample, args.seed + 17 * rank)
valid = b7core.Windows(os.path.join(args.data, "shard-00007.bin"), args.tokens_per_sample, 99)
mlog("| {} {} examples".format(args.data, len(train) // (args.tokens_per_sample + 1)))
model = b7core.TinyLM(ctx=args.tokens_per_sample)
mlog("| model {}, criterion CrossEntropyCriterion".format(args.arch))
n = b7core.nparams(model)
mlog("| num. model params: {} (num. trained: {})".format(n, n))
ddp = DDP(model)
opt = torch.optim.Adam(ddp.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-8)
mlog("| training on {} workers".format(world))
mlog("| max tokens per worker = None and max sentences per worker = {}".format(args.max_sentences))

os.makedirs(args.save_dir, exist_ok=True)
last = os.path.join(args.save_dir, args.restore_file)
epoch, num_updates = 1, 0
if os.path.exists(last):
    st = torch.load(last, map_location="cpu", weights_only=False)
    model.load_state_dict(st["model"]); opt.load_state_dict(st["last_optimizer_state"])
    epoch = st["extra_state"]["epoch"]; num_updates = st["extra_state"]["num_updates"]
    mlog("| loaded checkpoint {} (epoch {} @ {} updates)".format(last, epoch, num_updates))
else:
    mlog("| no existing checkpoint found {}".format(last))

def save(name_list, ep, nu, val):
    if not master: return
    t = time.time()
    st = {"args": vars(args), "model": model.state_dict(), "last_optimizer_state": opt.state_dict(),
          "extra_state": {"epoch": ep, "num_updates": nu, "val_loss": val, "train_iterator": {"epoch": ep}}}
    first = os.path.join(args.save_dir, name_list[0])
    torch.save(st, first)
    for nm in name_list[1:]:
        shutil.copyfile(first, os.path.join(args.save_dir, nm))
    print("| saved checkpoint {} (epoch {} @ {} updates) (writing took {:.2f} seconds)".format(
        first, ep, nu, time.time() - t), flush=True)

def avg(v):
    t = torch.tensor([float(v)]); dist.all_reduce(t); return t.item() / world

def validate(ep, nu):
    model.eval(); tot = 0.0
    with torch.no_grad():
        for _ in range(args.valid_batches):
            x, y = valid.batch(args.max_sentences); tot += b7core.lm_loss(model, x, y).item()
    model.train(); l = avg(tot / args.valid_batches) / math.log(2)
    mlog("| epoch {:03d} | valid on 'valid' subset | loss {:.3f} | ppl {:.2f} | num_updates {}".format(ep, l, 2 ** l, nu))
    return l

t_start = time.time(); train_wall = 0.0
wpb = args.max_sentences * args.tokens_per_sample * world
while num_updates < args.max_update:
    mlog("| loading train data for epoch {}".format(epoch))
    ep_losses = []; gnorms = []; t_ep = time.time(); i0 = num_updates % args.updates_per_epoch
    win = []; t_win = time.time()
    for i in range(i0, args.updates_per_epoch):
        t0 = time.time()
        x, y = train.batch(args.max_sentences)
        loss = b7core.lm_loss(ddp, x, y)
        opt.zero_grad(); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), args.clip_norm if args.clip_norm > 0 else float("inf"))
        if not torch.isfinite(gn):
            raise FloatingPointError("gradients are Nan/Inf")
        opt.step(); num_updates += 1; train_wall += time.time() - t0
        lb = loss.item() / math.log(2); ep_losses.append(lb); win.append(lb); gnorms.append(gn.item())
        if num_updates % args.log_interval == 0:
            el = time.time() - t_win; l = avg(sum(win) / len(win))
            mlog("| epoch {:03d}:  {:5d} / {} loss={:.3f}, ppl={:.2f}, wps={:.0f}, ups={:.1f}, wpb={}, bsz={}, num_updates={}, lr={:g}, gnorm={:.3f}, clip={:.3f}, oom=0.000, wall={:.0f}, train_wall={:.0f}".format(
                epoch, i + 1, args.updates_per_epoch, l, 2 ** l, wpb * len(win) / el, len(win) / el, wpb,
                args.max_sentences * world, num_updates, args.lr, sum(gnorms[-len(win):]) / len(win),
                0.0, time.time() - t_start, train_wall))
            win = []; t_win = time.time()
        if num_updates % args.save_interval_updates == 0 and i + 1 < args.updates_per_epoch:
            v = validate(epoch, num_updates)
            save(["checkpoint_{}_{}.pt".format(epoch, num_updates), "checkpoint_last.pt"], epoch, num_updates, v)
        if num_updates >= args.max_update:
            break
    el = time.time() - t_ep
    l = avg(sum(ep_losses) / max(1, len(ep_losses)))
    mlog("| epoch {:03d} | loss {:.3f} | ppl {:.2f} | wps {:.0f} | ups {:.1f} | wpb {} | bsz {} | num_updates {} | lr {:g} | gnorm {:.3f} | clip 0.000 | oom 0.000 | wall {:.0f} | train_wall {:.0f}".format(
        epoch, l, 2 ** l, wpb * len(ep_losses) / el, len(ep_losses) / el, wpb, args.max_sentences * world,
        num_updates, args.lr, sum(gnorms) / max(1, len(gnorms)), time.time() - t_start, train_wall))
    if num_updates % args.updates_per_epoch == 0:
        v = validate(epoch, num_updates)
        save(["checkpoint{}.pt".format(epoch), "checkpoint_last.pt"], epoch + 1, num_updates, v)
        epoch += 1
mlog("| done training in {:.1f} seconds".format(time.time() - t_start))
dist.destroy_process_group()
