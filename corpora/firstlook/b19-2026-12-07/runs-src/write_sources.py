import json, os
B = "/work/staging/b19"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "PyTorch 2.13.0+cpu, torch.distributed.run (torchrun) elastic agent, gloo backend, c10d rendezvous, DDP"
NS = ("Each simulated node is a torchrun agent started inside `unshare --uts --mount` with its own hostname and a per-case "
      "hosts file bind-mounted over /etc/hosts (node names -> 127.0.19.x loopback addresses); rendezvous endpoint node-a. "
      "Trainer: a small custom script (causal-conv token LM over indexed uint16 shards, DataLoader workers) written for this batch, "
      "console format %s. ")
PER = ("Files: logs/<node>.console.log = whole console of each node's agent (torchrun --tee=3, worker lines prefixed [defaultN]:, "
       "agent lines unprefixed); logs/elastic-<node>/<run id>/attempt_N/<local_rank>/{stdout,stderr}.log (+ error.json where torchrun "
       "wrote one) = torchrun --log-dir per-rank files, as written. ")
DIS = ("Disjointness: own run, no external source; grep -rlF of the verbatim line %r in /work/shared/eval/dev /work/main/corpora "
       "/work/main/patterns /work/staging/b19 -> no hit outside this folder.")
VERB = " All lines are the unedited output of the run; nothing dropped, edited or reordered."
W, M, P, G = ("wandb-offline-like ('Step N/M :: loss ...' on rank 0, per-rank '[rankR/W] host=...' lines, a wandb-style run summary)",
              "MindSpore-like ('[INFO] TRN(pid:tid,MainProcess):<time> [trainer.py:N] epoch: E step: S, loss is ...' on every rank)",
              "Pax/PaLM-like ('step_i: N, training loss: ...', 'Saving a ckpt at step: N' on process 0, per-process lines)",
              "pytorch/examples ImageNet ProgressMeter-like ('Epoch: [E][ i/N]\\tTime ...\\tLoss ...\\tAcc@1 ...' on every rank)")
cases = {
 "01": (W, "2 nodes x 2 ranks (world 4). " + PER, "Step   140/500 :: loss 2.4293 :: lr 2.612e-03"),
 "02": (M, "2 nodes x 2 ranks (world 4), two consecutive jobs with the same command and one shared checkpoint directory: logs/job1/ = "
        "first job, logs/job2/ = the next job, started about 5 s after job 1's agents had exited (the trainer resumes from the newest "
        "step_*.pt it finds). In each: " + PER, "Loading checkpoint /tmp/b19run/c02/ckpt/step_000300.pt"),
 "03": (P, "2 nodes x 2 ranks (world 4), 2 DataLoader workers per rank. " + PER, "DataLoader worker (pid 22273) is killed by signal: Killed."),
 "04": (G, "2 nodes x 2 ranks (world 4), 2 DataLoader workers per rank. ONE merged file, logs/compose.log, as `docker compose logs` "
        "shows it: every line of a node's agent console prefixed by the collection pipe with 'trainer-node-a-1  | ' or "
        "'trainer-node-b-1  | ' (worker lines additionally carry torchrun's [defaultN]: tee prefix); lines of the two nodes interleaved "
        "as they arrived. No per-rank files were kept.", "but got [33] at entry 0 and [34] at entry 4"),
 "05": (W, "3 nodes x 1 rank (world 3). " + PER, "Step   100/450 :: loss 3.1269 :: lr 2.799e-03"),
 "06": (M, "2 nodes x 2 ranks (world 4), job configured for one epoch. " + PER, "Train finished, global step 188, total time 23.470 s"),
 "07": (P, "3 nodes x 1 rank (world 3); the trainer writes checkpoint files through a temporary file and then moves them. " + PER +
        "A first attempt of this case was discarded (collector's launcher bug); this folder holds only the re-run.",
        "[enforce fail at inline_container.cc:672] . unexpected pos 768 vs 662"),
 "08": (G, "3 nodes x 1 rank (world 3). ONE merged file, logs/job-console.log, as a cloud training service's log export shows it: "
        "every line prefixed by the collection pipe with the RFC3339 UTC time it was received and the replica name (workerpool0-0 = "
        "node-a, workerpool1-0 = node-b, workerpool1-1 = node-c); worker lines additionally carry torchrun's [defaultN]: prefix. The "
        "three replicas' pipes wrote independently, so timestamps of different replicas can be slightly out of order. No per-rank "
        "files were kept.", "workerpool1-0 [default0]:Epoch: [1][128/151]"),
 "09": (M, "3 nodes x 1 rank, elastic job --nnodes=2:3 --max-restarts=3 (world 3, later world 2). " + PER +
        "node-b's console and per-rank files end where they end (collected as found).", "Checkpoint loaded, global step 250"),
 "10": (W, "2 nodes x 2 ranks (world 4); the job environment had PYTHONWARNINGS=always and TORCH_CPP_LOG_LEVEL=INFO. " + PER +
        "Two earlier attempts with other environment settings were discarded; this folder holds only the final run.",
        "wandb: wandb sync /tmp/b19run/c10/ckpt/wandb/offline-run-"),
}
for k, (style, note, line) in cases.items():
    d = os.path.join(B, "run-" + k)
    j = {"source": SRC, "framework": FW, "multi_rank": True, "multi_node": True,
         "collector_note": NS % style + note + VERB + " " + DIS % line}
    json.dump(j, open(os.path.join(d, "source.json"), "w"), indent=2, ensure_ascii=False)
print("ok")
