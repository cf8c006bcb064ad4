import json, os
B = "/work/staging/b18"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "PyTorch 2.13.0+cpu, torch.distributed.run (torchrun) elastic agent, gloo backend, c10d rendezvous, DDP"
NS = ("Each simulated node is a torchrun agent started inside `unshare --uts --mount` with its own hostname and a per-case "
      "hosts file bind-mounted over /etc/hosts (node names -> 127.0.18.x). Trainer: a small custom script (byte-level LM or "
      "hashed-bigram embedding model) written for this batch, console format %s. ")
PER = ("Files: logs/<node>.console.log = whole console of each node's agent (torchrun --tee=3, worker lines prefixed [defaultN]:); "
       "logs/elastic-<node>/<run>/attempt_N/<local_rank>/{stdout,stderr}.log = torchrun --log-dir per-rank files (some empty, as written). ")
DIS = ("Disjointness: own run, no external source; grep -rlF of the verbatim line %r in /work/shared/eval/dev "
       "/work/main/corpora /work/main/patterns /work/staging/b18 -> no hit outside this folder.")
VERB = " All lines are the unedited output of the run; nothing dropped, edited or reordered."
cases = {
 "01": (True, "llm.c-like (parameter table, 'step N/M | loss ...' lines on rank 0, per-rank DataLoader line)",
        "2 nodes x 2 ranks (world 4). " + PER, "[rank 2@node-b] DataLoader: 8 shards matching"),
 "02": (True, "MaxText-like ('Config param ...', 'completed step: ...' on every rank)",
        "3 nodes x 1 rank (world 3), no --tee/--log-dir: workers write to the agent's stdout/stderr. All three pods' output is in ONE "
        "file, logs/kubectl-logs.txt, as `kubectl logs --prefix` shows it: every line prefixed by the collection pipe with "
        "'[pod/lm-pretrain-worker-N/pytorch] '; interleaving as written by the processes. ",
        "[pod/lm-pretrain-worker-1/pytorch] System Information"),
 "03": (True, "Coqui-TTS-trainer-like", "2 nodes x 2 ranks planned (world 4), LOGLEVEL=INFO set in the job environment. " + PER +
        "The logs/elastic-<node>/ directories stayed empty and were removed. logs/py-spy-<node>.txt: output of `py-spy dump --pid <agent pid>` "
        "taken once by a monitoring script about 100 s after launch (the '### py-spy dump --pid ...' header line before the dump was "
        "written by that script). The operator stopped both agents with SIGTERM about 140 s after launch; the agents printed nothing more.",
        "rdzv_endpoint            : node-a:29183"),
 "04": (True, "PyTorch-BigGraph-like ('[Trainer-N] ...' python logging)", "2 nodes x 2 ranks (world 4), --max-restarts=1. " + PER,
        "AssertionError: datasets should not be an empty iterable"),
 "05": (True, "Horovod-pytorch-example-like ('Train Epoch: ... Loss:' on every rank)",
        "2 nodes x 2 ranks (world 4), torchrun on each node started the way `mpirun --tag-output` would start one process per node: "
        "ONE merged file, logs/mpirun.out, stdout lines prefixed '[1,N]<stdout>:' and stderr lines '[1,N]<stderr>:' (N = node index 0/1) "
        "by the collection pipe; no --tee/--log-dir, workers write to the agent's stdout/stderr. ",
        "[1,1]<stderr>:[rank2]: KeyboardInterrupt"),
 "06": (True, "llm.c-like", "3 nodes x 1 rank (world 3). " + PER, "[rank 1@node-b] DataLoader: 8 shards matching"),
 "07": (True, "MaxText-like", "3 nodes x 1 rank (world 3); each node reads its job config from /etc/b18job/config.json. " + PER,
        "Expecting value: line 7 column 15 (char 111)"),
 "08": (True, "Coqui-TTS-trainer-like", "2 nodes x 2 ranks (world 4), two consecutive jobs sharing one checkpoint directory "
        "(/mnt/ckpt on both nodes): logs/job1/ = first job, logs/job2/ = the next job started with RESUME=1 after it. In each: " + PER +
        "Two earlier attempts of this case were discarded (collector's setup choice); this folder holds only the final run.",
        "> Restoring from checkpoint_150.pth ..."),
 "09": (True, "PyTorch-BigGraph-like", "2 nodes x 2 ranks (world 4); node-a's /mnt/ckpt is an ext4 file system on a loop device, node-b's a tmpfs. " + PER,
        "[Trainer-0] Switching to the new checkpoint version 100"),
 "10": (False, "Horovod-pytorch-example-like", "1 node x 4 ranks (world 4), still started with the c10d rendezvous inside a UTS+mount namespace. "
        "Files: logs/console.log = whole console of the agent (torchrun --tee=3, worker lines prefixed [defaultN]:, agent's own lines unprefixed); "
        "logs/elastic/<run>/attempt_0/<local_rank>/{stdout,stderr}.log = per-rank files from --log-dir. ",
        "unclosed file <_io.BufferedReader name='/tmp/b18run/c10"),
}
for k, (mn, style, note, line) in cases.items():
    d = os.path.join(B, f"run-{k}")
    j = {"source": SRC, "framework": FW, "multi_rank": True, "multi_node": mn,
         "collector_note": (NS % style if mn else NS.split("Each simulated")[0] + "Trainer: a small custom script (byte-level LM) written for this batch, console format %s. " % style) + note + VERB + " " + DIS % line}
    json.dump(j, open(os.path.join(d, "source.json"), "w"), indent=2)
print("ok")
