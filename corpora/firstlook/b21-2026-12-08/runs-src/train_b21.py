# b21 trainer: small DDP (gloo) jobs launched by torchrun, two tasks:
#   text : tiny causal transformer LM over word-token text parts (custom tokenizing collate)
#   feat : MLP classifier over float feature shards
# Epoch e of rank r reads part index (e % K) * WORLD + r, K = nparts // WORLD (read when the epoch starts).
# Console style chosen by STYLE: d2 | marian | hivemind | avalanche | ludwig | axolotl
import os, re, sys, time, json, glob, math, socket, datetime, logging, warnings, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import Dataset, DataLoader
from torch.distributed.elastic.multiprocessing.errors import record

E = os.environ.get
STYLE = E("STYLE", "d2")
TASK = E("TASK") or ("text" if STYLE in ("marian", "hivemind", "axolotl") else "feat")
HOST = socket.gethostname()
I = lambda k, d: int(E(k, d))
STEPS, LOG_EVERY, EVAL_EVERY, SAVE_EVERY = I("STEPS", 400), I("LOG_EVERY", 20), I("EVAL_EVERY", 100), I("SAVE_EVERY", 100)
BATCH, NW, PG_TIMEOUT = I("BATCH", 8), I("NUM_WORKERS", 0), I("PG_TIMEOUT", 120)
EVAL_WORKERS = I("EVAL_WORKERS", 0)
LR, SLEEP = float(E("LR", "2e-3")), float(E("STEP_SLEEP", "0"))
DATA_DIR, CKPT_DIR, OUT_DIR = E("DATA_DIR", "/data"), E("CKPT_DIR", "/ckpt"), E("OUT_DIR", "")
RUN_NAME, SAVE_MODE, RESUME = E("RUN_NAME", "run"), E("SAVE_MODE", "node"), E("RESUME", "0") == "1"


def model_cfg():
    c = dict(hidden_size=64, num_heads=4, ffn_size=128, num_layers=1)
    if E("MODEL_CONFIG"):
        with open(E("MODEL_CONFIG")) as f:
            c.update(json.load(f))
    return c


# ------------------------------------------------------------------ data
class Vocab:
    def __init__(self, path):
        with open(path) as f:
            self.itos = [l.strip() for l in f if l.strip()]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)


class TextPart(Dataset):
    def __init__(self, path):
        with open(path) as f:
            self.lines = [l.rstrip("\n") for l in f if l.strip()]

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return self.lines[i]


class TokenizeCollate:
    """maps words to ids with the job's vocabulary file, prepends <s>, returns (inputs, targets)"""
    def __init__(self, vocab):
        self.stoi, self.bos = vocab.stoi, vocab.stoi["<s>"]

    def __call__(self, lines):
        ids = [[self.bos] + [self.stoi[w] for w in ln.split()] for ln in lines]
        t = torch.tensor(ids, dtype=torch.long)
        return t[:, :-1], t[:, 1:]


class FeatPart(Dataset):
    def __init__(self, path):
        a = np.load(path)
        self.x, self.y = torch.from_numpy(a[:, :32].copy()), torch.from_numpy(a[:, 32].astype(np.int64))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def part_paths():
    return sorted(glob.glob(os.path.join(DATA_DIR, "part-*.txt" if TASK == "text" else "feat-*.npy")))


# ------------------------------------------------------------------ models
class TinyLM(nn.Module):
    def __init__(self, V, c):
        super().__init__()
        D = c["hidden_size"]
        self.embed = nn.Embedding(V, D)
        self.pos = nn.Parameter(torch.zeros(40, D))
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(D, c["num_heads"], c["ffn_size"], dropout=0.0, batch_first=True,
                                                                norm_first=True) for _ in range(c["num_layers"]))
        self.norm = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, V)

    def forward(self, x):
        T = x.shape[1]
        m = torch.triu(torch.full((T, T), float("-inf")), 1)
        h = self.embed(x) + self.pos[:T]
        for l in self.layers:
            h = l(h, src_mask=m)
        return self.lm_head(self.norm(h))


class MLPCls(nn.Module):
    def __init__(self, c):
        super().__init__()
        D = c["hidden_size"] * 2
        self.stem = nn.Sequential(nn.Linear(32, D), nn.GELU(), nn.Linear(D, D), nn.GELU())
        self.cls_head = nn.Linear(D, 10)

    def forward(self, x):
        return self.cls_head(self.stem(x))


# ------------------------------------------------------------------ console styles
def now():
    return datetime.datetime.now()


class Console:
    """base: print to stdout"""
    def __init__(self, rank, world, lrank):
        self.rank, self.world, self.lrank, self.t0 = rank, world, lrank, time.time()
        self.main = rank == 0

    def p(self, s, err=False):
        print(s, file=sys.stderr if err else sys.stdout, flush=True)


class _D2Formatter(logging.Formatter):
    def __init__(self, color, abbrev):
        self.color, self.abbrev = color, abbrev
        pre = "[%(asctime)s %(name)s]: "
        super().__init__(("\x1b[32m" + pre + "\x1b[0m" if color else pre) + "%(message)s", datefmt="%m/%d %H:%M:%S")

    def formatMessage(self, record):
        record.name = record.name.replace("detectron2.", "d2.")
        log = super().formatMessage(record)
        if not self.color:
            return log
        if record.levelno == logging.WARNING:
            return "\x1b[5m\x1b[31mWARNING\x1b[0m " + log
        if record.levelno >= logging.ERROR:
            return "\x1b[4m\x1b[5m\x1b[31mERROR\x1b[0m " + log
        return log


class D2(Console):
    """detectron2-like: colored stdout on the main process, plain log.txt / log.txt.rankN files in OUT_DIR"""
    def __init__(self, *a):
        super().__init__(*a)
        self.loggers = {}
        self.handlers = []
        if self.main:
            h = logging.StreamHandler(sys.stdout); h.setFormatter(_D2Formatter(E("D2_COLOR", "1") == "1", True)); self.handlers.append(h)
        if OUT_DIR:
            os.makedirs(OUT_DIR, exist_ok=True)
            fn = os.path.join(OUT_DIR, "log.txt" if self.rank == 0 else "log.txt.rank%d" % self.rank)
            h = logging.FileHandler(fn); h.setFormatter(_D2Formatter(False, True)); self.handlers.append(h)
        self.hist = []

    def L(self, name):
        if name not in self.loggers:
            lg = logging.getLogger(name); lg.setLevel(logging.DEBUG); lg.propagate = False
            for h in self.handlers:
                lg.addHandler(h)
            self.loggers[name] = lg
        return self.loggers[name]

    def start(self, model, n_params, info):
        self.L("detectron2").info("Rank of current process: %d. World size: %d" % (self.rank, self.world))
        self.L("detectron2").info("Command line arguments: Namespace(config_file='configs/tab-cls/mlp_R32_1x.yaml', resume=%s, "
                                  "eval_only=False, num_gpus=%d, num_machines=%s, machine_rank=%s, dist_url='env://', opts=[])"
                                  % (RESUME, int(E("LOCAL_WORLD_SIZE", "1")), E("GROUP_WORLD_SIZE", "1"), E("GROUP_RANK", "0")))
        self.L("detectron2").info("Full config saved to %s" % os.path.join(OUT_DIR or "output", "config.yaml"))
        self.L("detectron2.engine.defaults").info("Model:\n%s" % model)
        self.L("detectron2.data.build").info("Using training sampler TrainingSampler")
        self.L("detectron2.data.common").info("Serializing %d elements to byte tensors and concatenating them all ..." % info["n"])
        self.L("detectron2.data.common").info("Serialized dataset takes %.2f MiB" % (info["n"] * 132 / 2 ** 20))

    def resumed(self, path, step):
        self.L("fvcore.common.checkpoint").info("[Checkpointer] Loading from %s ..." % path)
        self.L("detectron2.engine.hooks").info("Loading scheduler from state_dict ...")

    def train_begin(self, step):
        self.L("detectron2.engine.train_loop").info("Starting training from iteration %d" % step)

    def step(self, s):
        self.hist.append(s)
        if not self.main or (s["step"] + 1) % LOG_EVERY:
            return
        w = self.hist[-20:]
        med = lambda k: float(np.median([x[k] for x in w]))
        eta = datetime.timedelta(seconds=int(med("dt") * (STEPS - s["step"] - 1)))
        self.L("detectron2.utils.events").info(
            " eta: %s  iter: %d  total_loss: %.4g  loss_cls: %.4g  loss_reg: %.4g  time: %.4f  last_time: %.4f  data_time: %.4f  "
            "last_data_time: %.4f   lr: %.6g  max_mem: %dM" % (eta, s["step"], med("loss"), med("loss"), med("reg"), med("dt"), s["dt"],
                                                              med("data"), s["data"], s["lr"], int(s["maxrss"])))

    def eval_begin(self, n):
        self.L("detectron2.evaluation.evaluator").info("Start inference on %d batches" % n)

    def eval_end(self, s, m, dt, n):
        self.L("detectron2.evaluation.evaluator").info("Total inference time: %s (%.6f s / iter per device, on %d devices)"
                                                       % (datetime.timedelta(seconds=int(dt)), dt / max(n, 1), self.world))
        self.L("detectron2.evaluation.evaluator").info("Total inference pure compute time: %s (%.6f s / iter per device, on %d devices)"
                                                       % (datetime.timedelta(seconds=int(dt * 0.8)), 0.8 * dt / max(n, 1), self.world))
        if self.main:
            self.L("detectron2.evaluation.testing").info("copypaste: Task: classification")
            self.L("detectron2.evaluation.testing").info("copypaste: top1,top5,loss")
            self.L("detectron2.evaluation.testing").info("copypaste: %.4f,%.4f,%.4f" % (m["top1"], m["top5"], m["loss"]))

    def save(self, path, s):
        self.L("fvcore.common.checkpoint").info("Saving checkpoint to %s" % path)

    def epoch_end(self, ep, s):
        pass

    def done(self, s, total):
        self.L("detectron2.engine.hooks").info("Overall training speed: %d iterations in %s (%.4f s / it)"
                                               % (s["iters"], datetime.timedelta(seconds=int(total)), total / max(s["iters"], 1)))
        self.L("detectron2.engine.hooks").info("Total training time: %s (%s on hooks)"
                                               % (datetime.timedelta(seconds=int(total)), datetime.timedelta(seconds=int(s["hooks"]))))

    def fail(self, msg, exc=True):
        (self.L("detectron2.engine.train_loop").exception if exc else self.L("detectron2.engine.train_loop").error)(msg)


class Marian(Console):
    """marian-like: '[YYYY-mm-dd HH:MM:SS] ...' lines, progress/valid/save on rank 0, setup lines on all ranks"""
    def ts(self):
        return now().strftime("[%Y-%m-%d %H:%M:%S]")

    def m(self, s, err=False):
        self.p("%s %s" % (self.ts(), s), err)

    def start(self, model, n_params, info):
        self.m("[config] Loaded model config from %s" % (E("MODEL_CONFIG") or "defaults"))
        self.m("[comm] Using global sharding")
        self.m("[comm] Initialized gloo process group, rank %d of %d on %s" % (self.rank, self.world, HOST))
        self.m("[data] Loading vocabulary from text file %s" % info["vocab"])
        self.m("[data] Setting vocabulary size for input 0 to %s" % format(info["V"], ","))
        self.m("[memory] Reserving %d MB, device cpu%d" % (max(1, n_params * 16 // 2 ** 20), self.lrank))
        if self.main:
            self.m("[training] Using %d GPUs" % self.world)
            self.m("[model] Parameter count: %s" % format(n_params, ","))

    def resumed(self, path, step):
        self.m("[training] Loading model from %s" % path)
        self.m("[training] Master parameters and optimizers restored from training checkpoint %s, update %d" % (path, step))

    def train_begin(self, step):
        if self.main:
            self.m("Training started")
        self.m("[data] Shuffling data")

    def epoch_begin(self, ep, path, n):
        self.m("[data] Done reading %s sentences from %s" % (format(n, ","), os.path.basename(path)))
        self.m("[data] Done shuffling %s sentences to temp files" % format(n, ","))

    def step(self, s):
        if not self.main or s["step"] % LOG_EVERY:
            return
        el = time.time() - getattr(self, "tlast", self.t0); self.tlast = time.time()
        words = s["words"] * self.world
        self.m("Ep. %d : Up. %d : Sen. %s : Cost %.8f * %s @ %s after %s : Time %.2fs : %.2f words/s : gNorm %.4f : L.r. %.4e"
               % (s["ep"] + 1, s["step"], format(s["sen"] * self.world, ","), s["loss"], format(words * LOG_EVERY, ","),
                  format(words, ","), format(s["tok_total"] * self.world, ","), el, words * LOG_EVERY / max(el, 1e-6),
                  s["gnorm"], s["lr"]))

    def eval_begin(self, n):
        pass

    def eval_end(self, s, m, dt, n):
        if self.main:
            tag = "new best" if m["loss"] < getattr(self, "best", 1e9) else "stalled 1 times (last best: %.5f)" % self.best
            self.best = min(m["loss"], getattr(self, "best", 1e9))
            self.m("[valid] Ep. %d : Up. %d : cross-entropy : %.5f : %s" % (s["ep"] + 1, s["step"], m["loss"], tag))
            self.m("[valid] Ep. %d : Up. %d : perplexity : %.5f : %s" % (s["ep"] + 1, s["step"], math.exp(m["loss"]), tag))

    def save(self, path, s):
        if SAVE_MODE == "rank" and not self.main:
            self.m("Saving optimizer shard %d to %s" % (self.rank, path))
            return
        self.m("Saving model weights and runtime parameters to %s" % path)
        self.m("Saving Adam parameters")

    def saved(self, path, s):
        if self.main:
            self.m("[training] Saved training checkpoint at update %d" % s["step"])

    def epoch_end(self, ep, s):
        if self.main:
            self.m("Seen %s samples" % format(s["sen"] * self.world, ","))
            self.m("Starting data epoch %d in logical epoch %d" % (ep + 2, ep + 2))

    def done(self, s, total):
        if self.main:
            self.m("Training finished")
            self.m("Total time: %.5fs wall" % total)

    def fail(self, msg, exc=True):
        self.m("Error: %s" % msg, True)


class Hivemind(Console):
    """hivemind-like: 'Mon DD HH:MM:SS.mmm [LEVEL] [module.func:line] message' on every peer"""
    def h(self, lvl, where, msg):
        t = now()
        self.p("%s.%03d [%s] [%s] %s" % (t.strftime("%b %d %H:%M:%S"), t.microsecond // 1000, lvl, where, msg))

    def start(self, model, n_params, info):
        self.peer = "%s.%d" % (HOST, self.lrank)
        self.h("INFO", "__main__.main:214", "Using config: %s" % json.dumps(info["mcfg"], sort_keys=True))
        self.h("INFO", "__main__.main:231", "Model parameters: %s, vocab %d" % (format(n_params, ","), info["V"]))
        self.h("INFO", "hivemind.optim.optimizer.__init__:262", "%s joined collaboration %s as peer %d/%d"
               % (self.peer, RUN_NAME, self.rank, self.world))

    def resumed(self, path, step):
        self.h("INFO", "hivemind.optim.state_averager.load_state_from_peers:683", "Loaded state from %s (epoch %d)" % (path, step))

    def train_begin(self, step):
        self.h("INFO", "hivemind.optim.optimizer.step:411", "Starting from local epoch %d" % step)

    def epoch_begin(self, ep, path, n):
        self.h("INFO", "__main__.TextShardDataset.load:92", "Loaded %d samples from %s" % (n, os.path.basename(path)))

    def step(self, s):
        if s["step"] % LOG_EVERY:
            return
        self.h("INFO", "hivemind.optim.progress_tracker._parse_swarm_progress_data:297",
               "%s accumulated %d samples for epoch #%d from %d peers. ETA %.2f sec (refresh in %.3f sec)"
               % (self.peer, s["sen"] * self.world, s["step"], self.world, 0.0, 0.5))
        if self.main:
            self.h("INFO", "__main__.CollaborativeCallback.on_step_end:118", "Step #%d loss = %.5f (lr %.3e, %.1f samples/s)"
                   % (s["step"], s["loss"], s["lr"], s["sps"] * self.world))

    def eval_begin(self, n):
        pass

    def eval_end(self, s, m, dt, n):
        if self.main:
            self.h("INFO", "__main__.CollaborativeCallback.on_step_end:131", "Step #%d eval loss = %.5f, ppl = %.3f" %
                   (s["step"], m["loss"], math.exp(m["loss"])))

    def save(self, path, s):
        self.h("INFO", "__main__.CheckpointHandler.save_state:77", "Saving collaboration state to %s" % path)

    def epoch_end(self, ep, s):
        pass

    def done(self, s, total):
        self.h("INFO", "__main__.main:290", "Finished %d steps in %.1f sec, shutting down" % (s["step"], total))

    def fail(self, msg, exc=True):
        self.h("ERROR", "__main__.main:301", msg)


class Avalanche(Console):
    """avalanche-like TextLogger on the main process: each epoch's part is an 'experience'"""
    def start(self, model, n_params, info):
        if self.main:
            self.p("[Strategy] Naive(model=%s, optimizer=AdamW, train_mb_size=%d, train_epochs=1, eval_every=-1, device=cpu, "
                   "distributed=True, world_size=%d)" % (type(model).__name__, BATCH, self.world))

    def resumed(self, path, step):
        if self.main:
            self.p("[Checkpoint] Resumed from %s (iteration %d)" % (path, step))

    def train_begin(self, step):
        pass

    def epoch_begin(self, ep, path, n):
        self.cur = ep
        if self.main:
            self.p("-- >> Start of training phase << --")
            self.p("-- Starting training on experience %d (Task 0) from train stream --" % ep)

    def step(self, s):
        pass

    def eval_begin(self, n):
        if self.main:
            self.p("-- >> Start of eval phase << --")
            self.p("-- Starting eval on experience 0 (Task 0) from test stream --")

    def eval_end(self, s, m, dt, n):
        if self.main:
            self.p("> Eval on experience 0 (Task 0) from test stream ended.")
            self.p("\tLoss_Exp/eval_phase/test_stream/Task000/Exp000 = %.4f" % m["loss"])
            self.p("\tTop1_Acc_Exp/eval_phase/test_stream/Task000/Exp000 = %.4f" % (m["top1"] / 100))
            self.p("-- >> End of eval phase << --")
            self.p("\tLoss_Stream/eval_phase/test_stream/Task000 = %.4f" % m["loss"])
            self.p("\tTop1_Acc_Stream/eval_phase/test_stream/Task000 = %.4f" % (m["top1"] / 100))

    def save(self, path, s):
        if self.main:
            self.p("[Checkpoint] saved %s" % path)

    def epoch_end(self, ep, s):
        if self.main:
            self.p("Epoch 0 ended.")
            self.p("\tLoss_Epoch/train_phase/train_stream/Task000 = %.4f" % s["ep_loss"])
            self.p("\tRunningTime_Epoch/train_phase/train_stream/Task000 = %.4f" % s["ep_time"])
            self.p("\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = %.4f" % s["ep_acc"])
            self.p("-- >> End of training phase << --")

    def done(self, s, total):
        if self.main:
            self.p("Training completed in %.2f s" % total)

    def fail(self, msg, exc=True):
        self.p(msg, True)


def box(rows, header=None):
    """tabulate-like fancy_grid table"""
    cols = list(zip(*([header] if header else []) + rows)) if rows or header else []
    w = [max(len(str(c)) for c in col) for col in cols]
    line = lambda l, m, r, f: l + m.join(f * (x + 2) for x in w) + r
    isnum = lambda c: re.fullmatch(r"-?[0-9.]+(e-?[0-9]+)?", str(c)) is not None
    fmt = lambda r: "│" + "│".join(" " + (str(c).rjust(w[i]) if isnum(c) else str(c).ljust(w[i])) + " " for i, c in enumerate(r)) + "│"
    out = [line("╒", "╤", "╕", "═")]
    if header:
        out += [fmt(header), line("╞", "╪", "╡", "═")]
    for i, r in enumerate(rows):
        out.append(fmt(r))
        if i < len(rows) - 1:
            out.append(line("├", "┼", "┤", "─"))
    out.append(line("╘", "╧", "╛", "═"))
    return "\n".join(out)


class Ludwig(Console):
    """ludwig-like: boxed tables on the main process"""
    def start(self, model, n_params, info):
        if not self.main:
            return
        self.p(box([["EXPERIMENT DESCRIPTION"]]))
        self.p(box([["Experiment name", RUN_NAME], ["Model name", "run"], ["Output directory", os.path.join(OUT_DIR or "results", RUN_NAME)],
                    ["ludwig_version", "'0.10.4'"], ["command", "'train.py --config config.yaml --dataset shards/'"],
                    ["random_seed", "42"], ["data_format", "'numpy'"], ["torch_version", "'%s'" % torch.__version__],
                    ["compute", "{'num_nodes': %s, 'world_size': %d}" % (E("GROUP_WORLD_SIZE", "1"), self.world)]]))
        self.p(box([["MODEL"]]))
        self.p("Warnings and other logs:")
        self.p(box([["TRAINING"]]))
        self.p("Training for %d step(s), approximately %d epoch(s)." % (STEPS, info["epochs"]))
        self.p("Early stopping policy: 5 round(s) of evaluation, or %d step(s), approximately %d epoch(s).\n" % (5 * EVAL_EVERY, 5 * EVAL_EVERY // info["spe"]))
        self.p("Starting with step %d, epoch: %d" % (info["step"], info["step"] // info["spe"]))

    def resumed(self, path, step):
        if self.main:
            self.p("Resuming training from previous run")
            self.p("Loaded training state from %s (step %d)" % (path, step))

    def train_begin(self, step):
        pass

    def epoch_begin(self, ep, path, n):
        pass

    def step(self, s):
        pass

    def eval_begin(self, n):
        pass

    def eval_end(self, s, m, dt, n):
        if not self.main:
            return
        self.p("\nRunning evaluation for step: %d, epoch: %d" % (s["step"], s["ep"]))
        self.p(box([["train", "%.4f" % s["win_loss"], "%.4f" % s["win_acc"], "%.4f" % (s["win_acc"] * 1.9 if s["win_acc"] < .5 else .99)],
                    ["validation", "%.4f" % m["loss"], "%.4f" % (m["top1"] / 100), "%.4f" % (m["top3"] / 100)]],
                   ["label", "loss", "accuracy", "hits_at_k"]))
        self.p(box([["train", "%.4f" % s["win_loss"]], ["validation", "%.4f" % m["loss"]]], ["combined", "loss"]))
        if m["loss"] < getattr(self, "best", 1e9):
            self.best = m["loss"]
            self.p("Validation loss on combined improved, model saved.\n")
        else:
            self.p("Last improvement of combined validation loss happened %d step(s) ago.\n" % EVAL_EVERY)

    def save(self, path, s):
        if self.main:
            self.p("Saving training checkpoint to %s" % path)

    def epoch_end(self, ep, s):
        pass

    def done(self, s, total):
        if self.main:
            self.p("\nTraining ended after %d step(s) (%.1f s)." % (s["step"], total))
            self.p(box([["TRAINING REPORT"]]))
            self.p(box([["Validation feature", "label"], ["Validation metric", "loss"], ["Best model step", str(s["step"])],
                        ["Best model epoch", str(s["ep"])], ["Best model's validation loss", "%.4f" % getattr(self, "best", 0)]]))
            self.p("\nFinished: %s_run" % RUN_NAME)
            self.p("Saved to: %s" % os.path.join(OUT_DIR or "results", RUN_NAME + "_run"))

    def fail(self, msg, exc=True):
        self.p(msg, True)


class Axolotl(Console):
    """axolotl-like logger lines on every rank, trainer metric dicts on rank 0"""
    def a(self, lvl, where, msg):
        t = now()
        self.p("[%s,%03d] [%s] [%s] [PID:%d] [RANK:%d] %s" % (t.strftime("%Y-%m-%d %H:%M:%S"), t.microsecond // 1000, lvl, where,
                                                            os.getpid(), self.rank, msg))

    def start(self, model, n_params, info):
        self.a("INFO", "axolotl.normalize_config:182", "cuda memory usage baseline: 0.000GB ()")
        self.a("DEBUG", "axolotl.load_tokenizer:280", "EOS: %d / </s>" % 2)
        self.a("DEBUG", "axolotl.load_tokenizer:281", "BOS: %d / <s>" % 1)
        self.a("DEBUG", "axolotl.load_tokenizer:282", "PAD: %d / <pad>" % 0)
        self.a("DEBUG", "axolotl.load_tokenizer:283", "UNK: %d / <unk>" % 3)
        self.a("INFO", "axolotl.load_tokenizer:294", "No Chat template selected. Consider adding a chat template for easier inference.")
        self.a("INFO", "axolotl.load_tokenized_prepared_datasets:193", "Loading prepared dataset from disk at %s..." % DATA_DIR)
        self.a("INFO", "axolotl.load_tokenized_prepared_datasets:195", "Prepared dataset loaded from disk...")
        self.a("DEBUG", "axolotl.calculate_total_num_steps:299", "total_num_tokens: %d" % info["tokens"])
        self.a("DEBUG", "axolotl.calculate_total_num_steps:401", "total_num_steps: %d" % STEPS)
        self.a("INFO", "axolotl.train.train:48", "loading model and peft_config...")
        self.a("INFO", "axolotl.load_model:1004", "model parameters: %s" % format(n_params, ","))
        self.a("INFO", "axolotl.train.train:173", "Starting trainer...")
        self.epoch_frac = 1.0 / info["spe"]

    def resumed(self, path, step):
        self.a("INFO", "axolotl.train.train:161", "Resuming from checkpoint %s (global step %d)" % (path, step))

    def train_begin(self, step):
        pass

    def epoch_begin(self, ep, path, n):
        pass

    def step(self, s):
        if self.main and s["step"] % LOG_EVERY == 0:
            self.p(str({"loss": round(s["loss"], 4), "grad_norm": round(s["gnorm"], 6), "learning_rate": float("%.10g" % s["lr"]),
                        "epoch": round(s["step"] * self.epoch_frac, 2)}))

    def eval_begin(self, n):
        pass

    def eval_end(self, s, m, dt, n):
        if self.main:
            self.p(str({"eval_loss": round(m["loss"], 6), "eval_runtime": round(dt, 4), "eval_samples_per_second": round(n * BATCH * self.world / dt, 3),
                        "eval_steps_per_second": round(n / dt, 3), "epoch": round(s["step"] * self.epoch_frac, 2)}))

    def save(self, path, s):
        self.a("INFO", "transformers.trainer._save_checkpoint:3319", "Saving model checkpoint to %s" % path)

    def epoch_end(self, ep, s):
        pass

    def done(self, s, total):
        if self.main:
            self.p(str({"train_runtime": round(total, 4), "train_samples_per_second": round(s["step"] * BATCH * self.world / total, 3),
                        "train_steps_per_second": round(s["step"] / total, 3), "train_loss": round(s["mean_loss"], 6),
                        "epoch": round(s["step"] * self.epoch_frac, 2)}))
        self.a("INFO", "axolotl.train.train:200", "Training Completed!!! Saving pre-trained model to %s" % (OUT_DIR or "./outputs"))

    def fail(self, msg, exc=True):
        self.a("ERROR", "axolotl.train.train:186", msg)


STYLES = dict(d2=D2, marian=Marian, hivemind=Hivemind, avalanche=Avalanche, ludwig=Ludwig, axolotl=Axolotl)


# ------------------------------------------------------------------ training
def lr_at(step):
    w = max(1, STEPS // 20)
    return LR * min(1.0, (step + 1) / w) * (0.5 * (1 + math.cos(math.pi * min(step, STEPS) / STEPS)) * 0.9 + 0.1)


def ckpt_path(step, rank):
    d = CKPT_DIR
    if STYLE == "d2":
        return os.path.join(d, "model_%07d.pth" % step)
    if STYLE == "marian":
        return os.path.join(d, "model.iter%d.pt" % step if rank == 0 else "model.iter%d.optimizer.%d.pt" % (step, rank))
    if STYLE == "axolotl":
        return os.path.join(d, "checkpoint-%d" % step, "pytorch_model.bin" if SAVE_MODE != "rank" else "rank_%d.bin" % rank)
    if STYLE == "ludwig":
        return os.path.join(d, "training_checkpoints", "%d.ckpt" % step)
    return os.path.join(d, "step_%06d" % step, "state_rank%d.pt" % rank if SAVE_MODE == "rank" else "state.pt")


def latest_ckpt(rank):
    lt = os.path.join(CKPT_DIR, "latest")
    if not os.path.exists(lt):
        return None, 0
    with open(lt) as f:
        step = int(f.read().strip())
    return ckpt_path(step, rank if SAVE_MODE == "rank" else 0), step


@record
def main():
    rank, world, lrank = int(E("RANK")), int(E("WORLD_SIZE")), int(E("LOCAL_RANK"))
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=PG_TIMEOUT))
    torch.manual_seed(1234)
    con = STYLES[STYLE](rank, world, lrank)
    mcfg = model_cfg()
    parts = part_paths()
    K = max(1, len(parts) // world)
    if TASK == "text":
        vocab_path = E("VOCAB", os.path.join(DATA_DIR, "vocab.txt"))
        vocab = Vocab(vocab_path)
        model = TinyLM(len(vocab), mcfg)
        collate = TokenizeCollate(vocab)
        info = dict(V=len(vocab), vocab=vocab_path, mcfg=mcfg)
        val_ds = TextPart(os.path.join(DATA_DIR, "valid.txt"))
    else:
        model = MLPCls(mcfg)
        collate = None
        info = dict(V=10, mcfg=mcfg)
        val_ds = FeatPart(os.path.join(DATA_DIR, "heldout.npy"))
    n_params = sum(p.numel() for p in model.parameters())
    first = TextPart(parts[rank]) if TASK == "text" else FeatPart(parts[rank])
    spe = len(first) // BATCH
    info.update(n=len(first) * world, spe=spe, epochs=max(1, STEPS // spe), tokens=len(first) * world * 33 * K, step=0)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    step = 0
    if RESUME:
        path, st = latest_ckpt(rank)
        if path:
            sd = torch.load(path, map_location="cpu", weights_only=False)
            model.load_state_dict(sd["model"]); opt.load_state_dict(sd["optim"]); step = sd["step"]
            info["step"] = step
            con.resumed(path, step)
    con.start(model, n_params, info)
    model = DDP(model)
    stats = dict(step=step, iters=0, hooks=0.0, sen=0, tok_total=0, ep=step // spe, mean_loss=0.0)
    losses = []
    con.train_begin(step)
    t_start = time.time()

    def evaluate():
        con.eval_begin((len(val_ds) // world) // BATCH)
        te = time.time()
        sub = torch.utils.data.Subset(val_ds, list(range(rank, len(val_ds), world)))
        dl = DataLoader(sub, batch_size=BATCH, num_workers=EVAL_WORKERS, collate_fn=collate, drop_last=True)
        model.eval()
        tot = torch.zeros(5)
        with torch.no_grad():
            for x, y in dl:
                out = model(x)
                if TASK == "text":
                    l = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1), reduction="sum")
                    n = y.numel(); top = out.topk(5, -1).indices; yy = y.unsqueeze(-1)
                else:
                    l = F.cross_entropy(out, y, reduction="sum"); n = y.numel(); top = out.topk(5, -1).indices; yy = y.unsqueeze(-1)
                tot += torch.tensor([l.item(), n, (top[..., :1] == yy).sum().item(), (top == yy).sum().item(),
                                     (top[..., :3] == yy).sum().item()])
        dist.all_reduce(tot)
        model.train()
        m = dict(loss=tot[0].item() / tot[1].item(), top1=100 * tot[2].item() / tot[1].item(), top5=100 * tot[3].item() / tot[1].item(),
                 top3=100 * tot[4].item() / tot[1].item())
        con.eval_end(stats, m, time.time() - te, len(dl))

    def save():
        th = time.time()
        path = ckpt_path(step, rank)
        writer = (SAVE_MODE == "rank") or (SAVE_MODE == "node" and lrank == 0) or (SAVE_MODE == "main" and rank == 0)
        if writer:
            con.save(path, stats)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "step": step}, path)
            with open(os.path.join(CKPT_DIR, "latest"), "w") as f:
                f.write(str(step))
            if hasattr(con, "saved"):
                con.saved(path, stats)
        dist.barrier()
        stats["hooks"] += time.time() - th

    try:
        ep = step // spe
        while step < STEPS:
            pidx = (ep % K) * world + rank
            ds = TextPart(parts[pidx]) if TASK == "text" else FeatPart(parts[pidx])
            if hasattr(con, "epoch_begin"):
                con.epoch_begin(ep, parts[pidx], len(ds))
            g = torch.Generator(); g.manual_seed(1000 * ep + rank)
            dl = DataLoader(ds, batch_size=BATCH, shuffle=True, generator=g, num_workers=NW, collate_fn=collate, drop_last=True)
            stats["ep"] = ep
            te, el, ea = time.time(), [], []
            tl = time.time()
            for x, y in dl:
                td = time.time() - tl
                for gp in opt.param_groups:
                    gp["lr"] = lr_at(step)
                out = model(x)
                if TASK == "text":
                    loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
                    acc = (out.argmax(-1) == y).float().mean().item()
                else:
                    loss = F.cross_entropy(out, y)
                    acc = (out.argmax(-1) == y).float().mean().item()
                if E("NAN_GUARD", "1") == "1" and not torch.isfinite(loss):
                    con.fail("Loss is %s at iteration %d (epoch %d, part %s); stopping." % (loss.item(), step, ep, os.path.basename(parts[pidx])), False)
                    raise FloatingPointError("Loss became infinite or NaN at iteration=%d!\nloss_dict = {'loss_cls': %s}" % (step, loss.item()))
                opt.zero_grad(set_to_none=True)
                loss.backward()
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
                opt.step()
                if SLEEP:
                    time.sleep(SLEEP)
                dt = time.time() - tl
                step += 1
                losses.append(loss.item()); el.append(loss.item()); ea.append(acc)
                stats.update(step=step, iters=stats["iters"] + 1, sen=stats["sen"] + x.shape[0], words=x.numel(),
                             tok_total=stats["tok_total"] + x.numel(), loss=loss.item(), lr=lr_at(step - 1), gnorm=gn, dt=dt, data=td,
                             reg=0.01 * gn, sps=x.shape[0] / max(dt, 1e-6), maxrss=0, mean_loss=float(np.mean(losses)),
                             win_loss=float(np.mean(el[-50:])), win_acc=float(np.mean(ea[-50:])))
                con.step(dict(stats, step=step - 1 if STYLE == "d2" else step))
                if step % EVAL_EVERY == 0:
                    th = time.time(); evaluate(); stats["hooks"] += time.time() - th
                if step % SAVE_EVERY == 0:
                    save()
                if step >= STEPS:
                    break
                tl = time.time()
            stats.update(ep_loss=float(np.mean(el)) if el else 0.0, ep_acc=float(np.mean(ea)) if ea else 0.0, ep_time=time.time() - te)
            con.epoch_end(ep, stats)
            if E("EVAL_AT_EPOCH_END") == "1":
                th = time.time(); evaluate(); stats["hooks"] += time.time() - th
            ep += 1
        dist.barrier()
        con.done(stats, time.time() - t_start)
    except Exception:
        if STYLE == "d2":
            con.fail("Exception during training:")
        raise
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
