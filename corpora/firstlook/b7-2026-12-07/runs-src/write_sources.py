"""Writes source.json for /work/staging/b7/run-01..09."""
import json, os
B7 = "/work/staging/b7"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "PyTorch 2.13.0+cpu, torchrun (torch.distributed.run), gloo backend, DDP; "
COMMON = (" Each node is a torchrun agent started inside `unshare --uts --mount` with its own hostname; a per-case "
          "hosts file bind-mounted over /etc/hosts maps the node names to 127.0.2.11/12/13 (loopback); rendezvous "
          "on that loopback address. Machine: 2 CPU cores, no GPU. Helpers: runs-src/lib7.sh, runs-src/b7core.py "
          "(tiny causal LM, token-window reader), runs-src/tagger.py (console collector shim). Timeline records the "
          "case script wrote: runs-src/inject-records/cNN.txt. Nothing was dropped or edited in the logs.")
DISJ = (" Disjointness: runs-src/disjoint_check.sh (output in runs-src/disjoint_check.out) runs grep -rlF for {} in "
        "/work/shared/eval/dev, /work/main/corpora (all, incl. firstlook b1..b6) and the other /work/staging/b7 "
        "folders (asc-*, gpu-*): 0 files hit.")
cases = {
 "run-01": dict(fw="fairseq-0.x-style logging printed by runs-src/fairseq_like.py", mn=True, note=
  "Layout: logs/<host>/job1-console.log and job2-console.log = the torchrun agent's stdout+stderr on each node for two "
  "consecutive submissions of the same job (worker output is not --tee'd, so worker stdout/stderr reach the agent console "
  "directly; fairseq-style lines come from rank 0 only). Hosts lm-node-a, lm-node-b, 2 workers each (world 4). Command "
  "(bash runs-src/case01.sh): torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint lm-node-a:29701 "
  "--rdzv-id fsq-lm-<N> --max-restarts 0 runs-src/fairseq_like.py <data> --save-dir <shared ckpt dir> --max-update 300 "
  "(job 1) / 600 (job 2) --save-interval-updates 150 --updates-per-epoch 200 --log-interval 25. The checkpoint dir is one "
  "folder both nodes see (stand-in for a shared volume); rank 0 saves checkpoint_<e>_<u>.pt / checkpoint<e>.pt and copies "
  "to checkpoint_last.pt; every rank restores checkpoint_last.pt at start. Job 1 ran 14:28:12-14:29:18 UTC and ended "
  "normally at update 300 (last save checkpoint_2_300.pt -> checkpoint_last.pt). Injected between the jobs (14:29:18.5): "
  "a 4096-byte block at offset 3231744 (middle) of checkpoint_last.pt (6468065 bytes) was XOR-0xFF bit-flipped in place; "
  "file size unchanged. Job 2 started 14:29:23 with the same command and --max-update 600, restored that file, and ended 14:29:37."),
 "run-02": dict(fw="mmengine-Runner-style logging printed by runs-src/mmengine_like.py", mn=True, note=
  "Layout: logs/<host>.log = each node's agent console (stdout+stderr, workers not --tee'd), every line prefixed by the "
  "collector with an ISO-8601 UTC receive timestamp (tagger.py --style iso). Hosts det-worker-0, det-worker-1, 2 workers each "
  "(world 4); mmengine-style lines are logged by rank 0 only. Command (bash runs-src/case02.sh): torchrun --nnodes 2 "
  "--nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint det-worker-0:29702 --rdzv-id mmtrain-88 --max-restarts 0 "
  "runs-src/mmengine_like.py configs/tinygpt_8xb16-400it.py --launcher pytorch --work-dir <vol>/work_dirs/tinygpt_8xb16-400it "
  "--max-iters 400 --ckpt-interval 80 --val-interval 80 --max-keep-ckpts 2. work_dir is on an 80 MiB ext4 image "
  "(mkfs.ext4 -m 0, 70M usable, loop-mounted, seen by both nodes); each iter_N.pth is ~18.5 MB. Injected from outside at "
  "14:30:36.8 UTC (~32 s after launch, after the iter-80 save): dd wrote a 34 MiB file <vol>/shared/tmp_export.bin into the "
  "same volume and left it there (df after: 35M used, 34M avail). The iter-160 save at 14:31:13 is where the run ends; "
  "afterwards the volume showed 100% used with a 16.7 MB iter_160.pth left behind."),
 "run-03": dict(fw="OpenNMT-py-style logging printed by runs-src/onmt_like.py; py-spy 0.4.3 dumps", mn=True, note=
  "Layout: logs/<host>/console.log = agent console with torchrun --tee 3 ([defaultN]: prefixes), plus the torchrun --log-dir "
  "tree logs/<host>/torchelastic/<rdzv_id>_<rand>/attempt_0/<local_rank>/{stdout,stderr}.log, plus logs/py-spy/<host>-rank<R>-pid<P>.txt "
  "= `py-spy dump --pid` of every worker taken from outside while the job was stuck. Hosts mt-node-1, mt-node-2, 2 workers "
  "each (world 4). Command (bash runs-src/case03.sh): torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d "
  "--rdzv-endpoint mt-node-1:29703 --rdzv-id onmt-enfr-3 --max-restarts 0 --log-dir ... --tee 3 runs-src/onmt_like.py "
  "-config enfr_tiny.yaml -data_dir <data> -save_model <ckpt>/enfr -train_steps 1500 -report_every 50 "
  "-save_checkpoint_steps 250 -timeout 90 (init_process_group timeout 90 s). The trainer feeds batches from a background "
  "'shard-reader' thread through a lock-protected buffer and installs a SIGUSR1 handler that logs the reader statistics. "
  "Injected from outside: from 14:32:05.3 UTC a poller sent SIGUSR1 to rank 3 (mt-node-2 local_rank 1, pid 6529) every "
  "~0.7 s; signals #1-#7 were answered with a 'reader stats' line, #8 (14:32:10.3) was not, and the poller stopped "
  "(14:32:14). py-spy dumps of ranks 0-3 were taken at 14:32:41. Nothing else was done; the agents exited ~14:33:41 "
  "(the case script's own 'agents exited' record at 14:32:41 is wrong: its `wait` did not wait for the agents, which had been "
  "started inside $(...); the real end was polled afterwards, see inject-records/c03.txt)."),
 "run-04": dict(fw="MosaicML-Composer-style console logging printed by runs-src/composer_like.py", mn=True, note=
  "Layout: logs/job-7781.out = ONE merged console of the three nodes' agents, each line prefixed srun --label style with "
  "the node index ('0: ', '1: ', '2: '; tagger.py --style label); workers not --tee'd; Composer-style metrics from rank 0 only. "
  "Hosts cmp-n0 (0), cmp-n1 (1), cmp-n2 (2), 1 worker each (world 3). Command (bash runs-src/case04.sh): torchrun --nnodes 3 "
  "--nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint cmp-n0:29704 --rdzv-id cmp-7781 --max-restarts 0 "
  "runs-src/composer_like.py --data <data> --save-folder <ckpt> --max-duration 600ba --eval-interval 150 --eval-batches 100 "
  "--log-interval 25 --barrier-timeout 30. Every 150 batches each rank evaluates 100 batches of its own held-out shard, "
  "then dist.monitored_barrier(timeout=30 s, wait_all_ranks=True). Injected from outside at 14:34:27.6 UTC (when rank 0 "
  "had logged batch 125): rank 2's worker process (cmp-n2, pid 9056) was moved into a cgroup-v1 cpu cgroup with "
  "cpu.cfs_quota_us=2500, cpu.cfs_period_us=100000 (2.5% of one CPU) and left there. Agents exited 14:36:25; "
  "cpu.stat of that cgroup afterwards: nr_periods 1183, nr_throttled 1182 (inject-records/c04.txt)."),
 "run-05": dict(fw="NeMo-style '[NeMo I ...]' lines and a Lightning/tqdm progress bar printed by runs-src/nemo_like.py", mn=True, note=
  "Layout: logs/pytorchjob-nemo-gpt.log = both 'pods'' agent consoles merged into one file with kubectl logs --prefix "
  "style '[pod/<pod>/pytorch] ' prefixes (tagger.py --style kube); workers not --tee'd. The progress bar is tqdm writing "
  "carriage returns, so bar updates stay on one physical line until a newline arrives (kept verbatim, \\r included). "
  "Hosts/pods nemo-gpt-worker-0, nemo-gpt-worker-1, 2 workers each (world 4). Command (bash runs-src/case05.sh): "
  "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint nemo-gpt-worker-0:29705 --rdzv-id nemo-gpt-5 "
  "--max-restarts 0 runs-src/nemo_like.py --config-name megatron_gpt_tiny trainer.max_epochs=2 model.micro_batch_size=<MBS> "
  "model.data.data_prefix=<data> model.data.samples_per_rank=1600 exp_manager.exp_dir=<dir>. Injected: the only difference "
  "between the two pods' launch commands was model.micro_batch_size=8 on nemo-gpt-worker-0 and =16 on nemo-gpt-worker-1 "
  "(launched 14:37:03.6 and 14:37:04.6 UTC). The config dump is printed by global rank 0 (worker-0) only. "
  "init_process_group timeout 120 s. Agents exited 14:39:46."),
 "run-06": dict(fw="JSON-lines structured logging printed by runs-src/jsonl_trainer.py", mn=False, note=
  "Layout: logs/job-1.log and logs/job-2.log = the console (stdout+stderr of the torchrun agent; workers not --tee'd) of "
  "two consecutive submissions on one node, host train-box-3, 2 workers (world 2). Command (bash runs-src/case06.sh): "
  "torchrun --standalone --nproc-per-node 2 [--rdzv-id jsonl06a, job 1 only] runs-src/jsonl_trainer.py --data <data> --ckpt-dir <ckpt> --save-every 60 "
  "--log-every 10 --run-name tinylm-jsonl-06 --steps 120 (job 1) / --steps 400 (job 2). Rank 0 saves <ckpt>/step_N/"
  "{model,optim}.pt and then rewrites the tracker <ckpt>/latest.json; every run resumes from latest.json. Job 1 "
  "(14:37:06-14:37:48 UTC, plain root) trained steps 1-120 and saved at 60 and 120. Injected between the jobs (14:37:48.6): "
  "chmod 0444 on <ckpt>/latest.json only (the folder stayed 0755/writable). Job 2 (14:37:48.6-14:38:09) was started as "
  "`setpriv --bounding-set -dac_override,-dac_read_search torchrun ...`, i.e. as root without the capabilities that "
  "bypass file permission bits (as in a container that drops them)."),
 "run-07": dict(fw="timm-train.py-style logging printed by runs-src/timm_like.py (small CNN, synthetic 3x32x32 images)", mn=True, note=
  "Layout: logs/console.log = ONE merged console of the three nodes' agents with no host or rank prefixes at all "
  "(each node's stdout+stderr appended line by line to the same file, tagger.py --style none); workers not --tee'd; "
  "timm-style lines from rank 0 only. Hosts img-train-a, img-train-b, img-train-c, 1 worker each (world 3). Command "
  "(bash runs-src/case07.sh): torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint img-train-a:29707 "
  "--rdzv-id timm-r18-07 --max-restarts 0 runs-src/timm_like.py <data> --model resnet_tiny -b 64 --epochs 4 --knn-interval 3 "
  "--output <out>. Every rank keeps a 16000x128 feature memory bank and, every 3rd epoch, runs a kNN monitor over the 4000 "
  "validation images (a 4000x16000 similarity matrix plus its exp). Injected (set up before launch, 14:39:48 UTC): node "
  "img-train-c's whole namespace (agent + worker) was placed in a cgroup-v1 memory cgroup with memory.limit_in_bytes=900M "
  "(943718400), swappiness 0, no swap on the machine; img-train-a/b had no limit. A calibration run beforehand "
  "(1 worker, not collected) showed ~220 MB RSS while training and ~1.3 GB peak in the kNN monitor. cgroup afterwards: "
  "oom_kill 1, failcnt 103 (inject-records/c07.txt, usage samples every 2 s in inject-records/c07-memwatch.txt). "
  "Agents exited 14:41:15."),
 "run-08": dict(fw="DeepSpeed-engine-style logging with an fp16-style dynamic loss scaler, printed by runs-src/ds_fp16_like.py", mn=True, note=
  "HEALTHY run, nothing injected. Layout: logs/job-ds-0812-logs.tar.gz holds, per node, <host>/console.log (agent console with "
  "torchrun --tee 3, [defaultN]: prefixes) and the torchrun --log-dir tree <host>/torchrun-logs/<rdzv_id>_<rand>/attempt_0/"
  "<local_rank>/{stdout,stderr}.log. Hosts ds-trn-001, ds-trn-002, 2 workers each (world 4). Command (bash runs-src/case08.sh): "
  "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint ds-trn-001:29708 --rdzv-id ds-0812 "
  "--max-restarts 0 --log-dir ... --tee 3 runs-src/ds_fp16_like.py --deepspeed_config runs-src/ds_config_08.json "
  "--data <data> --save_dir <ckpt> --train_iters 300. The warnings in it are real, produced by the code as written: "
  "torch.cuda.amp.GradScaler constructed on a CPU machine (FutureWarning + 'CUDA is not available. Disabling.'), DDP "
  "find_unused_parameters=True with no unused parameters, torch.from_numpy on a read-only memmap, torch.tensor(tensor), "
  "lr_scheduler.step() called on a skipped (overflow) step, a missing deepspeed package falling back to AdamW; "
  "OVERFLOW/skip lines come from the loss scaler starting at 2^32. Ran 14:41:20-14:42:21 UTC; 300 iterations, "
  "checkpoints at 150 and 300, all agents exited 0."),
 "run-09": dict(fw="torchtune-recipe-style logging and tqdm bar printed by runs-src/torchtune_like.py", mn=False, note=
  "HEALTHY-after-restart run. Layout: logs/ft-run-0917-logs.zip holds console.log (agent console, torchrun --tee 3, "
  "[defaultN]: prefixes; tqdm carriage returns kept) and the torchrun --log-dir tree torchelastic/none_<rand>/attempt_{0,1}/"
  "<local_rank>/{stdout,stderr}.log. Host ft-node-17, 2 workers (world 2). Command (bash runs-src/case09.sh): torchrun "
  "--nnodes 1 --nproc-per-node 2 --master-addr ft-node-17 --master-port 29709 --max-restarts 1 --log-dir ... --tee 3 "
  "runs-src/torchtune_like.py --config tiny_full_finetune.yaml epochs=3 steps_per_epoch=100 dataset_dir=<node-local data> "
  "output_dir=<out> (static rendezvous). Each rank re-reads its shard file at the start of every epoch; the recipe resumes "
  "from recipe_state.pt when present; its process group uses a per-attempt key prefix (TORCHELASTIC_RESTART_COUNT) on the "
  "launcher's store. Injected from outside at 14:44:43.2 UTC (rank 0's bar at global step >= 90 of epoch 1): "
  "shard-00001.bin (rank 1's shard) was renamed to .shard-00001.bin.partial, and renamed back at 14:44:44.7 as soon as a "
  "failure line showed on the console. The agent restarted the workers once; the job then completed epochs 2-3 and the "
  "agent exited 0 at 14:45:19. Earlier tries not collected: one with a fixed 2.5 s window ran clean; two (c10d and "
  "static rendezvous, trainer using the default env:// init) restarted but attempt 1 died in gloo connectFullMesh "
  "('Connection refused' to an attempt-0 address) (inject-records/c09-try-*.txt)."),
}
strings = {}
for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "disjoint_check.out")):
    c, s = line.split(" | ")[:2]; strings.setdefault(c, []).append("'" + s + "'")
for c, d in cases.items():
    src = {"source": SRC, "framework": FW + d["fw"], "multi_rank": True, "multi_node": d["mn"],
           "collector_note": d["note"] + COMMON.replace("Each node is", "Each node is" if d["mn"] else "The node is") +
           DISJ.format(" and ".join(strings[c]))}
    json.dump(src, open(os.path.join(B7, c, "source.json"), "w"), indent=1, ensure_ascii=False)
print("ok")
