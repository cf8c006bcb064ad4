# shared pieces for the b15 trainers (model, data, dist setup, checkpoint)
import os, time, datetime, socket
import numpy as np
import torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler

def env_int(k, d): return int(os.environ.get(k, d))
def env_float(k, d): return float(os.environ.get(k, d))

def setup():
    to = env_int("DIST_TIMEOUT_S", 1800)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=to))
    torch.manual_seed(1234 + dist.get_rank())
    return dist.get_rank(), dist.get_world_size(), int(os.environ.get("LOCAL_RANK", 0))

class TinyLM(nn.Module):
    def __init__(self, vocab=512, d=128, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        enc = nn.TransformerEncoderLayer(d, 4, 4 * d, batch_first=True, dropout=0.0)
        self.body = nn.TransformerEncoder(enc, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)
    def forward(self, x):
        return self.head(self.body(self.emb(x)))

class ShardTokens(Dataset):
    """token shards: <name>.bin (uint16 tokens) + <name>.idx (int64 offsets, npy)"""
    def __init__(self, data_dir, split, seq=64):
        self.bin = os.path.join(data_dir, f"{split}.bin")
        self.idx = np.load(os.path.join(data_dir, f"{split}.idx"), allow_pickle=False)
        self.seq = seq
    def __len__(self): return len(self.idx)
    def __getitem__(self, i):
        off = int(self.idx[i])
        mm = np.memmap(self.bin, dtype=np.uint16, mode="r", offset=off * 2, shape=(self.seq + 1,))
        a = torch.from_numpy(mm.astype(np.int64))
        return a[:-1], a[1:]

def make_shards(data_dir, split, n_seq=4000, seq=64, vocab=512, seed=0):
    os.makedirs(data_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    toks = rng.integers(0, vocab, size=n_seq * (seq + 1), dtype=np.uint16)
    toks.tofile(os.path.join(data_dir, f"{split}.bin"))
    with open(os.path.join(data_dir, f"{split}.idx"), "wb") as f:
        np.save(f, np.arange(n_seq, dtype=np.int64) * (seq + 1))

def save_ckpt(path, model, opt, step):
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, tmp)
    os.replace(tmp, path)

def load_ckpt(path, model, opt):
    if not os.path.exists(path):
        return 0
    sd = torch.load(path, map_location="cpu")
    model.load_state_dict(sd["model"]); opt.load_state_dict(sd["opt"])
    return sd["step"]
