# b22 trainer: small DDP (gloo/whatever DIST_BACKEND says) jobs launched by torchrun on synthetic data.
# Tasks: cls (32 features -> 10 classes), reg (32 -> 32 or 4 targets), tok (bigram LM over uint16 tokens),
#        bandit (contextual bandit, policy gradient).
# Console style chosen by STYLE: flashlight | torchreid | basicsr | tianshou | arcface | ppocr | ocp | rwkv | wlm | wenet
import os, sys, time, math, json, glob, signal, socket, datetime, logging, random, ctypes
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import Dataset, DataLoader

E = os.environ.get
I = lambda k, d: int(E(k, d))
STYLE = E("STYLE", "flashlight")
TASK = {"flashlight": "cls", "torchreid": "cls", "basicsr": "reg", "tianshou": "bandit", "arcface": "cls",
        "ppocr": "cls", "ocp": "reg", "rwkv": "tok", "wlm": "tok", "wenet": "cls"}[STYLE]
STEPS, LOG_EVERY, EVAL_EVERY, SAVE_EVERY = I("STEPS", 400), I("LOG_EVERY", 20), I("EVAL_EVERY", 100), I("SAVE_EVERY", 100)
BATCH, NW, PG_TIMEOUT, HID = I("BATCH", 16), I("NUM_WORKERS", 0), I("PG_TIMEOUT", 120), I("HIDDEN", 128)
EVAL_CHUNK = I("EVAL_CHUNK", 512)
LR, SLEEP = float(E("LR", "1e-3")), float(E("STEP_SLEEP", "0"))
DATA_DIR, CKPT_DIR, OUT_DIR = E("DATA_DIR", "/data"), E("CKPT_DIR", "/ckpt"), E("OUT_DIR", "./output")
EXP = E("EXP_NAME", "exp")
RESUME = E("RESUME", "0") == "1"
PRINT_ALL = E("PRINT_RANKS", "0") == "all"
HOST = socket.gethostname()

RANK, WORLD, LRANK = I("RANK", 0), I("WORLD_SIZE", 1), I("LOCAL_RANK", 0)
MAIN = RANK == 0
SAY = MAIN or PRINT_ALL
T0 = time.time()


def now_s():
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")


def hms(sec):
    return str(datetime.timedelta(seconds=int(max(sec, 0))))


# ------------------------------------------------------------------ logging per style
LOGFMT = {
    "basicsr": ("%(asctime)s %(levelname)s: %(message)s", None),
    "arcface": ("Training: %(asctime)s-%(message)s", None),
    "ppocr": ("[%(asctime)s] ppocr %(levelname)s: %(message)s", "%Y/%m/%d %H:%M:%S"),
    "ocp": ("%(asctime)s (%(levelname)s): %(message)s", "%Y-%m-%d %H:%M:%S"),
    "wenet": ("%(asctime)s %(levelname)s %(message)s", None),
    "wlm": ("%(message)s", None),
}
log = logging.getLogger(STYLE)
log.setLevel(logging.DEBUG)
log.propagate = False
if STYLE in LOGFMT:
    fmt = logging.Formatter(*LOGFMT[STYLE])
    sh = logging.StreamHandler(sys.stdout)
    sh.setFormatter(fmt)
    sh.setLevel(logging.DEBUG if SAY else logging.WARNING)
    log.addHandler(sh)
    lf = E("LOG_FILE")
    if lf and (MAIN or E("LOG_FILE_ALL_RANKS") == "1"):
        if not MAIN:
            lf = lf + ".rank%d" % RANK
        os.makedirs(os.path.dirname(lf), exist_ok=True)
        fh = logging.FileHandler(lf)
        fh.setFormatter(fmt)
        log.addHandler(fh)


def out(msg):
    """plain print() styles"""
    if SAY:
        print(msg, flush=True)


# ------------------------------------------------------------------ data
class Rows(Dataset):
    def __init__(self, path, ydim):
        a = np.load(path)
        self.x = torch.from_numpy(a[:, :32].copy())
        self.y = torch.from_numpy(a[:, 32:].copy()) if ydim > 1 else torch.from_numpy(a[:, 32].astype(np.int64))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def shards():
    return sorted(glob.glob(os.path.join(DATA_DIR, "shard-*.npy")))


YDIM = {"cls": 1, "reg": int(E("YDIM", "32")), "tok": 1, "bandit": 1}[TASK]
V = 512


class TokSource:
    """uint16 token stream; rwkv style keeps a per-node copy in /dev/shm and memory-maps it"""
    def __init__(self):
        src = os.path.join(DATA_DIR, "tokens.bin")
        if STYLE == "rwkv":
            shm = os.path.join(E("SHM_DIR", "/dev/shm"), "rwkv-%s-tokens.bin" % E("TORCHELASTIC_RUN_ID", "x"))
            if LRANK == 0 and not os.path.exists(shm):
                np.fromfile(src, dtype=np.uint16).tofile(shm + ".tmp")
                os.replace(shm + ".tmp", shm)
            while not os.path.exists(shm):
                time.sleep(0.2)
            self.path = shm
            self.data = np.memmap(shm, dtype=np.uint16, mode="r")
        else:
            self.path = src
            self.data = np.fromfile(src, dtype=np.uint16)
        self.valid = np.fromfile(os.path.join(DATA_DIR, "valid.bin"), dtype=np.uint16)
        self.rng = np.random.default_rng(1000 + RANK)
        self.pos = RANK * (len(self.data) // WORLD)

    def batch(self, T=32):
        if STYLE == "rwkv":
            idx = self.rng.integers(0, len(self.data) - T - 1, size=BATCH)
        else:
            span = len(self.data) // WORLD
            idx = [RANK * span + (self.pos + k * T) % (span - T - 1) for k in range(BATCH)]
            self.pos = (self.pos + BATCH * T) % (span - T - 1)
        a = np.stack([np.asarray(self.data[i:i + T + 1], dtype=np.int64) for i in idx])
        return torch.from_numpy(a[:, :-1]), torch.from_numpy(a[:, 1:])


# ------------------------------------------------------------------ models
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        if TASK == "tok":
            self.emb = nn.Embedding(V, HID)
            self.head = nn.Linear(HID, V)
        else:
            nout = {"cls": 10, "reg": YDIM, "bandit": 10}[TASK]
            if STYLE == "arcface":
                nout = 64
            self.body = nn.Sequential(nn.Linear(32, HID), nn.GELU(), nn.Linear(HID, HID), nn.GELU())
            self.head = nn.Linear(HID, nout)
            if STYLE == "arcface":
                self.fc = nn.Parameter(torch.randn(10, 64) * 0.01)
            if STYLE == "wenet":
                self.ctc = nn.Linear(HID, 10)

    def forward(self, x):
        if TASK == "tok":
            return self.head(self.emb(x))
        h = self.body(x)
        if STYLE == "wenet":
            return self.head(h), self.ctc(h)
        if STYLE == "arcface":
            return F.linear(F.normalize(self.head(h)), F.normalize(self.fc))
        return self.head(h)


def compute_loss(model, xb, yb):
    """returns loss tensor and dict of float metrics"""
    if TASK == "tok":
        lg = model(xb)
        loss = F.cross_entropy(lg.reshape(-1, V), yb.reshape(-1))
        return loss, {"acc": (lg.argmax(-1) == yb).float().mean().item()}
    if STYLE == "wenet":
        att, ctc = model(xb)
        la, lc = F.cross_entropy(att, yb) * 20, F.cross_entropy(ctc, yb) * 25
        return 0.7 * la + 0.3 * lc, {"loss_att": la.item(), "loss_ctc": lc.item(), "acc": (att.argmax(1) == yb).float().mean().item()}
    if STYLE == "arcface":
        cos = model(xb)
        s, m = 64.0, 0.35
        logits = s * (cos - m * F.one_hot(yb, 10))
        return F.cross_entropy(logits, yb), {"acc": (cos.argmax(1) == yb).float().mean().item()}
    if TASK == "cls":
        lg = model(xb)
        return F.cross_entropy(lg, yb), {"acc": (lg.argmax(1) == yb).float().mean().item()}
    if TASK == "reg":
        p = model(xb)
        if STYLE == "ocp":
            pe = p[:, :1] if E("ENERGY_HEAD_KEEPDIM", "0") == "1" else p[:, 0]
            ye = yb[:, 0]
            le = F.mse_loss(pe, ye)
            lf = F.l1_loss(p[:, 1:], yb[:, 1:])
            return le + 10 * lf, {"energy_mae": (pe.reshape(-1) - ye).abs().mean().item(),
                                  "forces_mae": lf.item(),
                                  "forces_cos": F.cosine_similarity(p[:, 1:], yb[:, 1:]).mean().item()}
        l = F.l1_loss(p, yb)
        return l, {}
    raise ValueError(TASK)


# ------------------------------------------------------------------ native feature extractor (optional)
_fb = None


def native_fbank(x):
    global _fb
    if _fb is None:
        lib = ctypes.CDLL(E("FBANK_LIB"))
        f = lib.fbank_compute
        f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
        f.restype = ctypes.c_int
        _fb = f
    x = np.ascontiguousarray(x.numpy(), dtype=np.float32)
    o = np.empty_like(x)
    rc = _fb(x.ctypes.data, x.size, o.ctypes.data, o.size)
    if rc != 0:
        raise RuntimeError("fbank_compute returned %d" % rc)
    return torch.from_numpy(o)


# ------------------------------------------------------------------ eval
def evaluate(model):
    model.eval()
    tot = torch.zeros(6, dtype=torch.float64)
    with torch.no_grad():
        if TASK == "tok":
            v = SRC.valid
            n = (len(v) - 1) // 32
            for k in range(RANK, n, WORLD):
                xb = torch.from_numpy(v[k * 32:k * 32 + 32].astype(np.int64))[None]
                yb = torch.from_numpy(v[k * 32 + 1:k * 32 + 33].astype(np.int64))[None]
                l, m = compute_loss(model.module, xb, yb)
                tot += torch.tensor([l.item() * 32, m["acc"] * 32, 32, 0, 0, 0], dtype=torch.float64)
        elif TASK == "bandit":
            rng = np.random.default_rng(5000 + RANK)
            xs = torch.from_numpy(rng.normal(size=(256, 32)).astype(np.float32))
            best = (xs @ WB).argmax(1)
            a = model.module(xs).argmax(1)
            r = (a == best).float()
            tot += torch.tensor([r.sum().item(), (r ** 2).sum().item(), len(r), 0, 0, 0], dtype=torch.float64)
        else:
            a = np.load(os.path.join(DATA_DIR, "heldout.npy"), mmap_mode="r")[RANK::WORLD]
            a = np.ascontiguousarray(a)
            x = torch.from_numpy(a[:, :32].copy())
            y = torch.from_numpy(a[:, 32:].copy()) if YDIM > 1 else torch.from_numpy(a[:, 32].astype(np.int64))
            if E("FBANK_LIB") and STYLE == "wenet":
                x = native_fbank(x)
            ch = EVAL_CHUNK if EVAL_CHUNK > 0 else len(x)
            for i in range(0, len(x), ch):
                xb, yb = x[i:i + ch], y[i:i + ch]
                l, m = compute_loss(model.module, xb, yb)
                k = len(xb)
                tot += torch.tensor([l.item() * k, m.get("acc", 0) * k, k, m.get("energy_mae", 0) * k,
                                     m.get("forces_mae", 0) * k, m.get("loss_ctc", 0) * k], dtype=torch.float64)
    dist.all_reduce(tot)
    model.train()
    n = tot[2].item()
    if TASK == "bandit":
        mu = tot[0].item() / n
        return {"rew": mu, "rew_std": math.sqrt(max(tot[1].item() / n - mu * mu, 0))}
    return {"loss": tot[0].item() / n, "acc": tot[1].item() / n, "energy_mae": tot[3].item() / n,
            "forces_mae": tot[4].item() / n, "loss_ctc": tot[5].item() / n, "n": int(n)}


# ------------------------------------------------------------------ checkpoints
def ckpt_paths(step):
    if STYLE == "basicsr":
        return (os.path.join(CKPT_DIR, "models", "net_g_%d.pth" % step),
                os.path.join(CKPT_DIR, "training_states", "%d.state" % step))
    if STYLE == "torchreid":
        return (os.path.join(CKPT_DIR, "model.pth.tar-%d" % (step // SPE)), None)
    if STYLE == "tianshou":
        return (os.path.join(CKPT_DIR, "checkpoint.pth"), None)
    if STYLE == "wlm":
        return (os.path.join(CKPT_DIR, "model.pt"), None)
    if STYLE == "wenet":
        return (os.path.join(CKPT_DIR, "%d.pt" % (step // SPE)), None)
    return (os.path.join(CKPT_DIR, "step_%06d.pt" % step), None)


def save(model, opt, sched, step, epoch):
    mp, sp = ckpt_paths(step)
    if not MAIN:
        return mp
    os.makedirs(os.path.dirname(mp), exist_ok=True)
    if sp:
        os.makedirs(os.path.dirname(sp), exist_ok=True)
        torch.save(model.module.state_dict(), mp)
        torch.save({"epoch": epoch, "iter": step, "optimizers": [opt.state_dict()],
                    "schedulers": [sched.state_dict()]}, sp)
    elif STYLE == "wlm":
        torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "step": step}, mp + ".tmp")
        os.replace(mp + ".tmp", mp)
    else:
        torch.save({"model": model.module.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                    "step": step, "epoch": epoch}, mp)
    return mp


def try_resume(model, opt, sched):
    """returns (step, epoch, path) or None"""
    if STYLE == "basicsr":
        st = sorted(glob.glob(os.path.join(CKPT_DIR, "training_states", "*.state")),
                    key=lambda p: int(os.path.basename(p).split(".")[0]))
        if not st:
            return None
        path = st[-1]
        state = torch.load(path, map_location="cpu", weights_only=False)
        it = state["iter"]
        model.module.load_state_dict(torch.load(os.path.join(CKPT_DIR, "models", "net_g_%d.pth" % it), map_location="cpu"))
        opt.load_state_dict(state["optimizers"][0])
        sched.load_state_dict(state["schedulers"][0])
        return it, state["epoch"], path
    cands = sorted(glob.glob(os.path.join(CKPT_DIR, "*.p*")))
    if STYLE == "tianshou":
        cands = [os.path.join(CKPT_DIR, "checkpoint.pth")] if os.path.exists(os.path.join(CKPT_DIR, "checkpoint.pth")) else []
    if not cands:
        return None
    path = cands[-1]
    c = torch.load(path, map_location="cpu", weights_only=False)
    model.module.load_state_dict(c["model"])
    opt.load_state_dict(c["optimizer"])
    if "scheduler" in c:
        sched.load_state_dict(c["scheduler"])
    return c["step"], c.get("epoch", 0), path


# ------------------------------------------------------------------ styles: start/step/eval/save lines
def cfg_dump():
    return dict(task=TASK, hidden=HID, batch_size=BATCH, lr=LR, max_steps=STEPS, log_every=LOG_EVERY,
                eval_every=EVAL_EVERY, save_every=SAVE_EVERY, num_workers=NW, data_dir=DATA_DIR, ckpt_dir=CKPT_DIR,
                world_size=WORLD)


def on_start(nparams, ntrain):
    c = cfg_dump()
    if STYLE == "flashlight":
        out("Parsing command line flags")
        out("Gflags after parsing \n--flagfile=; --fromenv=; --tryfromenv=; --undefok=; --tab_completion_columns=80; "
            "--tab_completion_word=; --help=false; --arch=mlp_%d; --batchsize=%d; --lr=%g; --iter=%d; --reportiters=%d; "
            "--rundir=%s; --train=%s; --valid=dev:%s; --enable_distributed=true; --world_rank=%d; --world_size=%d;"
            % (HID, BATCH, LR, STEPS, LOG_EVERY, OUT_DIR, DATA_DIR, os.path.join(DATA_DIR, "heldout.npy"), RANK, WORLD))
        out("Experiment path: %s" % OUT_DIR)
        out("Experiment runidx: 1")
        out("Number of classes (network): 10")
        out("[Network] Sequential [input -> (0) -> (1) -> (2) -> (3) -> (4) -> output]\n\t(0): Linear (32->%d) (with bias)\n"
            "\t(1): GELU\n\t(2): Linear (%d->%d) (with bias)\n\t(3): GELU\n\t(4): Linear (%d->10) (with bias)" % (HID, HID, HID, HID))
        out("[Network Params: %d]" % nparams)
        out("[Criterion] CrossEntropy")
        out("[Network Optimizer] Adam (lr=%g)" % LR)
        out("[Criterion Optimizer] SGD")
        out("Shuffling trainset")
        out("Epoch 1 started!")
    elif STYLE == "torchreid":
        out("Show configuration\n" + "\n".join("%s: %s" % kv for kv in c.items()))
        out("Collecting env info ...")
        out("** System info **\nPyTorch version: %s\nIs debug build: False\nCUDA used to build PyTorch: None\n" % torch.__version__)
        out("Building train transforms ...\n+ resize to 256x128\n+ random flip\n+ to torch tensor of range [0, 1]\n"
            "+ normalization (mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])")
        out("=> Loading train (source) dataset\n=> Loaded Market1501\n  ----------------------------------------\n"
            "  subset   | # ids | # images | # cameras\n  ----------------------------------------\n"
            "  train    |    10 | %8d |         6\n  ----------------------------------------" % ntrain)
        out("Building model: osnet_x0_25\nModel complexity: params=%s flops=n/a" % format(nparams, ","))
        out("=> Start training")
    elif STYLE == "basicsr":
        log.info("\n                ____                _       _____  ____\n               / __ ) ____ _ _____ (_)_____/ ___/ / __ \\\n"
                 "              / __  |/ __ `// ___// // ___/\\__ \\ / /_/ /\n             / /_/ // /_/ /(__  )/ // /__ ___/ // _, _/\n"
                 "            /_____/ \\__,_//____//_/ \\___//____//_/ |_|\n     ______                   __   __                 __      __\n"
                 "    / ____/____   ____   ____/ /  / /   __  __ _____ / /__   / /\n   / / __ / __ \\ / __ \\ / __  /  / /   / / / // ___// //_/  / /\n"
                 "  / /_/ // /_/ // /_/ // /_/ /  / /___/ /_/ // /__ / /<     /_/\n  \\____/ \\____/ \\____/ \\____/  /_____/\\____/ \\___//_/|_|  (_)\n    ")
        log.info("Version Information: \n\tBasicSR: 1.4.2\n\tPyTorch: %s\n\tTorchVision: n/a" % torch.__version__)
        log.info("\n  name: %s\n  model_type: SRModel\n  scale: 4\n  num_gpu: %d\n  manual_seed: 0\n  datasets:[\n    train:[\n"
                 "      name: DIV2K_sub\n      type: PairedImageDataset\n      dataroot_gt: %s\n      batch_size_per_gpu: %d\n"
                 "      num_worker_per_gpu: %d\n    ]\n  ]\n  path:[\n    experiments_root: %s\n    models: %s/models\n"
                 "    training_states: %s/training_states\n  ]\n  train:[\n    optim_g:[\n      type: Adam\n      lr: %g\n    ]\n"
                 "    total_iter: %d\n    pixel_opt:[\n      type: L1Loss\n      loss_weight: 1.0\n    ]\n  ]\n"
                 "  logger:[\n    print_freq: %d\n    save_checkpoint_freq: %d\n  ]\n  dist: True\n  rank: 0\n  world_size: %d\n  auto_resume: %s\n"
                 % (EXP, WORLD, DATA_DIR, BATCH, NW, OUT_DIR, CKPT_DIR, CKPT_DIR, LR, STEPS, LOG_EVERY, SAVE_EVERY, WORLD, RESUME))
        log.info("Dataset [PairedImageDataset] - DIV2K_sub is built.")
        log.info("Training statistics:\n\tNumber of train images: %d\n\tDataset enlarge ratio: 1\n\tBatch size per gpu: %d\n"
                 "\tWorld size (gpu number): %d\n\tRequire iter number per epoch: %d\n\tTotal epochs: %d; iters: %d."
                 % (ntrain, BATCH, WORLD, SPE, math.ceil(STEPS / SPE), STEPS))
        log.info("Dataset [PairedImageDataset] - DIV2K_val is built.")
        log.info("Number of val images/folders in val_set: %d" % 2048)
        log.info("Network [MSRResNet] is created.")
        log.info("Network: DistributedDataParallel - MSRResNet, with parameters: %s" % format(nparams, ",d"))
        log.info("Loss [L1Loss] is created.")
        log.info("Model [SRModel] is created.")
    elif STYLE == "tianshou":
        out("Observations shape: (32,)\nActions shape: 10\nAction range: 0 9")
        out("Collecting %d steps with the initial policy" % (BATCH * WORLD))
    elif STYLE == "arcface":
        log.info("rank_id: %d" % RANK)
        for k, v in [("network", "mlp_%d" % HID), ("embedding_size", 64), ("margin_list", "(1.0, 0.0, 0.35)"),
                     ("sample_rate", 1.0), ("fp16", False), ("batch_size", BATCH), ("lr", LR), ("num_classes", 10),
                     ("num_image", ntrain), ("num_epoch", math.ceil(STEPS / SPE)), ("warmup_epoch", 0),
                     ("val_targets", "['lfw']"), ("output", OUT_DIR), ("rec", DATA_DIR), ("verbose", EVAL_EVERY),
                     ("frequent", LOG_EVERY), ("dali", False), ("seed", 2048), ("num_workers", NW),
                     ("total_batch_size", BATCH * WORLD), ("warmup_step", 0), ("total_step", STEPS)]:
            log.info(": %-25s%s" % (k, v))
        log.info("loading bin:0")
    elif STYLE == "ppocr":
        log.info("Architecture : ")
        log.info("    Backbone : ")
        log.info("        name : MLP")
        log.info("        hidden : %d" % HID)
        log.info("    Head : ")
        log.info("        name : CTCHead")
        log.info("    model_type : rec")
        log.info("Global : ")
        for k, v in [("cal_metric_during_train", True), ("epoch_num", math.ceil(STEPS / SPE)), ("eval_batch_step", [0, EVAL_EVERY]),
                     ("print_batch_step", LOG_EVERY), ("save_epoch_step", 1), ("save_model_dir", CKPT_DIR),
                     ("use_gpu", False), ("distributed", True)]:
            log.info("    %s : %s" % (k, v))
        log.info("Optimizer : ")
        log.info("    lr : ")
        log.info("        learning_rate : %g" % LR)
        log.info("    name : Adam")
        log.info("---------------------------------------------")
        log.info("train with paddle 2.6.1 and device Place(cpu)")
        log.info("Initialize indexs of datasets:['%s']" % os.path.join(DATA_DIR, "train_list.txt"))
        log.info("Initialize indexs of datasets:['%s']" % os.path.join(DATA_DIR, "heldout.npy"))
        log.info("train dataloader has %d iters" % SPE)
        log.info("valid dataloader has %d iters" % 4)
        log.info("During the training process, after the %dth iteration, an evaluation is run every %d iterations" % (0, EVAL_EVERY))
    elif STYLE == "ocp":
        log.info("amp: %s\ncmd:\n  checkpoint_dir: %s\n  identifier: s2ef-mlp\n  logs_dir: %s\n  print_every: %d\n"
                 "  seed: 0\n  timestamp_id: %s\ndataset:\n  train:\n    format: npy\n    src: %s\noptim:\n  batch_size: %d\n"
                 "  eval_every: %d\n  lr_initial: %g\n  max_steps: %d\n  num_workers: %d\n  scheduler: LambdaLR\n"
                 "model:\n  name: mlp\n  hidden_channels: %d\ntask:\n  dataset: npy\n  train_on_free_atoms: true\n"
                 % ("true" if E("AMP", "0") == "1" else "false", CKPT_DIR, OUT_DIR, LOG_EVERY, datetime.datetime.now().strftime("%Y-%m-%d-%H-%M-%S"), DATA_DIR,
                    BATCH, EVAL_EVERY, LR, STEPS, NW, HID))
        log.info("Loading dataset: npy")
        log.info("Batch balancing is disabled for single GPU training.")
        log.info("Loading model: mlp")
        log.info("Loaded MLP with %d parameters." % nparams)
        log.info("Loading checkpoint from: None")
    elif STYLE == "rwkv":
        out("\n############################################################################\n#\n"
            "# RWKV-5 FP32 on 1x CPU, bsz 1x%dx%d=%d, deepspeed_stage_2 \n#\n# Data = %s (binidx), ProjDir = %s\n#\n"
            "# Epoch = 0 to %d (will continue afterwards), save every 1 epoch\n#\n# Each \"epoch\" = %d steps, %d samples, %d tokens\n#\n"
            "# Model = 1 n_layer, %d n_embd, 32 ctx_len\n#\n# Adam = lr %g to %g, warmup 0 steps, beta (0.9, 0.99), eps 1e-08\n#\n"
            "# Found torch %s, recommend 1.13.1+cu117 or newer\n# Found deepspeed None, recommend 0.7.0 (faster than newer versions)\n"
            "# Found pytorch_lightning None, recommend 1.9.5\n#\n############################################################################\n"
            % (WORLD, BATCH, WORLD * BATCH, DATA_DIR, OUT_DIR, STEPS // SPE - 1, SPE, SPE * BATCH * WORLD, SPE * BATCH * WORLD * 32,
               HID, LR, LR / 10, torch.__version__))
        out("Current vocab size = %d (make sure it's correct)" % V)
        out("Data has %d tokens." % len(SRC.data))
        out("########## Loading %s... ##########" % os.path.join(OUT_DIR, "rwkv-init.pth"))
    elif STYLE == "wlm":
        log.info("Namespace(data='%s', model='Transformer', emsize=%d, nhid=%d, lr=%g, epochs=%d, batch_size=%d, bptt=32, "
                 "log_interval=%d, save='%s', world_size=%d)" % (DATA_DIR, HID, HID, LR, math.ceil(STEPS / SPE), BATCH,
                                                                 LOG_EVERY, ckpt_paths(0)[0], WORLD))
        log.info("Number of parameters: %d" % nparams)
    elif STYLE == "wenet":
        log.info("training on multiple gpus, this gpu %d, rank %d, world_size %d" % (LRANK, RANK, WORLD))
        log.info("Checkpoint: save to checkpoint %s" % os.path.join(CKPT_DIR, "init.pt"))
        log.info("the number of model params: %s" % format(nparams, ",d"))
        log.info("use cmvn %s" % os.path.join(DATA_DIR, "global_cmvn"))


STATE = {}


def on_step(step, epoch, it_in_ep, loss, m, lr, dt_batch, dt_data):
    """called every LOG_EVERY steps on every rank (SAY decides whether printed)"""
    el = time.time() - T0
    eta = (STEPS - step) * (el / max(step - STATE.get("start_step", 0), 1))
    if STYLE == "torchreid":
        out("epoch: [%d/%d][%d/%d]\ttime %.3f (%.3f)\tdata %.3f (%.3f)\teta %s\tloss_t %.4f (%.4f)\tloss_x %.4f (%.4f)\tacc %.2f (%.2f)\tlr %.6f"
            % (epoch + 1, math.ceil(STEPS / SPE), it_in_ep, SPE, dt_batch, STATE["avg_bt"], dt_data, STATE["avg_dt"], hms(eta),
               loss * 0.12, STATE["avg_loss"] * 0.12, loss, STATE["avg_loss"], m.get("acc", 0) * 100, STATE["avg_acc"] * 100, lr))
    elif STYLE == "basicsr":
        log.info("[%s..][epoch:%3d, iter:%8s, lr:(%.3e,)] [eta: %s, time (data): %.3f (%.3f)] l_pix: %.4e "
                 % (EXP[:5], epoch, format(step, ",d"), lr, hms(eta), dt_batch, dt_data, loss))
    elif STYLE == "tianshou":
        out("Epoch #%d: %dit [%s, %.2fit/s, env_step=%d, len=1, loss=%.3f, n/ep=%d, n/st=%d, rew=%.2f]"
            % (epoch + 1, it_in_ep * BATCH * WORLD, time.strftime("%M:%S", time.gmtime(el)),
               (it_in_ep * BATCH * WORLD) / max(time.time() - STATE["ep_t0"], 1e-3), step * BATCH * WORLD, loss,
               BATCH * WORLD, BATCH * WORLD, m["rew"]))
    elif STYLE == "arcface":
        log.info("Speed %.2f samples/sec   Loss %.4f   LearningRate %.6f   Epoch: %d   Global Step: %d   Fp16 Grad Scale: %d   Required: %d hours"
                 % (BATCH * WORLD * LOG_EVERY / max(time.time() - STATE["lt"], 1e-3), STATE["avg_loss"], lr, epoch, step, 0, int(eta // 3600)))
    elif STYLE == "ppocr":
        log.info("epoch: [%d/%d], global_step: %d, lr: %.6f, acc: %.6f, norm_edit_dis: %.6f, loss: %.6f, avg_reader_cost: %.5f s, "
                 "avg_batch_cost: %.5f s, avg_samples: %.1f, ips: %.5f samples/s, eta: %s"
                 % (epoch + 1, math.ceil(STEPS / SPE), step, lr, m.get("acc", 0), 1 - (1 - m.get("acc", 0)) * 0.55, loss,
                    STATE["avg_dt"], STATE["avg_bt"], float(BATCH), BATCH / max(STATE["avg_bt"], 1e-6), hms(eta)))
    elif STYLE == "ocp":
        log.info("energy_forces_within_threshold: %.2e, energy_mae: %.2e, forcesx_mae: %.2e, forcesy_mae: %.2e, forcesz_mae: %.2e, "
                 "forces_mae: %.2e, forces_cos: %.2e, forces_magnitude_error: %.2e, loss: %.2e, lr: %.2e, epoch: %.2e, step: %.2e"
                 % (0.0, m["energy_mae"], m["forces_mae"] * 1.02, m["forces_mae"] * 0.97, m["forces_mae"] * 1.01, m["forces_mae"],
                    m["forces_cos"], m["forces_mae"] * 1.4, loss, lr, step / SPE, step))
    elif STYLE == "rwkv":
        out("Epoch %d:  %3d%%|%s| %d/%d [%s<%s, %.2fit/s, loss=%.3f, lr=%.2e, REAL it/s=%.3f, Kt/s=%.2f]"
            % (epoch, int(100 * it_in_ep / SPE), ("#" * int(10 * it_in_ep / SPE)).ljust(10), it_in_ep, SPE,
               time.strftime("%M:%S", time.gmtime(el)), time.strftime("%M:%S", time.gmtime(eta)),
               LOG_EVERY / max(time.time() - STATE["lt"], 1e-3), loss, lr, LOG_EVERY / max(time.time() - STATE["lt"], 1e-3),
               LOG_EVERY * BATCH * WORLD * 32 / 1000 / max(time.time() - STATE["lt"], 1e-3)))
    elif STYLE == "wlm":
        log.info("| epoch %3d | %5d/%5d batches | lr %02.5f | ms/batch %5.2f | loss %5.2f | ppl %8.2f"
                 % (epoch + 1, it_in_ep, SPE, lr, 1000 * (time.time() - STATE["lt"]) / LOG_EVERY, STATE["avg_loss"],
                    math.exp(min(STATE["avg_loss"], 50))))
    elif STYLE == "wenet":
        log.debug("TRAIN Batch %d/%d loss %.6f loss_att %.6f loss_ctc %.6f lr %.8f rank %d"
                  % (epoch, it_in_ep, loss, m["loss_att"], m["loss_ctc"], lr, RANK))


def on_eval(step, epoch, ev):
    if STYLE == "flashlight":
        s = STATE
        out("epoch: %8d | nupdates: %12d | lr: %.6f | lrcriterion: %.6f | runtime: %s | bch(ms): %.2f | smp(ms): %.2f | "
            "fwd(ms): %.2f | crit-fwd(ms): %.2f | bwd(ms): %.2f | optim(ms): %.2f | loss: %10.5f | train-TER: %6.2f | "
            "train-WER: %6.2f | dev-loss: %10.5f | dev-TER: %6.2f | dev-WER: %6.2f | avg-isz: %04d | avg-tsz: %03d | "
            "max-tsz: %03d | hrs: %7.2f | thrpt(sec/sec): %.2f"
            % (epoch + 1, step, s["lr"], 0.0, time.strftime("%H:%M:%S", time.gmtime(time.time() - T0)), s["avg_bt"] * 1000,
               s["avg_dt"] * 1000, s["fwd"] * 1000, s["crit"] * 1000, s["bwd"] * 1000, s["opt"] * 1000, s["avg_loss"],
               (1 - s["avg_acc"]) * 61, (1 - s["avg_acc"]) * 100, ev["loss"], (1 - ev["acc"]) * 61, (1 - ev["acc"]) * 100,
               1255, 40, 75, step * BATCH * WORLD * 12.5 / 3600, BATCH * 12.5 / max(s["avg_bt"], 1e-6)))
    elif STYLE == "torchreid":
        out("##### Evaluating market1501 (source) #####\nExtracting features from query set ...\nDone, obtained %d-by-%d matrix"
            % (ev["n"], HID))
        out("Extracting features from gallery set ...\nDone, obtained %d-by-%d matrix\nSpeed: %.4f sec/batch" % (ev["n"] * 4, HID, 0.0123))
        out("Computing CMC and mAP ...\n** Results **\nmAP: %.1f%%\nCMC curve\nRank-1  : %.1f%%\nRank-5  : %.1f%%\nRank-10 : %.1f%%\nRank-20 : %.1f%%"
            % (ev["acc"] * 60, ev["acc"] * 100, min(100, ev["acc"] * 130), min(100, ev["acc"] * 145), min(100, ev["acc"] * 160)))
    elif STYLE == "basicsr":
        psnr = 10 * math.log10(4.0 / max(ev["loss"] ** 2 * 1.6, 1e-9))
        best = max(STATE.get("best", (0, 0)), (psnr, step))
        STATE["best"] = best
        log.info("Validation val_set\n\t # psnr: %.4f\tBest: %.4f @ %d iter\n" % (psnr, best[0], best[1]))
    elif STYLE == "tianshou":
        best = max(STATE.get("best", (-1, 0, 0)), (ev["rew"], ev["rew_std"], epoch + 1))
        STATE["best"] = best
        out("Epoch #%d: test_reward: %.6f ± %.6f, best_reward: %.6f ± %.6f in #%d"
            % (epoch + 1, ev["rew"], ev["rew_std"], best[0], best[1], best[2]))
    elif STYLE == "arcface":
        log.info("[lfw][%d]XNorm: %f" % (step, 21.3 + ev["acc"]))
        log.info("[lfw][%d]Accuracy-Flip: %1.5f+-%1.5f" % (step, 0.5 + ev["acc"] / 2, 0.02))
        STATE["best"] = max(STATE.get("best", 0), 0.5 + ev["acc"] / 2)
        log.info("[lfw][%d]Accuracy-Highest: %1.5f" % (step, STATE["best"]))
    elif STYLE == "ppocr":
        log.info("cur metric, acc: %s, norm_edit_dis: %s, fps: %s" % (ev["acc"], 1 - (1 - ev["acc"]) * 0.55, ev["n"] / 0.73))
        if ev["acc"] >= STATE.get("best", -1):
            STATE["best"], STATE["best_ep"] = ev["acc"], epoch + 1
            log.info("save best model is to %s" % os.path.join(CKPT_DIR, "best_accuracy"))
        log.info("best metric, acc: %s, is_float16: False, norm_edit_dis: %s, fps: %s, best_epoch: %d"
                 % (STATE["best"], 1 - (1 - STATE["best"]) * 0.55, ev["n"] / 0.73, STATE["best_ep"]))
    elif STYLE == "ocp":
        log.info("Evaluating on val.")
        log.info("energy_forces_within_threshold: %.4f, energy_mae: %.4f, forcesx_mae: %.4f, forcesy_mae: %.4f, forcesz_mae: %.4f, "
                 "forces_mae: %.4f, loss: %.4f, epoch: %.4f" % (0.0, ev["energy_mae"], ev["forces_mae"], ev["forces_mae"],
                                                               ev["forces_mae"], ev["forces_mae"], ev["loss"], step / SPE))
    elif STYLE == "rwkv":
        pass
    elif STYLE == "wlm":
        log.info("-" * 89)
        log.info("| end of epoch %3d | time: %5.2fs | valid loss %5.2f | valid ppl %8.2f"
                 % (epoch + 1, time.time() - STATE["ep_t0"], ev["loss"], math.exp(min(ev["loss"], 50))))
        log.info("-" * 89)
    elif STYLE == "wenet":
        log.debug("CV Batch %d/%d loss %.6f loss_att %.6f loss_ctc %.6f history loss %.6f rank %d"
                  % (epoch, ev["n"] // EVAL_CHUNK, ev["loss"], ev["loss"] * 0.9, ev["loss_ctc"], ev["loss"], RANK))
        log.info("Epoch %d CV info cv_loss %.6f" % (epoch, ev["loss"]))


def on_save(path, step, epoch):
    if STYLE == "torchreid":
        out('Checkpoint saved to "%s"' % path)
    elif STYLE == "basicsr":
        log.info("Saving models and training states.")
    elif STYLE == "ppocr":
        log.info("save model in %s" % os.path.join(CKPT_DIR, "latest"))
        log.info("save model in %s" % os.path.join(CKPT_DIR, "iter_epoch_%d" % (epoch + 1)))
    elif STYLE == "ocp":
        pass
    elif STYLE == "rwkv":
        pass
    elif STYLE == "wenet":
        log.info("Checkpoint: save to checkpoint %s" % path)


def on_epoch_end(step, epoch):
    if STYLE == "rwkv" and SAY:
        with open(os.path.join(OUT_DIR, "train_log.txt"), "a") as f:
            f.write("%d %.6f %.4f %.8f %s %d\n" % (epoch, STATE["ep_loss"], math.exp(STATE["ep_loss"]), STATE["lr"],
                                                    datetime.datetime.now(), epoch))
        out("Epoch %d: 100%%|##########| %d/%d [%s<00:00, loss=%.3f, lr=%.2e]"
            % (epoch, SPE, SPE, time.strftime("%M:%S", time.gmtime(time.time() - T0)), STATE["ep_loss"], STATE["lr"]))
    if STYLE == "arcface":
        pass


# ------------------------------------------------------------------ main
STOP = {"usr1": 0}


def _usr1(signum, frame):
    STOP["usr1"] = 1


def main():
    global SRC, WB, SPE
    signal.signal(signal.SIGUSR1, _usr1)
    torch.manual_seed(0)
    backend = E("DIST_BACKEND", "nccl")
    dist.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=PG_TIMEOUT))
    os.makedirs(OUT_DIR, exist_ok=True)
    SRC, WB = None, None
    if TASK == "tok":
        SRC = TokSource()
        SPE = I("STEPS_PER_EPOCH", 100)
        ntrain = len(SRC.data)
    elif TASK == "bandit":
        WB = torch.from_numpy(np.load(os.path.join(DATA_DIR, "env.npy")).astype(np.float32))
        SPE = I("STEPS_PER_EPOCH", 50)
        ntrain = 0
    else:
        rows = len(np.load(shards()[0], mmap_mode="r"))
        SPE = rows // BATCH
        ntrain = rows * len(shards())
    model = DDP(Net())
    nparams = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.1, 1 - s / max(STEPS, 1)))
    if STYLE == "ocp":
        sched.step()
        scaler = torch.cuda.amp.GradScaler() if E("AMP", "0") == "1" else None
    on_start(nparams, ntrain)
    step, epoch = 0, 0
    if RESUME:
        r = try_resume(model, opt, sched)
        if r:
            step, epoch, path = r
            if STYLE == "basicsr":
                log.info("Resuming training from epoch: %d, iter: %d." % (epoch, step))
            elif STYLE == "tianshou":
                out("Loaded agent from: %s" % path)
            else:
                out("resumed from %s at step %d" % (path, step))
        elif STYLE == "tianshou":
            out("Fail to restore policy and optim.")
    STATE.update(start_step=step, avg_bt=0.0, avg_dt=0.0, avg_loss=0.0, avg_acc=0.0, fwd=0.0, crit=0.0, bwd=0.0, opt=0.0,
                 lt=time.time(), ep_t0=time.time(), ep_loss=0.0, lr=LR)
    if STYLE == "basicsr":
        log.info("Start training from epoch: %d, iter: %d" % (epoch, step))
    if STYLE == "wenet":
        log.info("Epoch %d TRAIN info lr %s rank %d" % (epoch, opt.param_groups[0]["lr"], RANK))
    ema = lambda k, v: STATE.__setitem__(k, v if STATE[k] == 0 else 0.9 * STATE[k] + 0.1 * v)
    model.train()
    while step < STEPS:
        # ---- one epoch
        it_in_ep = step % SPE
        STATE["ep_t0"], ep_losses = time.time(), []
        if TASK in ("cls", "reg"):
            sh = shards()
            ds = Rows(sh[(epoch * WORLD + RANK) % len(sh)], YDIM)
            dl = DataLoader(ds, batch_size=BATCH, shuffle=True, num_workers=NW, drop_last=True,
                            generator=torch.Generator().manual_seed(epoch * 100 + RANK))
            it = iter(dl)
            for _ in range(it_in_ep):
                next(it)
        while it_in_ep < SPE and step < STEPS:
            t_a = time.time()
            if TASK in ("cls", "reg"):
                xb, yb = next(it)
            elif TASK == "tok":
                xb, yb = SRC.batch()
            t_b = time.time()
            if TASK == "bandit":
                rng = np.random.default_rng(step * 997 + RANK)
                xs = torch.from_numpy(rng.normal(size=(BATCH, 32)).astype(np.float32))
                lg = model(xs)
                dist_ = torch.distributions.Categorical(logits=lg)
                a = dist_.sample()
                r = (a == (xs @ WB).argmax(1)).float()
                loss = -(dist_.log_prob(a) * (r - r.mean())).mean() - 0.01 * dist_.entropy().mean()
                m = {"rew": r.mean().item()}
            else:
                loss, m = compute_loss(model, xb, yb)
            t_c = time.time()
            opt.zero_grad()
            loss.backward()
            t_d = time.time()
            opt.step()
            sched.step()
            t_e = time.time()
            if SLEEP:
                time.sleep(SLEEP)
            flag = torch.tensor([float(STOP["usr1"])])
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            step += 1
            it_in_ep += 1
            lv = loss.item()
            ep_losses.append(lv)
            ema("avg_bt", time.time() - t_a); ema("avg_dt", t_b - t_a); ema("avg_loss", lv); ema("avg_acc", m.get("acc", 0))
            ema("fwd", t_c - t_b); ema("crit", (t_c - t_b) * 0.1); ema("bwd", t_d - t_c); ema("opt", t_e - t_d)
            STATE["lr"] = opt.param_groups[0]["lr"]
            if step % LOG_EVERY == 0:
                on_step(step, epoch, it_in_ep, lv, m, STATE["lr"], time.time() - t_a, t_b - t_a)
                STATE["lt"] = time.time()
            if step % EVAL_EVERY == 0 and STYLE not in ("wlm", "tianshou", "wenet", "rwkv"):
                on_eval(step, epoch, evaluate(model))
            if step % SAVE_EVERY == 0 and STYLE not in ("wlm", "tianshou", "wenet", "torchreid", "ppocr"):
                on_save(save(model, opt, sched, step, epoch), step, epoch)
            if flag.item() > 0:
                p = save(model, opt, sched, step, epoch)
                out("Received SIGUSR1 at step %d (env_step=%d): saved %s, exiting so the job can be requeued"
                    % (step, step * BATCH * WORLD, p))
                dist.barrier()
                dist.destroy_process_group()
                return
        # ---- epoch end
        STATE["ep_loss"] = float(np.mean(ep_losses)) if ep_losses else 0.0
        on_epoch_end(step, epoch)
        if STYLE in ("wlm", "tianshou", "wenet"):
            on_eval(step, epoch, evaluate(model))
        if STYLE in ("wlm", "tianshou", "wenet", "torchreid", "ppocr"):
            on_save(save(model, opt, sched, step, epoch), step, epoch)
        epoch += 1
        if STYLE == "wenet" and step < STEPS:
            log.info("Epoch %d TRAIN info lr %s rank %d" % (epoch, opt.param_groups[0]["lr"], RANK))
    # ---- done
    if STYLE == "flashlight":
        out("Finished training")
    elif STYLE == "torchreid":
        out("Elapsed %s\nDone!" % hms(time.time() - T0))
    elif STYLE == "basicsr":
        log.info("End of training. Time consumed: %s" % hms(time.time() - T0))
        log.info("Save the latest model.")
        on_save(save(model, opt, sched, -1, epoch), -1, epoch)
    elif STYLE == "tianshou":
        out("Finished training! Use %.2fs" % (time.time() - T0))
    elif STYLE == "arcface":
        if MAIN:
            torch.save(model.module.state_dict(), os.path.join(OUT_DIR, "model.pt"))
    elif STYLE == "wlm":
        log.info("=" * 89)
        ev = evaluate(model)
        log.info("| End of training | test loss %5.2f | test ppl %8.2f" % (ev["loss"], math.exp(min(ev["loss"], 50))))
        log.info("=" * 89)
    elif STYLE == "ocp":
        log.info("Total time taken: %.4f" % (time.time() - T0))
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
