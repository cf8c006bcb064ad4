import json, os
B6 = "/work/staging/b6"
SRC = "real torchrun run on this machine, 2026-12-07"
PT = "PyTorch 2.13.0+cpu, torchrun (torch.distributed.run) c10d rendezvous, gloo backend, DDP"
COMMON = ("Each node is a torchrun agent started inside `unshare --uts --mount` with its own hostname; a per-case hosts file "
          "bind-mounted on /etc/hosts maps the node names to 127.0.1.21/22/23 (loopback), rendezvous c10d on that loopback address. "
          "Scripts: runs-src/common.sh, runs-src/caseNN.sh; the injection time stamps the case script wrote are copied to runs-src/inject-records/cNN.txt. "
          "Nothing was dropped or edited in the logs. Disjointness: runs-src/disjoint_check.sh greps (grep -rlF) a distinctive string of this "
          "case's logs (%s) in /work/shared/eval/dev, /work/main/corpora (all) and the other /work/staging/b6 cases: 0 hits outside this case.")
cases = {
 "run-01": dict(fw="HF-Trainer-style logging printed by hand (runs-src/hf_style.py)", mn=True, key="host      : gpu-node-08",
  note="Layout: per node logs/<host>/agent-console.log (the agent's stdout+stderr; torchrun --tee 3 so worker lines appear there with [defaultN]: prefixes) "
       "plus the torchrun --log-dir tree logs/<host>/torchelastic/<rdzv_id>_<rand>/attempt_0/<local_rank>/{stdout,stderr}.log. "
       "Hosts gpu-node-07, gpu-node-08, 2 workers each (world 4), --max-restarts 0, rdzv endpoint gpu-node-07:29611, trainer --ddp_timeout 90 "
       "(init_process_group timeout 90 s). Command: bash runs-src/case01.sh. Each rank reads its own jsonl shards lazily (rank r: shards r, r+4). "
       "Injected before launch (14:04:52 UTC): on gpu-node-08 only, the node-local data copy (bind-mounted at /mnt) had shard-00007.jsonl replaced by a "
       "FIFO with no writer (stand-in for a stuck network-filesystem read). Rank 3 (gpu-node-08 local_rank 1) reached that shard after ~187 steps "
       "(the last logged step is 180) and blocked in open(); nothing else was done; the other ranks waited in the DDP all-reduce until the 90 s gloo timeout; agents exited 14:07:28."),
 "run-02": dict(fw="torchtitan-style logging (runs-src/titan_style.py), byte-level LM", mn=True, key="[trn-2] [rank0]:[rank2]: KeyError: 'text'",
  note="Layout: one merged console logs/console.log: each node's agent stdout+stderr piped through runs-src/prefix.py which prepends '[<hostname>] ' "
       "and appends lines to the shared file (order = arrival order). torchrun --role rank --tee 3 --local-ranks-filter 0, so worker lines carry '[rank0]:' "
       "(local rank). Hosts trn-0, trn-1, trn-2, 1 worker each (world 3), rdzv endpoint trn-0:29621, --max-restarts 0. Command: bash runs-src/case02.sh. "
       "Injected before launch (14:07:46 UTC): trn-2's node-local copy of the corpus (bind-mounted at /mnt/corpus.jsonl) had records 1200-1259 "
       "rewritten with the field 'content' instead of 'text' (other nodes had the original file). The rank on trn-2 hit one of these records between step 80 (logged 14:09:25) and step 90; "
       "agents reported the failure at 14:09:35-14:09:37. An earlier attempt of this case with a bigger model was stopped by me (SIGTERM to its 3 agents) after ~40 s because it was too slow; its logs were discarded and the case re-run from scratch."),
 "run-03": dict(fw="Lightning-style console (banner, model summary, tqdm bar on rank 0) printed by hand (runs-src/lit_style.py), DataLoader num_workers=2", mn=True, key="host      : lit-worker-1",
  note="Layout: per-node folders logs/<host>/console.log (agent stdout+stderr, no --tee/--log-dir; progress bar uses \\r so a bar is one long line). "
       "Hosts lit-worker-0, lit-worker-1, 2 workers each (world 4), rdzv endpoint lit-worker-0:29631, --max-restarts 0. Each node's mount namespace got a 64 MiB "
       "tmpfs on /dev/shm at start (container-runtime default size). Command: bash runs-src/case03.sh. Injected at 14:09:05 UTC (~30 s after training start, during epoch 2): "
       "`nsenter --mount --target <lit-worker-1 agent pid> dd if=/dev/zero of=/dev/shm/.psm_cache bs=1M count=63` (a co-located process filling that node's "
       "/dev/shm; dd itself stopped at 46 MiB with ENOSPC, df showed 100% used). Agents exited 14:09:12."),
 "run-04": dict(fw="nanoGPT-like plain print() trainer on a np.memmap token file (runs-src/plain_train.py)", mn=True, key="0: [metrics] WARN connect to metrics-gw:9400 failed",
  note="HEALTHY run, nothing injected. Layout: one file logs/slurm-48213.out with srun --label style 'N: ' prefixes (N = node task id 0/1) added by runs-src/prefix.py "
       "--mode srun on each agent's stdout+stderr. Hosts cn-r3-14, cn-r3-15, 2 workers each (world 4), rdzv endpoint cn-r3-14:29641, --max-restarts 0. "
       "Command: bash runs-src/case04.sh. The trainer was run with --amp (uses the deprecated torch.cuda.amp API -> real FutureWarnings) and "
       "--metrics_addr metrics-gw:9400; the small metrics sidecar (runs-src/sink.py) was started 7 s after launch (14:09:37), so rank 0's first connect "
       "was really refused and retried. The trainer prints a health dict {'nan_count': 0, 'error': 0, ...}. 300 iterations, finished 14:10:45."),
 "run-05": dict(fw="python logging with host/rank in the format (runs-src/logtrain.py), GRU sequence classifier", mn=True, key="[seqcls-worker-1:rank2] seqcls.train",
  note="Layout: per pod files in `kubectl logs --timestamps` form (runs-src/prefix.py --mode ts prepends an RFC3339Nano UTC time to every line): "
       "logs/<pod>.previous.log = first attempt, logs/<pod>.log = resubmitted attempt. Hosts ('pods') seqcls-worker-0, seqcls-worker-1, 2 workers each "
       "(world 4), rdzv endpoint seqcls-worker-0:29651, --max-restarts 0, checkpoints every 50 steps to a shared dir. Command: bash runs-src/case05.sh. "
       "Injected at 14:11:36.50 UTC (~40 s after launch, just after step 300 was saved): SIGTERM to the torchrun agent of seqcls-worker-1 only (a preemption of that node); "
       "attempt 1 ended 14:11:38. At 14:11:48 both agents were started again (same command); attempt 2 resumed from step_000300.pt and finished step 700 at 14:12:50 (run completed)."),
 "run-06": dict(fw="nanoGPT-like plain print() trainer on a np.memmap token file (runs-src/plain_train.py)", mn=True, key="host      : ip-10-0-3-18 (inside the tar.gz)",
  note="Layout: logs/job-7741-node-logs.tar.gz holding per-node folders ip-10-0-3-17/stdout.log and ip-10-0-3-18/stdout.log (each agent's stdout+stderr). "
       "Hosts ip-10-0-3-17, ip-10-0-3-18, 2 workers each (world 4), rdzv endpoint ip-10-0-3-17:29661, --max-restarts 0. Each node reads its own node-local copy "
       "of train.bin (4,000,000 bytes) bind-mounted at /mnt and opened once with np.memmap. Command: bash runs-src/case06.sh. Injected at 14:12:32.77 UTC "
       "(~35 s after launch, ~iter 60): a 'dataset refresh' rewrote ip-10-0-3-18's local /mnt/train.bin in place: truncate -s 0, then 1,000,000 bytes of data appended. "
       "Nothing was sent to any process. Agents exited 14:12:38."),
 "run-07": dict(fw="HF-Trainer-style logging printed by hand (runs-src/hf_style.py)", mn=True, key="tinylm-sft-v3/checkpoint-120/pytorch_model.bin",
  note="Layout: one merged console per attempt in `kubectl logs --prefix` form ('[pod/<name>/pytorch] ', added by runs-src/prefix.py --mode kube): logs/attempt-1.log, logs/attempt-2.log. "
       "Hosts ('pods') sft-master-0, sft-worker-0, 2 workers each (world 4), rdzv endpoint sft-master-0:29671, --max-restarts 0. Command: bash runs-src/case07.sh. "
       "Attempt 1: --max_steps 120 --output_dir .../outputs/tinylm-sft-v2 (saved checkpoint-60 and checkpoint-120, finished). Attempt 2 (5 s later, to continue to 240 steps): "
       "--output_dir .../outputs/tinylm-sft-v3 --resume_from_checkpoint .../outputs/tinylm-sft-v3/checkpoint-120, a folder that attempt 1 never wrote (wrong folder). TIMES"),
 "run-08": dict(fw="Lightning-style console (runs-src/lit_style.py), tabular MLP regression (MSE), Adam", mn=False, key="0 | model     | TabularMLP | 74.5 K | train",
  note="Single node: host ml-box-3 (own UTS namespace), torchrun --standalone --nproc-per-node 2 (world 2), DataLoader num_workers=1, 10 epochs x 150 batches of 512. "
       "Layout: logs/train-console.log = the agent's stdout+stderr (tqdm bar uses \\r). Command: bash runs-src/case08.sh. The trainer reads features.npy through "
       "np.load(mmap_mode='r'). Injected at 14:11:29.53 UTC (~35 s after launch, during epoch 7): another process opened the same features.npy with mmap_mode='r+' and "
       "wrote 1e30 into columns 0-3 of 3000 random rows (out of 200000) in place (a 'feature backfill' writing to the live file). No process was signalled. "
       "The run went on to the end (agent exited 14:11:39) - it did not crash."),
 "run-09": dict(fw="torchtitan-style logging (runs-src/titan_style.py), byte-level LM", mn=True, key="compute-0-13_",
  note="Layout: per-node folders logs/<host>/torchrun-agent.log (agent stdout+stderr) and the torchrun --log-dir tree logs/<host>/rank-logs/<rdzv_id>_<rand>/attempt_0/<local_rank>/{stdout,stderr}.log "
       "written with --redirects 3 (worker output only in those files, not on the console). Hosts compute-0-12, compute-0-13, 2 workers each (world 4), "
       "rdzv endpoint compute-0-12:29691 (so compute-0-12's agent hosts the c10d store), --max-restarts 0. Command: bash runs-src/case09.sh. "
       "Injected at 14:13:06.99 UTC (~34 s after launch, ~step 100): kill -KILL of the torchrun agent process on compute-0-12 only; its two worker processes were "
       "not signalled by me. compute-0-13's agent exited 14:13:08; 150 s later no trainer process was left (checked with ps)."),
}
for c, d in cases.items():
    note = d["note"] + " " + (COMMON % repr(d["key"]))
    rec = os.path.join(B6, "runs-src", "inject-records", "c" + c[-2:] + ".txt")
    if "TIMES" in note and os.path.exists(rec):
        note = note.replace("TIMES", "Time stamps: " + " | ".join(l.strip() for l in open(rec) if l.strip()))
    json.dump({"source": SRC, "framework": PT + "; " + d["fw"], "multi_rank": True, "multi_node": d["mn"], "collector_note": note},
              open(os.path.join(B6, c, "source.json"), "w"), indent=2)
    print(c, "ok")
