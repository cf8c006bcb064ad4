import json, os
B = "/work/staging/b17"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "PyTorch 2.13.0+cpu, torch.distributed.run (torchrun) elastic agent, gloo backend, c10d rendezvous"
NS = ("Each simulated node is a torchrun agent started inside `unshare --uts --mount` with its own hostname and a "
      "hosts file bind-mounted over /etc/hosts (node-a/b/c -> 127.0.17.1/2/3). ")
DIS = ("Disjointness: own run, no external source; grep -rlF of the verbatim line %r in /work/shared/eval/dev "
       "/work/main/corpora /work/main/patterns /work/staging/b17 -> no hit outside this folder%s.")
VERB = " All lines are the unedited output of the run; nothing dropped or reordered."
cases = {
 "01": ("2 nodes x 2 ranks (world 4), custom trainer with a Swin-style python-logging format. " + NS +
        "Files: logs/node-X.console.log = whole console of each node's agent (torchrun --tee=3, worker lines prefixed "
        "[defaultN]:); logs/torchelastic-node-X/<run>/attempt_0/<local_rank>/{stdout,stderr}.log = torchrun --log-dir per-rank files.",
        "exitcode  : -7 (pid: 21383)  (SIGBUS)", ""),
 "02": ("2 nodes x 2 ranks (world 4), custom trainer with a DLRM-style console. " + NS +
        "Files: node-X.console.log (torchrun --tee=3 console per node), torchelastic-node-X/... per-rank files from --log-dir, "
        "and stack-dump-node-X.txt: output of `py-spy dump --pid <worker>` for each of the node's two ranks, taken once by a "
        "monitoring script while the job was running (the '### py-spy dump --pid ...' header line before each dump was written by that script).",
        "shard_rows (trainer.py:59)", ""),
 "03": ("2 nodes x 2 ranks (world 4), custom trainer with a BERT-pretraining/DLLogger-style console (DLL lines + python logging). " + NS +
        "Both agents' stdout+stderr were appended to ONE file, logs/console.log, each line prefixed by the collection pipe "
        "with the node's service name in docker-compose style ('node-a-1  | ', 'node-b-1  | '); worker lines have no torchrun "
        "[defaultN] prefix (no --tee). Interleaving is as written by the processes.",
        "PermissionError: [Errno 13] Permission denied: '/mnt/b17ckpt/step000300'",
        "; the compose-style line prefix itself also occurs in b15 run-07 compose.log (different trainer, format and run), no shared lines"),
 "04": ("3 nodes x 1 rank (world 3), custom trainer with a video-diffusion-style step log. " + NS +
        "Files: node-X.console.log (torchrun --tee=3 console per node) and torchelastic-node-X/... per-rank stdout/stderr from --log-dir.",
        "data=/mnt/b17data/current steps=900", ""),
 "05": ("3 nodes x 1 rank (world 3), --max-restarts=1, custom trainer with a Swin-style python-logging format. " + NS +
        "All three agents wrote (torchrun --tee=3) into ONE batch output file, logs/slurm-77120.out, like a Slurm job's output "
        "without --label: no per-node line prefix, every worker line starts with [default0]:. An earlier attempt of this job "
        "was discarded because of an error in the collector's own script; this folder holds only the rerun.",
        "to shutdown the rendezvous 'mixer-ctr-77120'", ""),
 "06": ("2 nodes x 2 ranks (world 4), --max-restarts=2, custom trainer with a DLRM-style console. " + NS +
        "Files: node-X.console.log (torchrun --tee=3 console per node, all attempts) and torchelastic-node-X/<run>/attempt_N/<local_rank>/"
        "{stdout,stderr}.log per attempt from --log-dir.",
        "[rank3]: OSError: [Errno 24] Too many open files", ""),
 "07": ("2 nodes x 2 ranks planned (world 4), custom trainer with a BERT/DLLogger-style console. " + NS +
        "Both agents' output was collected into ONE file, logs/pdsh.out, "
        "with pdsh-style 'node-X: ' prefixes added by the collection pipe. The job was cancelled by the operator (SIGTERM to the "
        "remaining agent) about 3 minutes after start; node-a's agent wrote no lines before that. An earlier attempt with other "
        "launch timing was discarded; this folder holds only the rerun.",
        "trying to connect to (node-a, 29177)", ""),
 "08": ("3 nodes x 1 rank (world 3), custom trainer with a DLRM-style console incl. periodic 'Testing at' lines on rank 0. " + NS +
        "Files: node-X.console.log (torchrun --tee=3 console per node) and torchelastic-node-X/... per-rank files from --log-dir.",
        "precision nan, f1 nan, ap 0.2588", ""),
 "09": ("2 nodes x 2 ranks (world 4), custom trainer with a video-diffusion-style step log. " + NS +
        "Both agents' output collected into ONE file, logs/pdsh.out, with "
        "pdsh-style 'node-X: ' prefixes added by the collection pipe (no --tee, so no [defaultN] prefixes).",
        "trying to connect to (node-a, 29179)", ""),
 "10": ("2 nodes x 2 ranks (world 4), custom trainer with a BERT/DLLogger-style console. " + NS +
        "Files: node-X.console.log (torchrun --tee=3 console per node) and "
        "torchelastic-node-X/... per-rank stdout/stderr from --log-dir (some are empty, as written).",
        "home-b/.local/lib/python3.11/site-packages/scipy", ""),
}
for k, (note, line, extra) in cases.items():
    d = os.path.join(B, f"run-{k}")
    j = {"source": SRC, "framework": FW, "multi_rank": True, "multi_node": True,
         "collector_note": note + VERB + " " + DIS % (line, extra)}
    json.dump(j, open(os.path.join(d, "source.json"), "w"), indent=2)
    print(k, len(j["collector_note"]))
