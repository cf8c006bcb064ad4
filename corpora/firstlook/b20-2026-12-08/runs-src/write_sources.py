# writes run-NN/source.json for the b20 run cases (neutral notes: launch mechanics + layout + disjointness check)
import json, os, glob
B = "/work/staging/b20"
COMMON = ("Real torchrun (torch.distributed.run) job run on this machine (CPU only, PyTorch 2.13.0+cpu, gloo backend, "
          "c10d rendezvous). Each simulated node is its own `unshare --uts --mount` namespace with its own hostname and a "
          "hosts file bind-mounted over /etc/hosts mapping node names to 127.0.20.x. The trainer is a small causal "
          "transformer LM on synthetic token shards written for this batch (script runs-src/train_b20.py; console style: %s). "
          "Files are the unedited output of the run as written by torchrun/the collection pipe; nothing was dropped, "
          "re-ordered or re-timed. Layout: %s")
DISJ = ("Disjointness: own new run, no issue/URL. grep -rlF over /work/shared/eval/dev, /work/main/corpora, "
        "/work/main/patterns, /work/staging/b20 for the rendezvous id %r and the log fragment %r: %s")
C = {
 "01": ("Levanter-like python logging", "logs/node-a.log and logs/node-b.log are each node agent's whole console "
        "(torchrun stdout+stderr, --tee 3 so rank lines carry [defaultN]: prefixes); logs/torchelastic-node-*/<run>/attempt_0/<local_rank>/"
        "{stdout,stderr}.log (+error.json where torchrun wrote one) are torchrun's --log-dir files. 2 nodes x 2 ranks.",
        "lev-tok-0147", "Progress on:train", "run id: no hit; fragment: 1 hit in an unrelated JAX/TPU corpus file (a different source), no other hit"),
 "02": ("GPT-NeoX-like iteration summary (rank 0 prints iterations)", "logs/mpirun-console.log is ONE merged console: both node "
        "agents (node-a, node-b; 2 ranks each) launched as one torchrun per node the way `mpirun --tag-output` would, every stdout line "
        "tagged [1,N]<stdout>: and every stderr line [1,N]<stderr>: (N=0 node-a, N=1 node-b), appended line by line in arrival order. "
        "No --tee/--log-dir: ranks write straight to their agent's stdout/stderr.",
        "neox-tiny-5521", "| elapsed time per iteration (ms):", "run id: no hit; fragment: hits only in generated Megatron-style readiness corpora (a shared log format, different sources)"),
 "03": ("DINO-like console", "logs/node-a.out and logs/node-b.out are each node agent's whole console (--tee 3); logs/node-a/ and "
        "logs/node-b/ are torchrun's --log-dir trees (<run>/attempt_0/<local_rank>/stdout.log, stderr.log). 2 nodes x 2 ranks.",
        "dino-tok-0312", "Starting DINO training !", "no hit"),
 "04": ("DGL-distributed-like per-part console", "logs/worker-0.log, worker-1.log, worker-2.log are the three node agents' whole "
        "consoles (--tee 3); logs/worker-N-elastic/ are torchrun's --log-dir trees. 3 nodes x 1 rank; the checkpoint directory is one "
        "host path used by all three nodes.", "dglx-2f90", "Speed (samples/sec)", "no hit"),
 "05": ("Sacred-like console", "logs/node-a.log and logs/node-b.log each hold TWO consecutive launches appended to the same per-node "
        "file (first rendezvous id sac-tok-j1 with 250 steps, then sac-tok-j2 continuing to 500 steps from the latest checkpoint, started 5s "
        "after the first ended); logs/elastic-node-*/ are torchrun's --log-dir trees as torchrun left them (it creates a run directory only when it starts workers). 2 nodes x 2 ranks, --rdzv-conf join_timeout=90.",
        "sac-tok-j2", "Started run with ID", "no hit"),
 "06": ("Catalyst-like console", "logs/node-a/console.log and logs/node-b/console.log are each node agent's whole console (--tee 3); "
        "logs/node-*/torchelastic/ are torchrun's --log-dir trees. 2 nodes x 2 ranks; the dataset directory is a bind mount made inside "
        "each node's namespace.", "catalyst-88d1", "_timer/batch_time:", "no hit"),
 "07": ("PyTorch-Geometric-Temporal-like console", "logs/pdsh-console.log is ONE merged console: both node agents (node-a, node-b; "
        "2 ranks each) run the way `pdsh -w node-a,node-b torchrun ...` would, every line of an agent's stdout+stderr prefixed with "
        "'<host>: ' and appended in arrival order. No --tee/--log-dir: the two local ranks of a node share their agent's stdout, so "
        "their writes can meet inside one line or leave empty lines; this is kept as written. Each node reads its own JSON config "
        "(train.json with a _base_ file).", "pgt-7a01", "Snapshot: 0", "no hit"),
 "08": ("GPT-NeoX-like iteration summary (rank 0 prints iterations)", "logs/trn-01.log and logs/trn-02.log are each node agent's whole "
        "console (--tee 3); logs/trn-01/ and logs/trn-02/ are torchrun's --log-dir trees (per-rank stdout/stderr). 2 nodes x 2 ranks, "
        "launched by a batch wrapper.", "neox-wt-3390", "| elapsed time per iteration (ms):",
        "run id: no hit; fragment: hits only in generated Megatron-style readiness corpora (a shared log format, different sources)"),
 "09": ("DINO-like console", "logs/node-a.log and logs/node-b.log are each node agent's whole console (--tee 3); logs/node-*-elastic/ are "
        "torchrun's --log-dir trees as torchrun left them (it creates a run/attempt directory only when it starts workers; node-b-elastic is empty). Elastic job --nnodes=1:2, 2 ranks per node, --max-restarts=3; node-b's agent was started 55 s after "
        "node-a's.", "dino-el-6604", "Starting DINO training !", "no hit"),
 "10": ("Catalyst-like console", "logs/node-a.log and logs/node-b.log are each node agent's whole console (--tee 3); logs/elastic/node-*/ "
        "are torchrun's --log-dir trees. 2 nodes x 1 rank, DataLoader with 3 worker processes per rank on a 2-core host.",
        "catalyst-w-1d3e", "_timer/batch_time:", "no hit"),
}
for nn, (style, layout, rid, frag, res) in C.items():
    d = os.path.join(B, "run-" + nn)
    src = {"source": "real torchrun run on this machine, 2026-12-08",
           "framework": "PyTorch 2.13.0+cpu (torchrun / torch.distributed.elastic, gloo)",
           "multi_rank": True, "multi_node": True,
           "collector_note": COMMON % (style, layout) + " " + DISJ % (rid, frag, res) +
                             "; no overlap with the other b20 collectors' source.json files."}
    json.dump(src, open(os.path.join(d, "source.json"), "w"), indent=2)
    files = [f for f in glob.glob(d + "/logs/**", recursive=True) if os.path.isfile(f)]
    lines = sum(sum(1 for _ in open(f, "rb")) for f in files)
    print(nn, len(files), lines)
