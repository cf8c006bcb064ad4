"""Writes run-NN/source.json for the third first-look batch (collector notes only, no labels)."""
import json, os, sys

B = "/work/firstlook-b3"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "pytorch DDP, torchrun (torchelastic), gloo, torch 2.13.0+cpu"
COMMON = ("Trainer: runs-src/trainer.py, a small sequence regressor (embedding + mean-pool + MLP, ~20k parameters) "
          "over synthetic variable-length token sequences padded by pad_collate (max_len 64), DistributedSampler, "
          "Adam, python logging '[asctime] [LEVEL] [host:rank] seqreg: msg', main() under torchelastic @record, "
          "~60 ms/step. Faults are injected only through the environment (FAULT/FAULT_RANK/FAULT_STEP) or the "
          "node's environment (mounts, ulimits, config files); the trainer prints nothing about them. "
          "Paths are not scrubbed (/work/firstlook-b3/runs-src, /tmp/fl3/NN, /root/.pyenv/...). ")
MULTI = ("Two torchrun agents (--nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:PORT "
         "--rdzv_id JOBID), each started by runs-src/node.sh inside its own UTS + mount namespace (unshare --uts --mount "
         "--fork) with its own hostname and a private /etc/hosts (runs-src/hosts.b3) mapping node names to 127.0.0.x; "
         "the agent started first (the first host named) is started 1 s before the other; 4 ranks on a 2-core VM. "
         "Which global ranks live on which host is shown by the '[host:rank]' field of the trainer's own lines. ")
notes = json.load(open(os.path.join(os.path.dirname(__file__), "notes.json")))
for nn, d in notes.items():
    multi = d.get("multi", True)
    out = {"source": SRC, "framework": d.get("framework", FW), "multi_rank": True, "multi_node": multi,
           "collector_note": (MULTI if multi else "") + COMMON + d["note"]}
    with open(os.path.join(B, f"run-{nn}", "source.json"), "w") as f:
        json.dump(out, f, indent=2, ensure_ascii=False); f.write("\n")
    print(nn, "ok")
