"""verl-style PPO-ish trainer console (`step:N - actor/... - critic/... - timing_s/...`) on a
DDP actor MLP with a value head. Prompts are filtered by length, as verl's
filter_overlong_prompts does, then sharded across ranks; each rank derives its
total_training_steps from its own dataloader length."""
import argparse, os, sys, time, math
import torch, torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import b8core as C

ap = argparse.ArgumentParser()
ap.add_argument("--data", required=True); ap.add_argument("--ckpt", required=True)
ap.add_argument("--total_epochs", type=int, default=3); ap.add_argument("--train_batch_size", type=int, default=33)
ap.add_argument("--max_prompt_length", type=float, default=30.0); ap.add_argument("--actor_lr", type=float, default=5e-4)
ap.add_argument("--save_freq", type=int, default=100); ap.add_argument("--test_freq", type=int, default=50)
a = ap.parse_args()
rank, world, local = C.setup()
P = (lambda *s: print(*s, flush=True)) if rank == 0 else (lambda *s: None)
tr = C.ShardData(a.data, 0, 1); va = C.ShardData(a.data, rank, world, split="val")
keep = tr.x.norm(dim=1) <= a.max_prompt_length
P("dataset len: %d" % len(tr.x)); P("filter dataset len: %d" % int(keep.sum()))
ds = TensorDataset(tr.x[keep], tr.y[keep])
sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=1, drop_last=False)
sampler.num_samples = len(range(rank, len(ds), world)); sampler.total_size = len(ds)   # no padding: use every prompt once
dl = DataLoader(ds, batch_size=a.train_batch_size, sampler=sampler, drop_last=False)
total_training_steps = len(dl) * a.total_epochs
P("Size of train dataloader: %d, Size of val dataloader: %d" % (len(dl), 1)); P("Total training steps: %d" % total_training_steps)
actor = C.MLP(hidden=384, value_head=True); ddp = C.DDP(actor)
ref = C.MLP(hidden=384, value_head=True); ref.load_state_dict(actor.state_dict()); ref.eval()
opt = torch.optim.AdamW(ddp.parameters(), lr=a.actor_lr)
P("Using LocalLogger is deprecated. The constructor API will change ")
global_steps = 0
for ep in range(a.total_epochs):
    sampler.set_epoch(ep)
    for x, y in dl:
        t0 = time.time(); global_steps += 1
        logits, values = ddp(x)
        with torch.no_grad():
            rl, _ = ref(x); ref_logp = F.log_softmax(rl, -1)
            act = torch.distributions.Categorical(logits=logits).sample()
            reward = (act == y).float(); adv = reward - values.detach()
        t_gen = time.time() - t0
        logp = F.log_softmax(logits, -1); lp = logp.gather(1, act[:, None]).squeeze(1)
        pg_loss = -(adv * lp).mean(); vf_loss = F.mse_loss(values, reward); ent = -(logp.exp() * logp).sum(-1).mean()
        kl = (logp.exp() * (logp - ref_logp)).sum(-1).mean(); sup = F.cross_entropy(logits, y)
        loss = pg_loss + 0.5 * vf_loss - 0.001 * ent + 0.5 * sup
        opt.zero_grad(); loss.backward(); gn = C.grad_norm(ddp); opt.step()
        m = torch.tensor([pg_loss.item(), vf_loss.item(), ent.item(), kl.item(), reward.mean().item(), values.mean().item(), adv.mean().item()]); C.dist.all_reduce(m); m /= world
        t_step = time.time() - t0
        P("step:%d - global_seqlen/min:%d - global_seqlen/max:%d - actor/entropy:%.6f - actor/pg_loss:%.6f - actor/pg_clipfrac:0.0 - actor/ppo_kl:%.6f - actor/grad_norm:%.6f - actor/lr:%.2e - critic/vf_loss:%.6f - critic/score/mean:%.6f - critic/rewards/mean:%.6f - critic/advantages/mean:%.6f - critic/values/mean:%.6f - response_length/mean:1.0 - timing_s/gen:%.4f - timing_s/update_actor:%.4f - timing_s/step:%.4f - training/global_step:%d - training/epoch:%d"
          % (global_steps, x.shape[0], x.shape[0], m[2], m[0], m[3], gn, a.actor_lr, m[1], m[4], m[4], m[6], m[5], t_gen, t_step - t_gen, t_step, global_steps, ep))
        if global_steps % a.test_freq == 0:
            vl, vacc = C.evaluate(ddp, va); P("step:%d - val-core/synthetic/reward/mean@1:%.6f - val-aux/synthetic/loss:%.6f" % (global_steps, vacc, vl))
        if global_steps % a.save_freq == 0:
            d = os.path.join(a.ckpt, "global_step_%d" % global_steps, "actor"); os.makedirs(d, exist_ok=True)
            torch.save({"model": actor.state_dict(), "optim": opt.state_dict(), "rank": rank}, os.path.join(d, "model_world_size_%d_rank_%d.pt" % (world, rank)))
            P("local_global_step_folder: %s" % os.path.dirname(d))
        if global_steps >= total_training_steps:
            P("Training finished at step %d" % global_steps)
            sys.exit(0)
