# writes run-NN/source.json for the b21 run cases (neutral notes: launch mechanics + layout + disjointness check)
import json, os
B = "/work/staging/b21"
COMMON = ("Real torchrun (torch.distributed.run) job run on this machine (CPU only, PyTorch 2.13.0+cpu, gloo backend, c10d "
          "rendezvous). Each simulated node is its own `unshare --uts --mount` namespace with its own hostname and a hosts file "
          "bind-mounted over /etc/hosts mapping node names to 127.0.21.x. The trainer is a small model on synthetic data written for "
          "this batch (runs-src/train_b21.py; console style: %s). Files are the unedited output of the run as written by torchrun, "
          "the trainer or the collection pipe; nothing was dropped, re-ordered or re-timed (ANSI colour codes, empty lines and lines "
          "where two processes' writes met are kept as written). Layout: %s")
DISJ = (" Disjointness: own new run, no issue/URL. grep -rlF over /work/shared/eval/dev, /work/main/corpora, /work/main/patterns, "
        "/work/staging/b20, /work/staging/b21 for the rendezvous id %r and the log fragment %r: %s")
C = {
 "01": ("detectron2-like logger (coloured console on the main process, per-rank log files)", True,
        "logs/node-a/console.log and logs/node-b/console.log are each node agent's whole console (torchrun stdout+stderr, --tee 3 so "
        "rank lines carry [defaultN]: prefixes); logs/node-*/output/log.txt (rank 0) and log.txt.rankN are the trainer's own per-rank "
        "log files; logs/node-*/elastic/<run>/attempt_0/<local_rank>/{stdout,stderr}.log (+error.json) are torchrun's --log-dir files. "
        "2 nodes x 2 ranks.", "d2cls-r50-0931", "copypaste: top1,top5,loss", "no hit"),
 "02": ("Marian-like NMT progress log", True,
        "logs/slurm-48213.out is ONE merged console as a Slurm batch output file without --label collects it: both node agents "
        "(node-a, node-b; 2 ranks each, torchrun with LOGLEVEL=INFO and --tee 3, so rank lines carry [defaultN]: prefixes that "
        "repeat across nodes) append stdout+stderr to the same file in arrival order. logs/torchelastic/node-*/<run>/attempt_0/<local_rank>/ "
        "are torchrun's --log-dir files. The file ends where the run was stopped.", "rdzv-id=48213",
        "Starting data epoch 17 in logical epoch 17", "no hit"),
 "03": ("hivemind-like logger", True,
        "logs/node-a.log, logs/node-b.log, logs/node-c.log are each node agent's whole console (--tee 3). 3 nodes x 1 rank.",
        "lmcollab-7c2e", "joined collaboration lm-collab", "no hit"),
 "04": ("hivemind-like logger (every peer logs progress)", True,
        "logs/console.log is ONE merged console written the way `parallel --tag --line-buffer` over ssh collects it: each node agent's "
        "stdout+stderr (torchrun with LOGLEVEL=INFO, no --tee: the ranks write straight to the agent's stdout) goes through a pipe to "
        "a per-node relay process that appends every line prefixed 'node-x<TAB>' to the file in arrival order. 2 nodes x 2 ranks. "
        "The run was stopped from outside at the end.", "swarm-b-0412", "accumulated 11872 samples for epoch", "no hit"),
 "05": ("avalanche-like TextLogger (main process only)", True,
        "logs/node-a/console.log and logs/node-b/console.log are each node agent's whole console (--tee 3); logs/node-*/elastic/ are "
        "torchrun's --log-dir trees. 2 nodes x 2 ranks.", "cl-stream-55", "Top1_Acc_Epoch/train_phase/train_stream", "no hit"),
 "06": ("ludwig-like boxed tables (main process only)", True,
        "logs/node-a.log and logs/node-b.log each hold TWO consecutive launches appended to the same per-node file (--tee 3): first "
        "rendezvous id tab-j1 (steps 0-300), then tab-j2 with RESUME=1 and 600 steps, started about 6 s after the first ended. Each "
        "node's LOCAL_RANK 0 writes checkpoints to a node-local directory. node-b's first launch printed nothing (only rank 0 prints). "
        "2 nodes x 2 ranks.", "tab-j2", "Validation loss on combined improved", "no hit"),
 "07": ("detectron2-like logger (coloured console on the main process, per-rank log files)", True,
        "logs/node-a.log and logs/node-b.log are each node agent's whole console (--tee 3); logs/output/node-*/log.txt (rank 0) and "
        "log.txt.rankN are the trainer's own per-rank log files. 2 nodes x 2 ranks; training DataLoader with 1 worker per rank, "
        "evaluation DataLoader with 2 workers per rank.", "d2cls-8812", "DataLoader worker (pid(s) 15792) exited unexpectedly",
        "no hit (the generic fragment 'Total inference pure compute time' hits only this batch's run-01, same trainer)"),
 "08": ("Marian-like NMT progress log (each rank writes its own checkpoint file)", True,
        "single node (hostname trn-07) x 3 ranks. logs/train.log is the agent's whole console (LOGLEVEL=INFO, --tee 3); "
        "logs/torchelastic/<run>/attempt_0/<local_rank>/ are torchrun's --log-dir files.", "nmt-lite-3w", "Saving optimizer shard 1",
        "no hit"),
 "09": ("axolotl-like logger on every rank + trainer metric dicts on rank 0", True,
        "logs/worker-0.log (node-a) and logs/worker-1.log (node-b) are each node agent's whole console (--tee 3). 2 nodes x 2 ranks.",
        "sft-tiny-0090", "[PID:16347] [RANK:0] Training Completed", "no hit"),
 "10": ("axolotl-like logger on every rank + trainer metric dicts on rank 0", True,
        "logs/node-a.log and logs/node-b.log are each node agent's whole console (--tee 3); logs/elastic-node-*/ are torchrun's "
        "--log-dir trees. 2 nodes x 2 ranks; tokenizing collate in 1 DataLoader worker per rank.", "sft-tiny-0217", "KeyError: 'w500'",
        "no hit (the generic PyTorch line 'Caught KeyError in DataLoader worker process 0' also occurs in a pattern signature file, "
        "not a source)"),
}
for n, (style, mnode, layout, rid, frag, res) in C.items():
    d = {"source": "real torchrun run on this machine, 2026-12-08", "framework": "PyTorch 2.13.0+cpu (torchrun, gloo backend)",
         "multi_rank": True, "multi_node": mnode if n != "08" else False,
         "collector_note": COMMON % (style, layout) + DISJ % (rid, frag, res)}
    with open(os.path.join(B, "run-" + n, "source.json"), "w") as f:
        json.dump(d, f, indent=1)
    print(n, "ok")
