# b17 run trainer: small CTR model (embedding bags + MLP) trained with DDP over gloo.
# Several console formats (STYLE env): swin, dlrm, dll, vdm.
import os, sys, time, math, glob, datetime, logging
import numpy as np
from scipy.special import expit
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

E = os.environ.get
STYLE = E("STYLE", "dlrm"); STEPS = int(E("STEPS", "300")); SLEEP = float(E("STEP_SLEEP", "0.1"))
DATA = E("DATA_DIR", "/tmp/data"); MODE = E("DATA_MODE", "load"); BS = int(E("BATCH", "256"))
LOG_EVERY = int(E("LOG_EVERY", "10")); EVAL_EVERY = int(E("EVAL_EVERY", "0")); VAL = E("VAL_DIR", "")
CKPT = E("CKPT_DIR", ""); SAVE_EVERY = int(E("SAVE_EVERY", "0")); PG_TIMEOUT = int(E("PG_TIMEOUT", "120"))
EPOCHS = int(E("EPOCHS", "3")); AMP_SCALER = E("AMP_SCALER", "0") == "1"
torch.set_num_threads(1)

rank = int(E("RANK", "0")); ws = int(E("WORLD_SIZE", "1")); lrank = int(E("LOCAL_RANK", "0"))
host = os.uname().nodename

if STYLE == "swin":
    os.makedirs(E("OUT_DIR", "/tmp/out"), exist_ok=True)
    log = logging.getLogger("mixer_ctr_tiny_p4")
    log.setLevel(logging.DEBUG); log.propagate = False
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter("[%(asctime)s %(name)s] (%(filename)s %(lineno)d): %(levelname)s %(message)s", datefmt="%Y-%m-%d %H:%M:%S"))
    log.addHandler(h)
    fh = logging.FileHandler(os.path.join(E("OUT_DIR", "/tmp/out"), f"log_rank{rank}.txt"), mode="a")
    fh.setFormatter(h.formatter); log.addHandler(fh)
    info = log.info
elif STYLE == "dll":
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO, stream=sys.stdout)
    blog = logging.getLogger("run_pretraining")
    def dll(step, **kv):
        ts = datetime.datetime.now().strftime("%Y-%m-%dT%H:%M:%S.%f")
        body = " ".join(f"{k} : {v}" for k, v in kv.items())
        print(f"DLL {ts} - {step} {body} ", flush=True)
else:
    pass

def vdm(msg):
    print(f"[vdm {datetime.datetime.now().strftime('%H:%M:%S.%f')[:-3]}] r{rank}/{ws} {msg}", flush=True)

class CTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.ModuleList([nn.EmbeddingBag(1000, 16, mode="sum") for _ in range(4)])
        self.bot = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(16 * 5, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 1))
    def forward(self, dense, sparse):
        z = [self.bot(dense)] + [e(sparse[:, i:i + 1]) for i, e in enumerate(self.emb)]
        return self.top(torch.cat(z, 1)).squeeze(1)

_cache = {}
def shard_rows(path):
    if MODE == "mmapcache":
        if path not in _cache:
            _cache[path] = np.load(path, mmap_mode="r")
        return _cache[path]
    return np.load(path)

def get_batch(files, step):
    f = files[(step * ws + rank) % len(files)]
    a = shard_rows(f)
    off = (step * 97 * BS) % (a.shape[0] - BS)
    b = np.array(a[off:off + BS], dtype=np.float32)
    return torch.from_numpy(b[:, 0]), torch.from_numpy(b[:, 1:14]), torch.from_numpy(b[:, 14:].astype(np.int64))

def auc_np(y, p):
    o = np.argsort(p); r = np.empty(len(p)); r[o] = np.arange(1, len(p) + 1)
    npos = y.sum(); nneg = len(y) - npos
    return (r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)

def evaluate(model, vfiles):
    ys, ps = [], []
    with torch.no_grad():
        for f in vfiles:
            a = np.load(f)
            for off in range(0, a.shape[0] - BS + 1, BS):
                b = a[off:off + BS]
                p = expit(model(torch.from_numpy(b[:, 1:14]), torch.from_numpy(b[:, 14:].astype(np.int64))).numpy())
                ys.append(b[:, 0]); ps.append(p)
    y = np.concatenate(ys).astype(np.float64); p = np.concatenate(ps).astype(np.float64)
    pred = (p > 0.5).astype(np.float64)
    tp = (pred * y).sum(); fp = (pred * (1 - y)).sum(); fn = ((1 - pred) * y).sum()
    loss = float(-(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)).mean())
    recall = tp / (tp + fn); precision = tp / (tp + fp); f1 = 2 * precision * recall / (precision + recall)
    o = np.argsort(-p); cum = np.cumsum(y[o]); ap = float((cum / np.arange(1, len(y) + 1) * y[o]).sum() / y.sum())
    return loss, recall, precision, f1, ap, auc_np(y, p), (pred == y).mean() * 100

def main():
    t_start = time.time()
    if STYLE == "dlrm":
        print(f"world size: {ws}, current rank: {rank}, local rank: {lrank}", flush=True)
        print("Using CPU...", flush=True)
    elif STYLE == "dll":
        blog.info("device: cpu n_gpu: 1, distributed training: %s, 16-bits training: False", ws > 1)
    elif STYLE == "swin":
        info(f"Full config saved to {E('OUT_DIR', '/tmp/out')}/config.json")
    elif STYLE == "vdm":
        vdm(f"host={host} local_rank={lrank} data={DATA} steps={STEPS}")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=PG_TIMEOUT))
    torch.manual_seed(1234)
    model = CTR(); ddp = DDP(model)
    opt = torch.optim.Adagrad(ddp.parameters(), lr=0.05)
    scaler = torch.cuda.amp.GradScaler(enabled=False) if AMP_SCALER else None
    lossf = nn.BCEWithLogitsLoss()
    files = sorted(glob.glob(os.path.join(DATA, "part-*.npy")))
    vfiles = sorted(glob.glob(os.path.join(VAL, "part-*.npy"))) if VAL else []
    nparam = sum(p.numel() for p in model.parameters())
    per_epoch = STEPS // EPOCHS
    if STYLE == "dlrm":
        print(f"model params: {nparam}, shards: {len(files)}", flush=True)
        print("time/loss/accuracy (if enabled):", flush=True)
    elif STYLE == "dll":
        dll("PARAMETER", seed=1234, train_batch_size=BS, max_steps=STEPS, learning_rate=0.05, world_size=ws, num_shards=len(files))
        blog.info("***** Running training *****")
        blog.info("  Num shards = %d", len(files))
        blog.info("  Batch size = %d", BS)
    elif STYLE == "swin":
        info("Creating model:mixer_ctr/tiny_p4")
        info(f"number of params: {nparam}")
        info("Start training")
    elif STYLE == "vdm":
        vdm(f"model params {nparam/1e3:.1f}K | shards {len(files)} | pg_timeout {PG_TIMEOUT}s")
    t_last = time.time(); tl = 0.0; cnt = 0; avg_loss = None; best_auc = 0.0; best_acc = 0.0
    gn_avg = None; bt_avg = None; ep_t = time.time()
    for step in range(1, STEPS + 1):
        t0 = time.time()
        y, dense, sparse = get_batch(files, step)
        out = ddp(dense, sparse); loss = lossf(out, y)
        opt.zero_grad(); loss.backward()
        gn = float(torch.nn.utils.clip_grad_norm_(ddp.parameters(), 10.0))
        opt.step()
        lv = loss.item(); tl += lv; cnt += 1
        avg_loss = lv if avg_loss is None else 0.98 * avg_loss + 0.02 * lv
        time.sleep(SLEEP)
        bt = time.time() - t0; bt_avg = bt if bt_avg is None else (bt_avg * (step - 1) + bt) / step
        gn_avg = gn if gn_avg is None else (gn_avg * (step - 1) + gn) / step
        epoch = (step - 1) // per_epoch; it = (step - 1) % per_epoch
        if step % LOG_EVERY == 0:
            dt = time.time() - t_last; t_last = time.time()
            if STYLE == "dlrm":
                print("Finished training it {}/{} of epoch {}, {:.2f} ms/it,".format(it + 1, per_epoch, epoch, 1000 * dt / cnt) + " loss {:.6f}".format(tl / cnt), flush=True)
            elif STYLE == "dll":
                dll(f"Training Epoch: {epoch} Training Iteration: {step}", average_loss=round(avg_loss, 6), step_loss=round(lv, 6), learning_rate=0.05)
            elif STYLE == "swin":
                eta = datetime.timedelta(seconds=int(bt_avg * (per_epoch - it - 1)))
                info(f"Train: [{epoch}/{EPOCHS}][{it}/{per_epoch}]\teta {eta} lr {0.05:.6f}\t wd {0.0:.4f}\ttime {bt:.4f} ({bt_avg:.4f})\tloss {lv:.4f} ({tl / cnt:.4f})\tgrad_norm {gn:.4f} ({gn_avg:.4f})\tloss_scale {65536.0:.4f} ({65536.0:.4f})\tmem 0MB")
            elif STYLE == "vdm":
                vdm(f"step {step:>5d}/{STEPS} loss_simple={lv:.4f} loss_vlb={lv * 0.013:.5f} snr_w={1 + 0.5 * math.cos(step / 50):.3f} clips/s={BS * cnt / dt / 16:.1f} lr={0.05:.2e}")
            tl = 0.0; cnt = 0
        if STYLE == "swin" and it == per_epoch - 1:
            info(f"EPOCH {epoch} training takes {datetime.timedelta(seconds=int(time.time() - ep_t))}"); ep_t = time.time()
        if EVAL_EVERY and step % EVAL_EVERY == 0 and vfiles and rank == 0:
            l, rc, pr, f1, ap, auc, acc = evaluate(model, vfiles)
            best_auc = max(best_auc, auc); best_acc = max(best_acc, acc)
            print("Testing at - {}/{} of epoch {},".format(it + 1, per_epoch, epoch) + " loss {:.6f}, recall {:.4f}, precision {:.4f},".format(l, rc, pr) + " f1 {:.4f}, ap {:.4f},".format(f1, ap) + " auc {:.4f}, best auc {:.4f},".format(auc, best_auc) + " accuracy {:3.3f} %, best accuracy {:3.3f} %".format(acc, best_acc), flush=True)
        if SAVE_EVERY and CKPT and step % SAVE_EVERY == 0:
            d = os.path.join(CKPT, f"step{step:06d}"); os.makedirs(d, exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "step": step}, os.path.join(d, f"rank{rank}.pt"))
            if STYLE == "dll":
                blog.info("Saved checkpoint %s", os.path.join(d, f"rank{rank}.pt"))
            elif STYLE == "swin":
                info(f"{d}/rank{rank}.pt saving......"); info(f"{d}/rank{rank}.pt saved !!!")
            elif STYLE == "vdm":
                vdm(f"checkpoint -> {d}/rank{rank}.pt")
            else:
                print(f"Saving model to {d}/rank{rank}.pt", flush=True)
    dist.barrier()
    el = time.time() - t_start
    if STYLE == "dll":
        dll("()", e2e_train_time=round(el, 2), training_sequences_per_second=round(STEPS * BS / el, 2), final_loss=round(avg_loss, 6))
    elif STYLE == "swin":
        info(f"Training time {datetime.timedelta(seconds=int(el))}")
    elif STYLE == "vdm":
        vdm(f"done: {STEPS} steps in {el:.1f}s")
    else:
        print(f"done. total time {el:.1f}s", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    main()
