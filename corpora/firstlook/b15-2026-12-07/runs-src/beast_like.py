# monobeast/torchbeast-like distributed actor-learner RL loop (b15 trainer C). No SB3.
# Knows nothing about injected faults.
import os, sys, time, logging, pprint
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
import b15common as c

logging.basicConfig(format="[%(levelname)s:%(process)d %(module)s:%(lineno)d %(asctime)s] %(message)s", level=0, stream=sys.stdout)
rank, world, local_rank = c.setup()
T = c.env_int("UNROLL", 20); B = c.env_int("ENVS", 32); TOTAL = c.env_int("TOTAL_STEPS", 400000)
SAVE_DIR = os.environ.get("SAVEDIR", ""); SAVE_EVERY_S = c.env_float("SAVE_EVERY_S", 10); SLEEP = c.env_float("STEP_SLEEP", 0.0)
OBS, NA = 16, 4

class GridEnv:
    """batched random-goal corridor; reward 1 at goal, episode ends at goal or 50 steps"""
    def __init__(self, b, seed):
        self.g = torch.Generator().manual_seed(seed); self.b = b; self.reset(torch.ones(b, dtype=torch.bool))
    def reset(self, m):
        if not hasattr(self, "pos"):
            self.pos = torch.zeros(self.b, dtype=torch.long); self.goal = torch.zeros(self.b, dtype=torch.long); self.t = torch.zeros(self.b, dtype=torch.long); self.ret = torch.zeros(self.b)
        n = int(m.sum()); self.pos[m] = torch.randint(0, OBS, (n,), generator=self.g); self.goal[m] = torch.randint(0, OBS, (n,), generator=self.g); self.t[m] = 0; self.ret[m] = 0
    def obs(self):
        return F.one_hot(self.pos, OBS).float() - 0.5 * F.one_hot(self.goal, OBS).float()
    def step(self, a):
        self.pos = (self.pos + torch.tensor([-1, 1, 0, 0])[a]).clamp(0, OBS - 1); self.t += 1
        r = (self.pos == self.goal).float() - 0.01; self.ret += r
        done = (self.pos == self.goal) | (self.t >= 50); fin = self.ret[done].clone(); self.reset(done)
        return r, done, fin

class Net(nn.Module):
    def __init__(self):
        super().__init__(); self.core = nn.Sequential(nn.Linear(OBS, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU())
        self.pi = nn.Linear(256, NA); self.v = nn.Linear(256, 1)
    def forward(self, x):
        h = self.core(x); return self.pi(h), self.v(h).squeeze(-1)

env = GridEnv(B, 100 + rank); net = Net(); model = DDP(net)
opt = torch.optim.RMSprop(model.parameters(), lr=4.8e-4, eps=0.01, alpha=0.99)
step = 0; ck = os.path.join(SAVE_DIR, "model.tar") if SAVE_DIR else ""
if ck and os.path.exists(ck):
    logging.info("Loading checkpoint from %s", ck)
    sd = torch.load(ck, map_location="cpu"); net.load_state_dict(sd["model_state_dict"]); opt.load_state_dict(sd["optimizer_state_dict"]); step = sd["step"]
    logging.info("Resumed at step %d", step)
else:
    logging.info("Creating new model (rank %d of %d, host %s)", rank, world, os.uname().nodename)
last_ck = time.time(); timer = time.time(); last_step = step; returns = []
while step < TOTAL:
    obs_l, logp_l, v_l, r_l, d_l, ent_l = [], [], [], [], [], []
    for _ in range(T):
        o = env.obs(); lg, v = model(o); dist_a = torch.distributions.Categorical(logits=lg); a = dist_a.sample()
        r, d, fin = env.step(a); returns += fin.tolist()
        logp_l.append(dist_a.log_prob(a)); v_l.append(v); r_l.append(r); d_l.append(d.float()); ent_l.append(dist_a.entropy())
    with torch.no_grad():
        _, boot = model(env.obs())
    R = boot; rets = []
    for t in reversed(range(T)):
        R = r_l[t] + 0.99 * R * (1 - d_l[t]); rets.append(R)
    rets = torch.stack(rets[::-1]); V = torch.stack(v_l); adv = (rets - V).detach()
    pg = -(torch.stack(logp_l) * adv).mean(); bl = 0.5 * ((rets - V) ** 2).mean(); ent = -0.0006 * torch.stack(ent_l).mean()
    loss = pg + 0.5 * bl + ent
    opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(model.parameters(), 40.0); opt.step()
    step += T * B * world
    if SLEEP: time.sleep(SLEEP)
    if time.time() - timer > 5:
        sps = (step - last_step) / (time.time() - timer)
        stats = {"episode_returns": tuple(round(x, 2) for x in returns[-4:]), "mean_episode_return": (sum(returns) / len(returns)) if returns else None,
                 "total_loss": loss.item(), "pg_loss": pg.item(), "baseline_loss": bl.item(), "entropy_loss": ent.item()}
        logging.info("Steps %i @ %.1f SPS. Loss %f. %sStats:\n%s", step, sps, loss.item(),
                     "Return per episode: %.1f. " % stats["mean_episode_return"] if returns else "", pprint.pformat(stats))
        timer = time.time(); last_step = step; returns = []
    if ck and time.time() - last_ck > SAVE_EVERY_S:
        if rank == 0:
            logging.info("Saving checkpoint to %s", ck)
            torch.save({"model_state_dict": net.state_dict(), "optimizer_state_dict": opt.state_dict(), "step": step}, ck + ".part"); os.replace(ck + ".part", ck)
        last_ck = time.time()
logging.info("Learning finished after %d steps.", step)
dist.barrier(); dist.destroy_process_group()
