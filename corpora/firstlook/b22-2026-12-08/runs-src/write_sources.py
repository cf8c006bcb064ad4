# writes /work/staging/b22/run-NN/source.json (neutral layout notes only)
import json, os
B = "/work/staging/b22"
COMMON = ("Real torchrun (torch.distributed.run) job run on this machine (CPU only, PyTorch 2.13.0+cpu, gloo backend, c10d "
          "rendezvous). {nodes} The trainer is a small model on synthetic data written for this batch (runs-src/train_b22.py; "
          "console style: {style}). Files are the unedited output of the run as written by torchrun, the trainer or the "
          "collection pipe; nothing was dropped, re-ordered or re-timed (empty files and empty lines are kept as written). "
          "Layout: {layout} Disjointness: own new run, no issue/URL; grep -rlF over /work/shared/eval/dev, /work/main/corpora, "
          "/work/main/patterns, /work/staging/b20, /work/staging/b21, /work/staging/b22 (other than this folder and runs-src) for "
          "the rendezvous id '{rid}' and the log fragment '{frag}': no hit.")
NS = ("Each simulated node is its own `unshare --uts --mount` namespace with its own hostname and a hosts file bind-mounted "
      "over /etc/hosts mapping node names to 127.0.22.x; {n}.")
ELASTIC = "logs/{p}/<rdzv-id>_<suffix>/attempt_0/<local_rank>/{{stdout,stderr}}.log are torchrun's --log-dir files"
C = {
 "01": dict(n="2 nodes x 2 ranks (world 4)", style="flashlight/wav2letter-like report lines, printed by every rank",
   layout="logs/console.log is ONE merged console collected the way `kubectl logs --prefix` collects pods: each node agent's "
          "stdout+stderr (torchrun --tee 3, so rank lines carry [defaultN]: prefixes) is relayed line by line into the file with "
          "a '[pod/asr-fl-worker-N/pytorch] ' prefix (worker-0 = node-a, worker-1 = node-b); lines of the two pods interleave in "
          "arrival order. " + ELASTIC.format(p="worker-N/torchelastic") + " of each pod.",
   rid="asr-fl-1208", frag="lrcriterion: 0.000000 | runtime:"),
 "02": dict(n="2 nodes x 2 ranks (world 4)", style="torchreid-like engine console (rank 0 prints)",
   layout="logs/node-a/console.log and logs/node-b/console.log are each node agent's whole console (torchrun stdout+stderr, "
          "--tee 3 so rank lines carry [defaultN]: prefixes); " + ELASTIC.format(p="node-*/elastic") + ".",
   rid="reid-osnet-0402", frag="Building model: osnet_x0_25"),
 "03": dict(n="2 nodes x 1 rank (world 2)", style="BasicSR-like logger (console and rank-0 log file)",
   layout="two launches of the same job, one after the other: logs/launch-1/ and logs/launch-2/ (the second with the trainer's "
          "auto_resume on). In each: node-*/console.log = each node agent's whole console (--tee 3, [defaultN]: prefixes); "
          "node-a/experiments/train_MSRResNet_x4/train_*.log = the trainer's own log file (rank 0); "
          + ELASTIC.format(p="launch-N/node-*/elastic") + ". Checkpoints live on a volume shared by both nodes (not included).",
   rid="msrresnet-x4-0303", frag="Dataset [PairedImageDataset] - DIV2K_sub is built."),
 "04": dict(n="2 nodes x 1 rank (world 2)", style="tianshou-like epoch/test_reward lines (rank 0 prints)",
   layout="two launches of the same job, one after the other: logs/launch-1/ and logs/launch-2/ (the second with resume on). "
          "In each: node-*/console.log = each node agent's whole console (--tee 3, [defaultN]: prefixes; node-b's rank prints "
          "nothing, so its console is empty); " + ELASTIC.format(p="launch-N/node-*/elastic") + ".",
   rid="pg-bandit-0404", frag="exiting so the job can be requeued"),
 "05": dict(n="2 nodes x 2 ranks (world 4)", style="InsightFace arcface_torch-like 'Training: <time>-' logger",
   layout="logs/node-*/console.log = each node agent's whole console (--tee 3, [defaultN]: prefixes); "
          "logs/node-*/work_dirs/ms1mv3_r18/training.log = the trainer's own log file (rank 0 only; node-b's not created); "
          + ELASTIC.format(p="node-*/elastic") + ".",
   rid="arcface-r18-0508", frag="Fp16 Grad Scale: 0   Required:"),
 "06": dict(n="2 nodes x 2 ranks (world 4)", style="PaddleOCR-like 'ppocr INFO:' logger (rank 0 prints)",
   layout="logs/node-*/console.log = each node agent's whole console (--tee 3, [defaultN]: prefixes); "
          "logs/node-a/output/rec_svtr/train.log = the trainer's own log file (rank 0); " + ELASTIC.format(p="node-*/elastic") + ".",
   rid="rec-svtr-0611", frag="ppocr INFO: cur metric, acc:"),
 "07": dict(n="2 nodes x 1 rank (world 2)", style="OCP/fairchem-like '(INFO):' metric lines (rank 0 prints)",
   layout="logs/node-*/console.log = each node agent's whole console (--tee 3, [defaultN]: prefixes); "
          + ELASTIC.format(p="node-*/elastic") + ".",
   rid="s2ef-mlp-0712", frag="Batch balancing is disabled for single GPU training."),
 "08": dict(n="2 nodes x 2 ranks (world 4)", style="RWKV-LM-like banner, progress lines and train_log.txt (rank 0)",
   layout="logs/node-*/console.log = each node agent's whole console (--tee 3, [defaultN]: prefixes); "
          "logs/node-a/out/L1-D256/train_log.txt = the trainer's per-epoch log (rank 0); " + ELASTIC.format(p="node-*/elastic") + ".",
   rid="rwkv5-L1-0813", frag="REAL it/s="),
 "09": dict(n="1 node x 2 ranks (world 2), one namespace with hostname trainer-0", style="fairscale / word_language_model-like '| epoch |' lines through python logging (rank 0)",
   layout="logs/console.log = the agent's whole console (--tee 3, [defaultN]: prefixes); logs/scratch/wlm/train.log = the "
          "trainer's own log file, copied verbatim (cp -p) from the job's scratch volume after the job ended; "
          + ELASTIC.format(p="elastic") + ".",
   rid="wlm-tfm-0914", frag="|    36/  100 batches | lr 0.00155"),
 "10": dict(n="3 nodes x 1 rank (world 3)", style="WeNet-like logger, printed by every rank",
   layout="logs/console.log is ONE merged console collected the way `stern` tails pods: each node agent's stdout+stderr "
          "(--tee 3, [defaultN]: prefixes) is relayed line by line into the file with a '<pod> <container> ' prefix "
          "(wenet-conformer-worker-0/1/2 = node-a/b/c, container pytorch); lines interleave in arrival order. The per-rank "
          "--log-dir files stayed on the nodes and are not included (only the merged stream was collected).",
   rid="wenet-conformer-1015", frag="wenet-conformer-worker-2 pytorch"),
}
for k, c in C.items():
    note = COMMON.format(nodes=NS.format(n=c["n"]) if k != "09" else
                         "The node is an `unshare --uts --mount` namespace with its own hostname and a hosts file bind-mounted over /etc/hosts (127.0.22.1); " + c["n"] + ".",
                         style=c["style"], layout=c["layout"], rid=c["rid"], frag=c["frag"])
    d = dict(source="real torchrun run on this machine, 2026-12-08", framework="PyTorch 2.13.0+cpu (torchrun, gloo backend)",
             multi_rank=True, multi_node=(k != "09"), collector_note=note)
    with open(os.path.join(B, "run-" + k, "source.json"), "w") as f:
        json.dump(d, f, indent=1, ensure_ascii=False)
        f.write("\n")
print("ok")
